"""SearchIndex: the Whoosh index derived from the database, and searches over it."""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import Future
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from whoosh import index as windex
from whoosh.scoring import BM25F
from whoosh.searching import Searcher

from desk.core.search import manifest
from desk.core.search.acronyms import ACRONYMS_NAME, Acronyms, query_alternatives
from desk.core.search.compiler import Compiled, TagLookup, compile_query
from desk.core.search.disk import BUILD_PREFIX, abort, live_revisions, open_index, probe, sweep_builds
from desk.core.search.fields import writer_fields
from desk.core.search.model import Hit, IndexDoc, IndexState, Marks, SearchResult
from desk.core.search.postings import Corpus, PostingCache
from desk.core.search.query import ParsedQuery, clean_query, parse
from desk.core.search.ranking import K1, B, Ranked, bm25f, rank, top
from desk.core.search.rescore import RESCORE_DEPTH, Rescorer
from desk.core.search.schema import (
    INDEX_NAME,
    LEXICON_NAME,
    SCHEMA_VERSION,
    TEXT_FIELDS,
    analyze,
    build_schema,
    codec,
    read_marker,
    remove_marker,
    write_marker,
)
from desk.core.search.snippets import Highlighter, lead, snippet
from desk.core.search.spelling import Lexicon, apply, corrections, other_word, spelling_variants
from desk.core.search.staging import StagedSegment, discard, install, sweep_stages, write_segment
from desk.core.search.whoosh_internals import check, fast
from desk.core.search.writer import FastSegmentWriter, delete_ids, merge_tiny, segment_writer
from desk.core.semantic.fusion import fuse, related_fusion
from desk.core.tuning import DEFAULT as DEFAULT_TUNING
from desk.core.workers import WorkerPool, split

if TYPE_CHECKING:  # the library hands its vectors over; nothing of them is needed to import this
    from desk.core.semantic.vectors import SemanticVectors

log = logging.getLogger(__name__)
Found = tuple[int, int, float]  # (docnum, query parts matched, relevance) of a ranked document
SMALL_BATCH = 200  # updates smaller than this merge only tiny segments
#: A sort other than relevance: given the ids of the matches best first, their positions in order.
Order = Callable[[np.ndarray], Sequence[int]]


# A batch of pool.tuning.index_on_workers_from papers or more is cut into one segment per
# worker process; a smaller one is written here (a worker and moving its segment in cost more).
FEW_HITS = 3  # below this many, the typed words count as not found ("corrected")
MAX_PREFIX_TERMS = 64  # expansions of a prefix listed in SearchResult.terms
RELATED_TERMS = 12
WRITE_TIMEOUT = 30.0  # seconds to wait for another writer (a second running copy)
NOT_READY = "The search index is not ready."
UNREADABLE = "The search index could not be read; rebuild it."
NOT_INDEXED = "That paper is not in the index."


class SearchIndex:
    """The full-text index of one library; safe to use from several threads."""

    SCHEMA_VERSION = SCHEMA_VERSION

    def __init__(self, directory: Path) -> None:
        """Open the index in directory (nothing is read until it is first used)."""
        self.directory = Path(directory)
        self._lock = threading.RLock()
        self._rebuilding = threading.Lock()  # searches go on while a rebuild writes
        self._ix: windex.Index | None = None
        self._searcher: Searcher | None = None
        self._corpus: Corpus | None = None
        self._cache = PostingCache()
        self._lexicon = Lexicon(self.directory / LEXICON_NAME)
        #: The meaning of the words, fused into ranked searches once the library's vectors are ready.
        self.semantic: SemanticVectors | None = None
        self._acronyms = Acronyms(self.directory / ACRONYMS_NAME)
        check()  # once per process: is the installed Whoosh the one the fast paths were verified with?

    # ---- lifecycle -----------------------------------------------------------------

    def state(self) -> IndexState:
        """What is on disk now: OK, MISSING, CORRUPT or OLD_SCHEMA."""
        with self._lock:
            return probe(self.directory)

    def sweep(self) -> None:
        """Remove the build and staging folders of processes that were killed mid-write."""
        if self.directory.is_dir():
            sweep_builds(self.directory)
            sweep_stages(self.directory)

    def close(self) -> None:
        """Release open files; the index can be used again afterwards."""
        with self._lock:
            self._drop()

    def _drop(self) -> None:
        if self._searcher is not None:
            with contextlib.suppress(Exception):
                self._searcher.close()
        self._searcher = self._corpus = self._ix = None
        self._cache = PostingCache()

    def _index(self) -> windex.Index:
        """The index, its newest table of contents checked against desk's signed record first
        (every reader or writer Whoosh makes reads that table anew); raises manifest.Untrusted."""
        manifest.check_signed(self.directory)
        if self._ix is None:
            if read_marker(self.directory) != SCHEMA_VERSION:
                raise FileNotFoundError(f"no search index of version {SCHEMA_VERSION} in {self.directory}")
            self._ix = open_index(self.directory)
        return self._ix

    def _record(self) -> None:
        """Sign the files of the generation just committed (manifest.py), before anything reads it."""
        try:
            manifest.record(self.directory)
        except OSError:  # a read-only folder: the next open that can write rebuilds the index
            log.debug("could not record the search index's files", exc_info=True)

    def _current(self) -> Corpus | None:
        """The long-lived searcher's arrays, refreshed when the index changed on disk."""
        try:
            if self._searcher is None:
                self._searcher = self._index().searcher(weighting=BM25F(B=B, K1=K1))
            elif not self._searcher.up_to_date():
                # Not Searcher.refresh(): whoosh-reloaded 2.7.5's reader reuse
                # brings back merged-away segments and stale deletions.
                fresh = self._index().searcher(weighting=BM25F(B=B, K1=K1))
                with contextlib.suppress(Exception):
                    self._searcher.close()
                self._searcher = fresh
            if self._corpus is None or self._corpus.searcher is not self._searcher:
                self._corpus = Corpus.load(self._searcher, self._cache)
        except Exception:
            # Mid-swap by another process, or gone: keep answering from what we hold.
            log.debug("search index could not be (re)opened", exc_info=True)
        return self._corpus

    # ---- writing ---------------------------------------------------------------------

    def rebuild(
        self,
        docs: Iterable[IndexDoc],
        total: int,
        progress: Callable[[int, int], None] | None = None,
        cancelled: Callable[[], bool] | None = None,
        pool: WorkerPool | None = None,
    ) -> None:
        """Replace the index with ``docs``; a cancel or a kill leaves the previous one or CORRUPT.

        With a ``pool``, segments are written by its worker processes while ``docs`` is read.
        """
        with self._rebuilding:
            self.directory.mkdir(parents=True, exist_ok=True)
            sweep_builds(self.directory)
            build = self.directory / f"{BUILD_PREFIX}{os.getpid()}"
            shutil.rmtree(build, ignore_errors=True)
            build.mkdir()
            try:
                if self._build(build, docs, total, progress, cancelled, pool):
                    with self._lock:
                        self._drop()
                        self._swap_in(build)
            finally:
                shutil.rmtree(build, ignore_errors=True)

    def _build(
        self,
        build: Path,
        docs: Iterable[IndexDoc],
        total: int,
        progress: Callable[[int, int], None] | None,
        cancelled: Callable[[], bool] | None,
        pool: WorkerPool | None,
    ) -> bool:
        """Write a complete index into ``build``; False when cancelled."""
        ix = windex.create_in(str(build), build_schema(), indexname=INDEX_NAME)
        if not fast():
            return self._build_public(ix, build, docs, total, progress, cancelled)
        tuning = pool.tuning if pool is not None else DEFAULT_TUNING
        if pool is None or not pool.parallel or total < tuning.index_on_workers_from:
            pool = WorkerPool(1, tuning)  # runs each part here, in turn
        part = min(tuning.rebuild_part, max(1, -(-total // pool.workers)))
        pending: list[Future[StagedSegment]] = []
        staged: list[StagedSegment] = []
        written = 0

        def collect(keep: int) -> None:
            nonlocal written
            while len(pending) > keep:
                staged.append(pending.pop(0).result())
                written += len(staged[-1].ids)
                if progress is not None:
                    progress(written, total)

        try:
            gathered: list[IndexDoc] = []
            for doc in docs:
                if cancelled is not None and len(gathered) % 32 == 0 and cancelled():
                    _abandon(pending, staged)
                    return False
                gathered.append(doc)
                if len(gathered) >= part:
                    pending.append(pool.submit(write_segment, str(build), os.getpid(), gathered))
                    gathered = []
                    collect(keep=pool.workers)  # at most one part waiting per worker
            if gathered:
                pending.append(pool.submit(write_segment, str(build), os.getpid(), gathered))
            collect(keep=0)
            install(FastSegmentWriter(ix, codec=codec()), staged)
        except BaseException:
            _abandon(pending, staged)
            raise
        count = ix.doc_count_all()
        ix.close()
        if count != written:  # a failed worker must not leave a silently partial index
            raise RuntimeError(f"the search index build wrote {count} of {written} papers")
        lexicon, acronyms = Lexicon(), Acronyms()
        for item in staged:
            lexicon.add_counts(item.word_counts)
            acronyms.set_docs(item.acronyms)
        lexicon.save(build / LEXICON_NAME)
        acronyms.save(build / ACRONYMS_NAME)
        if progress is not None:
            progress(written, total)
        return True

    def _build_public(
        self,
        ix: windex.Index,
        build: Path,
        docs: Iterable[IndexDoc],
        total: int,
        progress: Callable[[int, int], None] | None,
        cancelled: Callable[[], bool] | None,
    ) -> bool:
        """_build() through Whoosh's own writer, in this process (no staged segments)."""
        writer = segment_writer(ix)
        written = 0
        try:
            for doc in docs:
                if cancelled is not None and written % 32 == 0 and cancelled():
                    writer.cancel()
                    return False
                writer.add_document(**writer_fields(doc))
                written += 1
                if progress is not None and written % DEFAULT_TUNING.rebuild_part == 0:
                    progress(written, total)
        except BaseException:
            writer.cancel()
            raise
        writer.commit()
        ix.close()
        lexicon, acronyms = Lexicon(), Acronyms()
        lexicon.add_counts(writer.word_counts)
        lexicon.save(build / LEXICON_NAME)
        acronyms.set_docs(writer.acronyms)
        acronyms.save(build / ACRONYMS_NAME)
        if progress is not None:
            progress(written, total)
        return True

    def _swap_in(self, build: Path) -> None:
        # Without the marker the directory reads CORRUPT until the last step.
        remove_marker(self.directory)
        for p in self.directory.iterdir():
            if p.is_file():
                p.unlink()
        for p in build.iterdir():
            os.replace(p, self.directory / p.name)
        self._record()
        write_marker(self.directory)

    def update(self, docs: Sequence[IndexDoc], pool: WorkerPool | None = None) -> None:
        """Insert or replace documents by id; raises when there is no index to update (rebuild first).

        A big batch given a ``pool`` is written as one segment per worker process, outside the
        index lock (searches go on meanwhile), and moved in with one commit.
        """
        latest = {d.id: d for d in docs}
        if pool is not None and self.can_stage(pool) and len(latest) >= pool.tuning.index_on_workers_from:
            batch = self.stage(list(latest.values()), pool)
            self.commit_staged(batch.ids, batch.result())
        elif latest:
            self._commit(latest, [])

    @staticmethod
    def can_stage(pool: WorkerPool) -> bool:
        """Whether stage() may be used: worker processes, and the Whoosh the staging was verified with."""
        return pool.parallel and fast()

    def stage(self, docs: Sequence[IndexDoc], pool: WorkerPool) -> StagedBatch:
        """Start writing ``docs`` (distinct ids), a segment per worker; none shows before commit_staged().

        Only when can_stage(pool): segments are moved into the index through Whoosh's internals.
        """
        self.directory.mkdir(parents=True, exist_ok=True)
        sweep_stages(self.directory)
        jobs = [
            pool.submit(write_segment, str(self.directory), os.getpid(), part)
            for part in split(list(docs), pool.workers)
        ]
        return StagedBatch(tuple(d.id for d in docs), jobs)

    def commit_staged(self, ids: Iterable[int], staged: Sequence[StagedSegment]) -> None:
        """Replace the documents ``ids`` by the staged segments, in one commit."""
        self._commit({i: None for i in ids}, staged)

    def _commit(self, latest: Mapping[int, IndexDoc | None], staged: Sequence[StagedSegment]) -> None:
        """One writer commit: old versions of ``latest``'s ids deleted, its docs and ``staged`` added."""
        with self._lock:
            try:
                writer = segment_writer(self._index(), timeout=WRITE_TIMEOUT, delay=0.05)
            except BaseException:
                discard(staged)
                raise
            try:
                delete_ids(writer, latest)
                self._lexicon.refresh()
                self._acronyms.refresh()
                new_words = new_acronyms = False
                for item in staged:
                    new_words = self._lexicon.add_counts(item.word_counts) or new_words
                    new_acronyms = self._acronyms.set_docs(item.acronyms) or new_acronyms
                for doc in latest.values():
                    if doc is not None:
                        writer.add_document(**writer_fields(doc))
                new_words = self._lexicon.add_counts(writer.word_counts) or new_words
                new_acronyms = self._acronyms.set_docs(writer.acronyms) or new_acronyms
                if new_words:  # saved under the writer's lock, like the segments
                    self._lexicon.save()
                if new_acronyms:
                    self._acronyms.save()
            except BaseException:
                abort(writer)
                discard(staged)
                raise
            # A star or a note must not pay for merging an import's big segments (seconds at 50k),
            # nor an import for rewriting the ones before it.
            if staged:
                install(writer, staged, merge_tiny)
            else:
                writer.commit(mergetype=merge_tiny if len(latest) < SMALL_BATCH else None)
            self._record()
            self._current()

    def delete(self, ids: Iterable[int]) -> None:
        """Remove documents by id; unknown ids are ignored; raises when there is no index."""
        wanted = sorted(set(ids))
        if not wanted:
            return
        with self._lock:
            writer = segment_writer(self._index(), timeout=WRITE_TIMEOUT, delay=0.05)
            try:
                delete_ids(writer, wanted)
                self._acronyms.refresh()
                if self._acronyms.drop(wanted):
                    self._acronyms.save()
            except BaseException:
                writer.cancel()
                raise
            writer.commit(mergetype=merge_tiny)
            self._record()
            self._current()

    def doc_count(self) -> int:
        """How many documents the index holds (read from its table of contents, no postings)."""
        with self._lock:
            return int(self._index().doc_count())

    def live_revisions(self) -> tuple[np.ndarray, np.ndarray]:
        """(ids, revs) of every live document: two bulk column reads, no postings."""
        with self._lock, self._index().reader() as reader:
            return live_revisions(reader)

    def revisions(self) -> dict[int, int]:
        """id -> rev of every indexed document."""
        with self._lock:
            corpus = self._current()
            if corpus is None:
                return {}
            out: dict[int, int] = {}
            for leaf, offset, _ in corpus.leaves:
                revs = leaf.column_reader("rev")
                for docnum in leaf.all_doc_ids():
                    out[int(corpus.ids[offset + docnum])] = int(revs[docnum])
            return out

    # ---- searching ---------------------------------------------------------------------

    def search(
        self,
        query: str,
        limit: int = 50,
        *,
        offset: int = 0,
        typing: bool = False,
        tags: TagLookup | None = None,
        order: Order | None = None,
    ) -> SearchResult:
        """Ranked hits for ``query``; never raises on any query string.

        ``typing``: the query is being typed, so its last word is unfinished and is not
        spell-corrected. An unfinished end (an open quote, a trailing ``title:`` or ``AND``) is
        described by ``SearchResult.hint``; when nothing complete is left to search, the
        result has no hits and ``no_new_query`` set. ``tags`` answers ``tag:`` filters from the
        database; ``order``, given the ids of every match best first, returns their positions
        in the order wanted (a sort other than relevance).
        """
        started = time.perf_counter()
        limit, offset = max(0, limit), max(0, offset)
        query = clean_query(query)
        parsed = parse(query, typing=typing)
        compiled = compile_query(parsed, tags=tags)
        if compiled.empty and parsed.hint is not None:
            return SearchResult(
                query, 0, (), _ms(started), None, False, (), parsed.message, parsed.hint, no_new_query=True
            )
        with self._lock:
            corpus = self._current()
            if corpus is None:
                return _empty(query, started, NOT_READY)
            try:
                return self._search(corpus, query, parsed, compiled, limit, offset, started, tags, order)
            except Exception:  # a damaged index must not take the search box down
                # Not the query itself: what a user searches for stays out of the log.
                log.error(
                    "a search failed (%d characters)", len(query), exc_info=log.isEnabledFor(logging.DEBUG)
                )
                return _empty(query, started, UNREADABLE)

    def _search(
        self,
        corpus: Corpus,
        query: str,
        parsed: ParsedQuery,
        compiled: Compiled,
        limit: int,
        offset: int,
        started: float,
        tags: TagLookup | None = None,
        order: Order | None = None,
    ) -> SearchResult:
        depth = corpus.n if order is not None else max(offset + limit, RESCORE_DEPTH)
        expansions: dict[tuple[int, int], list[tuple[tuple[str, ...], float]]] = {}
        variants: dict[tuple[int, int], list[str]] = {}
        if compiled.spell_words and compiled.ranked:
            self._lexicon.refresh()
            self._acronyms.refresh()
            counts = self._lexicon.counts
            expansions = query_alternatives(
                self._acronyms, query, compiled.spell_words, lambda w: counts.get(w.lower(), 0)
            )
            variants = {
                at: [stems[0] for v in others if len(stems := analyze(v)) == 1]
                for at, others in spelling_variants(self._lexicon, query, compiled.spell_words).items()
            }
            if expansions or variants:  # acronyms searched as their long forms too, "colour" as "color"
                compiled = compile_query(parsed, None, tags, expansions, (), variants)
        total, found = self._run(corpus, compiled, depth)
        suggestion, corrected = None, False
        if compiled.spell_words and compiled.ranked:
            fixes = corrections(self._lexicon, query, compiled.spell_words, self._stem_known(corpus))
            suggestion = apply(query, fixes)
            unused = {at for at, fix in fixes.items() if other_word(query[at[0] : at[1]], fix, self._lexicon)}
            merged = compile_query(parsed, fixes, tags, expansions, unused, variants) if fixes else compiled
            if merged.plan != compiled.plan:  # not when the only typos are inside "phrases"
                # Each unknown word is searched together with its correction, however many
                # papers the typed words found; "corrected" when those found too few.
                typed_total = total
                total, found = self._run(corpus, merged, depth)
                compiled, corrected = merged, typed_total < FEW_HITS and total > typed_total
            if suggestion is not None and total < FEW_HITS:  # e.g. a typo inside a "phrase"
                alt = compile_query(parse(suggestion), tags=tags)
                alt_total, alt_found = self._run(corpus, alt, depth)
                if alt_total > total:
                    compiled, total, found, corrected = alt, alt_total, alt_found, True
        terms = self._terms(corpus, compiled)
        marks = Marks(terms, tuple(compiled.prefixes), tuple(compiled.phrases), tuple(compiled.loose))
        hl = Highlighter.of(marks)
        stored: dict[int, dict[str, Any]] = {}
        if order is not None:
            positions = order(corpus.ids[[f[0] for f in found]]) if found else []
            found = [found[int(i)] for i in positions]
        elif compiled.ranked and compiled.words:
            found = self._rescore(corpus, compiled, found, hl, stored)
            if self.semantic is not None:
                found, joined = _fuse(self.semantic, corpus, compiled, found)
                total += joined
        hits = self._hits(corpus, found[offset : offset + limit], hl, stored)
        return SearchResult(
            query,
            total,
            hits,
            _ms(started),
            suggestion,
            corrected,
            terms,
            parsed.message,
            parsed.hint,
            marks=marks,
        )

    def related(self, doc_id: int, limit: int = 10) -> SearchResult:
        """Papers most like ``doc_id``, without it: its key terms' BM25F fused with its vector's cosine.

        Without vectors (not built yet), the key terms alone.
        """
        started = time.perf_counter()
        label = f"related:{doc_id}"
        with self._lock:
            corpus = self._current()
            if corpus is None:
                return _empty(label, started, NOT_INDEXED)
            where = np.flatnonzero((corpus.ids == doc_id) & corpus.alive)
            if not len(where):
                return _empty(label, started, NOT_INDEXED)
            docnum = int(where[0])
            stored = corpus.searcher.stored_fields(docnum)
            text = f"{stored.get('title', '')}\n{stored.get('abstract', '')}"
            keys = corpus.searcher.key_terms_from_text("abstract", text, numterms=RELATED_TERMS)
            vec = self.semantic.vector_of(doc_id) if self.semantic is not None else None
            if not keys and vec is None:
                return _empty(label, started, None)
            heaviest = max((w for _, w in keys), default=1.0) or 1.0
            scores = np.zeros(corpus.n, np.float32)
            mask = np.zeros(corpus.n, bool)
            for term, weight in keys:
                s, m = bm25f(corpus, [("abstract", term, 1.0), ("title", term, 2.0)])
                scores += s * np.float32(weight / heaviest)
                mask |= m
            if vec is not None and self.semantic is not None:
                scores, mask = related_fusion(scores, mask, self.semantic.cosines(vec, corpus.ids))
            mask[docnum] = False
            total, docs, parts, values = top(corpus, Ranked(scores, mask), limit)
            terms = tuple(t for t, _ in keys)
            found = list(zip(docs.tolist(), parts.tolist(), values.tolist(), strict=True))
            hits = self._hits(corpus, found, Highlighter(terms), {})
            return SearchResult(
                label, total, hits, _ms(started), None, False, terms, None, marks=Marks(terms)
            )

    def listing(self, label: str, scored: Sequence[tuple[int, float]], total: int) -> SearchResult:
        """Hits (the abstract's lead as snippet) for papers ranked elsewhere; ids not indexed left out."""
        started = time.perf_counter()
        with self._lock:
            corpus = self._current()
            if corpus is None:
                return _empty(label, started, NOT_READY)
            live = np.flatnonzero(corpus.alive)
            docnum_of = dict(zip(corpus.ids[live].tolist(), live.tolist(), strict=True))
            found = [(docnum_of[i], 0, score) for i, score in scored if i in docnum_of]
            hits = self._hits(corpus, found, Highlighter(()), {})
            return SearchResult(label, total, hits, _ms(started), None, False, (), None)

    def _run(self, corpus: Corpus, compiled: Compiled, k: int) -> tuple[int, list[Found]]:
        """(total, [(docnum, parts, relevance)] of the best ``k``) for a compiled query."""
        total, docs, parts, values = top(corpus, rank(corpus, compiled.plan), k, by_id=not compiled.ranked)
        return total, list(zip(docs.tolist(), parts.tolist(), values.tolist(), strict=True))

    def _rescore(
        self,
        corpus: Corpus,
        compiled: Compiled,
        found: list[Found],
        hl: Highlighter,
        stored: dict[int, dict[str, Any]],
    ) -> list[Found]:
        """``found`` with its first RESCORE_DEPTH reordered by the bonus of rescore.py.

        The rest keep their order after them: a bonus is never negative, so every rescored
        candidate still outscores them, and a page never depends on how many were asked for.
        """
        head = found[:RESCORE_DEPTH]
        if len(head) < 2:
            return found
        self._lexicon.refresh()
        rescorer = Rescorer(
            compiled.words,  # postings decoded by the first stage give the document frequencies
            lambda stem: max(len(corpus.postings(f, stem)[0]) for f in ("title", "abstract")),
            self._lexicon.counts,
            max(1, corpus.n),
        )
        if not rescorer.active:
            return found
        rescored: list[tuple[float, int, int, int]] = []
        for docnum, parts, relevance in head:
            fields = _stored(corpus, docnum, stored)
            texts = [fields.get(f) or "" for f in ("title", "abstract", "note")]
            bonus = rescorer.bonus((t, hl.matches(t)) for t in texts if t)
            rescored.append((-(relevance + bonus), int(corpus.ids[docnum]), docnum, parts))
        rescored.sort()
        return [(docnum, parts, -neg) for neg, _, docnum, parts in rescored] + found[RESCORE_DEPTH:]

    def _stem_known(self, corpus: Corpus) -> Callable[[str], bool]:
        reader = corpus.searcher.reader()
        return lambda stem: any((f, stem) in reader for f in TEXT_FIELDS)

    def _terms(self, corpus: Corpus, compiled: Compiled) -> tuple[str, ...]:
        terms = list(compiled.terms)
        reader = corpus.searcher.reader()
        for p in compiled.prefixes:
            for _, t in zip(range(MAX_PREFIX_TERMS), reader.expand_prefix("abstract", p), strict=False):
                terms.append(t.decode("utf-8") if isinstance(t, bytes) else t)
        return tuple(dict.fromkeys(terms))

    def _hits(
        self,
        corpus: Corpus,
        found: list[Found],
        hl: Highlighter,
        stored: dict[int, dict[str, Any]],
    ) -> tuple[Hit, ...]:
        hits: list[Hit] = []
        for docnum, parts, relevance in found:
            fields = _stored(corpus, docnum, stored)
            abstract, note = fields.get("abstract", ""), fields.get("note", "")
            cut = snippet(abstract, hl) or (snippet(note, hl) if note else None) or lead(abstract)
            hits.append(Hit(int(corpus.ids[docnum]), int(parts), float(relevance), cut[0], cut[1]))
        return tuple(hits)


def _fuse(
    semantic: SemanticVectors, corpus: Corpus, compiled: Compiled, found: list[Found]
) -> tuple[list[Found], int]:
    """``found`` reordered with the query's cosine to each paper (fusion.py), and how many joined.

    Papers holding none of the words may join only a plain ranked query: not one with
    required parts, filters or exclusions, which meaning alone cannot satisfy.
    """
    vec = semantic.query_vector([w.stem for w in compiled.words])
    if vec is None:
        return found, 0
    cosine = semantic.cosines(vec, corpus.ids)
    plan = compiled.plan
    open_query = not (plan.musts or plan.filters or plan.negatives)
    return fuse(found, cosine, np.flatnonzero(corpus.alive) if open_query else None)


def _stored(corpus: Corpus, docnum: int, cache: dict[int, dict[str, Any]]) -> dict[str, Any]:
    """The stored fields of a document, read once per search."""
    fields = cache.get(docnum)
    if fields is None:
        fields = cache[docnum] = corpus.searcher.stored_fields(docnum)
    return fields


class StagedBatch:
    """Segments worker processes are writing for a batch of documents (see SearchIndex.stage)."""

    def __init__(self, ids: tuple[int, ...], jobs: list[Future[StagedSegment]]) -> None:
        self.ids = ids
        self._jobs = jobs

    def result(self) -> list[StagedSegment]:
        """The finished segments (waits); when a part failed, none is kept and its error is raised."""
        staged: list[StagedSegment] = []
        try:
            for job in self._jobs:
                staged.append(job.result())
        except BaseException:
            _abandon(self._jobs[len(staged) + 1 :], staged)
            raise
        return staged

    def abandon(self) -> None:
        """Stop waiting and remove whatever was written."""
        _abandon(self._jobs, [])


def _abandon(pending: list[Future[StagedSegment]], staged: list[StagedSegment]) -> None:
    """Cancel parts not started, wait for the running ones, and remove every staged folder."""
    for future in pending:
        future.cancel()
    for future in pending:
        with contextlib.suppress(BaseException):
            staged.append(future.result())
    discard(staged)


def _empty(label: str, started: float, message: str | None) -> SearchResult:
    return SearchResult(label, 0, (), _ms(started), None, False, (), message)


def _ms(started: float) -> float:
    return (time.perf_counter() - started) * 1000.0
