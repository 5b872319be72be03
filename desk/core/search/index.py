"""SearchIndex: the Whoosh index derived from the database, and searches over it.

This module holds the index's state and its opening: the Whoosh index and one long-lived
searcher, reopened when the index changed on disk, with the posting arrays the ranking reads
(postings.py). The work is done beside it: writing a whole index (building.py), commits of
changes (commits.py), a search (searching.py), related papers and listings (related.py).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from whoosh import index as windex

from desk.core.runtime.logs import logger
from desk.core.search import manifest
from desk.core.search.acronyms import ACRONYMS_NAME, Acronyms
from desk.core.search.disk import BUILD_PREFIX, live_revisions, open_index, probe, sweep_builds
from desk.core.search.model import IndexDoc, IndexState, Merge, SearchResult
from desk.core.search.schema import INDEX_NAME, LEXICON_NAME, SCHEMA_VERSION, read_marker
from desk.core.search.spelling import Lexicon
from desk.core.search.whoosh_internals import check, fast

# The writing (building.py, commits.py) and searching (searching.py, related.py, the query
# language) modules are imported by the methods that use them: a process that only opens the
# library to read the database (`desk stats`) does not load them.
# Staging segments on worker processes (staging.py, desk.core.runtime.processes: multiprocessing) likewise:
# a search, or a note's commit from the command line, starts no worker.
# Reading (the searcher, the posting arrays: numpy, whoosh.searching) likewise: a note's commit
# from the command line (quick_index) writes a segment and exits, and loads none of it.
if TYPE_CHECKING:  # the library hands its vectors over; nothing of them is needed to import this
    from concurrent.futures import Future

    import numpy as np
    from whoosh.searching import Searcher

    from desk.core.runtime.processes import WorkerPool
    from desk.core.search.building import StagedBatch
    from desk.core.search.compiler import TagLookup
    from desk.core.search.postings import Corpus, PostingCache
    from desk.core.search.searching import Order
    from desk.core.search.segment_merge import MergedSegment
    from desk.core.search.staging import StagedSegment
    from desk.core.semantic.encoded import EncodedVectors
    from desk.core.semantic.vectors import SemanticVectors

log = logger(__name__)  # logging imported when something is logged (desk/core/runtime/logs.py)
#: A generation replaced by a commit whose caches hold more answers than this is freed at an idle
#: moment (release_retired), not by the commit: the ~8,000 normalised posting arrays a run of
#: searches leaves at 10k papers took 8-12 ms to free, inside the first edit after them.
RETIRE_FROM = 500
RETIRED_KEPT = 2  # replaced generations kept for the idle moment at most (each holds its arrays)
NOT_READY = "The search index is not ready."
UNREADABLE = "The search index could not be read; rebuild it."


class SearchIndex:
    """The full-text index of one library; safe to use from several threads."""

    SCHEMA_VERSION = SCHEMA_VERSION

    def __init__(self, directory: Path, *, one_shot: bool = False) -> None:
        """Open the index in directory (nothing is read until it is first used).

        ``one_shot``: for a process that searches or commits once and exits (the command line):
        the spelling lexicon's words are looked up in its file instead of parsing it whole,
        which a long-lived process (the window) does once, keeping its commits' lookups cheap.
        """
        self.directory = Path(directory)
        self._one_shot = one_shot
        self._lock = threading.RLock()
        self._rebuilding = threading.Lock()  # searches go on while a rebuild writes
        self._ix: windex.Index | None = None
        self._searcher: Searcher | None = None
        self._corpus: Corpus | None = None
        self._cache: PostingCache | None = None  # made by the first search (_current)
        self.defer_frees = False
        """Generations that commits replace are freed by release_retired() (the owner's idle
        moment: the window's), not inside the commit that replaced them."""
        self._retired: list[Corpus] = []
        self._signed: dict[str, Any] | None = None  # the record manifest.check_settled last vouched for
        self._lexicon = Lexicon(self.directory / LEXICON_NAME, lazy=one_shot)
        #: The meaning of the words, fused into ranked searches once the library's vectors are ready.
        self.semantic: SemanticVectors | None = None
        self.encoded: EncodedVectors | None = None  # the sentence encoder's, fused once complete
        self._acronyms = Acronyms(self.directory / ACRONYMS_NAME)
        check()  # once per process: is the installed Whoosh the one the fast paths were verified with?

    # ---- lifecycle: opening, freshness ---------------------------------------------

    def state(self) -> IndexState:
        """What is on disk now: OK, MISSING, CORRUPT or OLD_SCHEMA."""
        with self._lock:
            return probe(self.directory)

    def sweep(self) -> None:
        """Remove the build and staging folders of processes that were killed mid-write."""
        if self.directory.is_dir():
            from desk.core.search.staging import sweep_stages

            sweep_builds(self.directory)
            sweep_stages(self.directory)
            # Whoosh's writer keeps its pool's files in "<index>.tmp" until it commits or cancels:
            # a writer killed meanwhile leaves the folder behind (the index is sound without it).
            leftover = self.directory / f"{INDEX_NAME}.tmp"
            if leftover.is_dir() and not manifest.writer_busy(self.directory):
                shutil.rmtree(leftover, ignore_errors=True)

    def close(self) -> None:
        """Release open files; the index can be used again afterwards."""
        with self._lock:
            self._drop()

    def _drop(self) -> None:
        if self._searcher is not None:
            with contextlib.suppress(Exception):
                self._searcher.close()
        self._searcher = self._corpus = self._ix = None
        self._cache = None
        self._retired.clear()

    def _index(self) -> windex.Index:
        """The index, its newest table of contents checked against desk's signed record first
        (every reader or writer Whoosh makes reads that table anew); raises manifest.Untrusted."""
        self._signed = manifest.check_settled(self.directory)
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
        from whoosh.scoring import BM25F
        from whoosh.searching import Searcher

        from desk.core.search.postings import Corpus, PostingCache
        from desk.core.search.ranking import K1, B

        try:
            if self._searcher is None:
                self._searcher = self._index().searcher(weighting=BM25F(B=B, K1=K1))
            elif not self._searcher.up_to_date():
                # Not Searcher.refresh(): whoosh-reloaded 2.7.5's reader reuse brings back
                # merged-away segments and stale deletions. readers.reopen keeps only the
                # segment readers still right (a commit changes one or two segments of 40).
                from desk.core.search.readers import reopen

                ix = self._index()
                reader, gone = reopen(ix, self._searcher.reader())
                self._searcher = Searcher(reader, weighting=BM25F(B=B, K1=K1), fromindex=ix)
                for leaf in gone:
                    with contextlib.suppress(Exception):
                        leaf.close()
            if self._corpus is None or self._corpus.searcher is not self._searcher:
                if self._cache is None:
                    self._cache = PostingCache()
                replaced = self._corpus
                self._corpus = Corpus.load(self._searcher, self._cache, self.directory, self._signed)
                if replaced is not None:
                    self._retire(replaced)
        except Exception:
            # Mid-swap by another process, or gone: keep answering from what we hold.
            log.debug("search index could not be (re)opened", exc_info=True)
        return self._corpus

    def _retire(self, corpus: Corpus) -> None:
        """Keep a replaced generation that is costly to free for release_retired() (with
        defer_frees); else it is freed here, as the caller drops it."""
        if self.defer_frees and corpus.cached_entries() > RETIRE_FROM:
            self._retired.append(corpus)
            if len(self._retired) > RETIRED_KEPT:  # edits with no pause between them: memory first
                self._retired.pop(0)

    def release_retired(self) -> int:
        """Free the generations commits replaced (see defer_frees): for an idle moment. Returns
        how many were freed."""
        with self._lock:
            freed = len(self._retired)
            self._retired.clear()
            return freed

    def complete_flat_postings(self, cancel: threading.Event | None = None) -> int:
        """Write the flat postings the index's segments lack (an index an older desk wrote), in a
        process of its own, then read from them; returns how many segments gained them."""
        from desk.core.search.flat_backfill import backfill_in_process, lacking

        with self._lock:
            try:
                missing = lacking(self.directory, list(self._index()._segments()))
            except Exception:  # no index yet, or one being rebuilt: nothing to complete
                return 0
        if not missing or not backfill_in_process(self.directory, cancel):
            return 0
        with self._lock:
            corpus = self._current()
            if corpus is None:
                return 0
            try:
                self._signed = manifest.check_settled(self.directory)
            except manifest.Untrusted:
                return 0
            return corpus.adopt_flat(self.directory, self._signed)

    # ---- writing (building.py, commits.py) -------------------------------------------

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
        from desk.core.search import building

        with self._rebuilding:
            self.directory.mkdir(parents=True, exist_ok=True)
            sweep_builds(self.directory)
            build = self.directory / f"{BUILD_PREFIX}{os.getpid()}"
            shutil.rmtree(build, ignore_errors=True)
            build.mkdir()
            try:
                if building.build(build, docs, total, progress, cancelled, pool):
                    with self._lock:
                        self._drop()
                        building.swap_in(self.directory, build, self._record)
            finally:
                shutil.rmtree(build, ignore_errors=True)

    def update(
        self,
        docs: Sequence[IndexDoc],
        pool: WorkerPool | None = None,
        merge: Merge = "auto",
        reload: Callable[[Sequence[int]], Sequence[IndexDoc]] | None = None,
    ) -> None:
        """Insert or replace documents by id; raises when there is no index to update (rebuild first).

        A big batch given a ``pool`` is written as one segment per worker process, outside the
        index lock (searches go on meanwhile), and moved in with one commit. ``merge``: which
        segments the commit folds in (model.Merge). ``reload(ids)`` gives the papers' documents
        as they are (the database's): an edit's commit then folds small segments by writing
        their papers again with desk's writer, not through Whoosh's merge (~30 ms a paper).
        """
        latest = {d.id: d for d in docs}
        if pool is not None and self.can_stage(pool) and len(latest) >= pool.tuning.index_on_workers_from:
            batch = self.stage(list(latest.values()), pool)
            self.commit_staged(batch.ids, batch.result(), merge)
        elif latest or merge == "tiny":
            from desk.core.search.commits import SMALL_BATCH

            again: list[int] = []
            folds = merge == "tiny" or (merge == "auto" and len(latest) < SMALL_BATCH)
            if folds and reload is not None and fast():
                again = [i for i in self._fold_ids(merge == "tiny") if i not in latest]
                latest.update((d.id, d) for d in reload(again) if d.id not in latest)
                latest = dict(sorted(latest.items()))  # in id order, as an import writes them
                merge = "emptied"
            if latest or merge == "tiny":
                self._commit(latest, [], merge, frozenset(again))

    def ready_writer(self) -> None:
        """Ready an edit's commit before the first one, reading only: the modules it and the
        searcher's reopening after it load, and each segment's id column (segment_upkeep.segment_id_column
        keeps them; the commit looks for the edited paper's old version in every segment)."""
        from desk.core.search import commits, readers  # noqa: F401 - loaded here, not by the edit
        from desk.core.search.segment_upkeep import segment_id_column

        with self._lock:
            try:
                ix = self._index()
                for segment in ix._segments():
                    segment_id_column(ix.storage, ix.schema, segment)
            except Exception:  # no index yet, or one being replaced: the first commit reads them
                log.debug("could not read the index's id columns ahead of an edit", exc_info=True)

    def small_segments(self) -> int:
        """How many segments of fewer than segment_upkeep.TINY_SEGMENT documents the index has."""
        from desk.core.search.segment_upkeep import TINY_SEGMENT

        return sum(1 for s in self._index()._segments() if s.doc_count_all() < TINY_SEGMENT)

    def fold_edits(self, reload: Callable[[Sequence[int]], Sequence[IndexDoc]], rounds: int = 8) -> int:
        """Fold the small segments that edits committed without folding (update's merge "emptied"),
        as an edit's commit would have: segment_upkeep.tiered_choice's size class, its papers written again
        from ``reload``, one commit per class, until none is due (at most ``rounds``). Returns how
        many papers were written again. The caller holds the cross-process lock on the writer."""
        if not fast():
            return 0
        written = 0
        for _ in range(rounds):
            again = self._fold_ids(False)
            if not again:
                break
            docs = {d.id: d for d in reload(again)}
            self._commit(dict(sorted(docs.items())), [], "emptied", frozenset(again))
            written += len(docs)
            if len(docs) < len(again):  # papers gone meanwhile: their segments stay for the next fold
                break
        return written

    def _fold_ids(self, every: bool) -> list[int]:
        """The live papers of the small segments a commit folds: every tiny one, or those of
        segment_upkeep.tiered_choice (an edit's)."""
        from desk.core.search.segment_upkeep import TINY_SEGMENT, segment_id_column, tiered_choice

        ix = self._index()
        segments = ix._segments()
        tiny = [s for s in segments if s.doc_count_all() < TINY_SEGMENT]
        chosen = tiny if every else tiered_choice(segments)
        ids: list[int] = []
        for seg in chosen:
            column = segment_id_column(ix.storage, ix.schema, seg)
            ids += [int(column[d]) for d in range(len(column)) if not seg.is_deleted(d)]
        return ids

    @staticmethod
    def can_stage(pool: WorkerPool) -> bool:
        """Whether stage() may be used: worker processes, and the Whoosh the staging was verified with."""
        return pool.parallel and fast()

    def stage(self, docs: Sequence[IndexDoc], pool: WorkerPool) -> StagedBatch:
        """Start writing ``docs`` (distinct ids), a segment per worker; none shows before commit_staged().

        Only when can_stage(pool): segments are moved into the index through Whoosh's internals.
        """
        from desk.core.runtime.processes import split
        from desk.core.search.building import StagedBatch
        from desk.core.search.staging import sweep_stages, write_segment

        self.directory.mkdir(parents=True, exist_ok=True)
        sweep_stages(self.directory)
        jobs = [
            pool.submit(write_segment, str(self.directory), os.getpid(), part)
            for part in split(list(docs), pool.workers)
        ]
        return StagedBatch(tuple(d.id for d in docs), jobs)

    def commit_staged(
        self, ids: Iterable[int], staged: Sequence[StagedSegment], merge: Merge = "auto"
    ) -> None:
        """Replace the documents ``ids`` by the staged segments, in one commit."""
        self._commit({i: None for i in ids}, staged, merge)

    def _commit(
        self,
        latest: Mapping[int, IndexDoc | None],
        staged: Sequence[StagedSegment],
        merge: Merge = "auto",
        refolded: frozenset[int] = frozenset(),
    ) -> None:
        """One writer commit: old versions of ``latest``'s ids deleted, its docs and ``staged`` added
        (``refolded``: papers written again only to fold their segment; the lexicon has them)."""
        from desk.core.search import commits

        with self._lock:
            commits.commit(self._index(), self._lexicon, self._acronyms, latest, staged, merge, refolded)
            if not self._one_shot:  # a one-shot process commits and exits: nothing reads after
                self._current()  # the writer signed the generation before letting go of its lock

    def merge_small(self, reload: Callable[[Sequence[int]], Sequence[IndexDoc]] | None = None) -> None:
        """One commit that only folds the small segments into one (their papers written again
        from ``reload``, else through Whoosh's merge)."""
        self.update([], None, "tiny", reload)

    def start_merge(self, pool: WorkerPool) -> list[Future[MergedSegment]]:
        """Start merging the index's segments as segment_merge.plan() groups them, one group per
        job on the pool's workers (in this process when it has none); [] when nothing is due.

        Nothing is locked meanwhile: searches and other writers go on. commit_merge() puts them in.
        """
        from desk.core.search.segment_merge import merge_segments, plan

        if not fast():
            return []
        with self._lock:
            groups = plan(self._index()._segments())
        self.sweep()
        return [pool.submit(merge_segments, str(self.directory), os.getpid(), g) for g in groups]

    def commit_merge(self, merged: Sequence[MergedSegment]) -> int:
        """One commit replacing each merged group's sources by its segment (see start_merge);
        the caller holds the database's write lock, the cross-process lock on the index writer."""
        from desk.core.search.commits import WRITE_TIMEOUT
        from desk.core.search.segment_merge import commit_merged

        if not merged:
            return 0
        with self._lock:
            done = commit_merged(self._index(), merged, WRITE_TIMEOUT)
            self._current()
        return done

    def delete(self, ids: Iterable[int]) -> None:
        """Remove documents by id; unknown ids are ignored; raises when there is no index."""
        wanted = sorted(set(ids))
        if not wanted:
            return
        from desk.core.search import commits

        with self._lock:
            commits.delete(self._index(), self._acronyms, wanted)
            if not self._one_shot:
                self._current()

    # ---- reading what is indexed -------------------------------------------------------

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

    # ---- searching (searching.py, related.py) ------------------------------------------

    def search(
        self,
        query: str,
        limit: int = 50,
        *,
        offset: int = 0,
        typing: bool = False,
        tags: TagLookup | None = None,
        order: Order | None = None,
        hidden: Mapping[int, int] | None = None,
    ) -> SearchResult:
        """Ranked hits for ``query``; never raises on any query string.

        ``typing``: the query is being typed, so its last word is unfinished and is not
        spell-corrected. An unfinished end (an open quote, a trailing ``title:`` or ``AND``) is
        described by ``SearchResult.hint``; when nothing complete is left to search, the
        result has no hits and ``no_new_query`` set. ``tags`` answers ``tag:`` filters from the
        database; ``order``, given the ids of every match best first, returns their positions
        in the order wanted (a sort other than relevance). ``hidden`` maps the near-duplicate
        copies the lists do not show to the copy shown for each: such a copy is neither a hit nor
        counted where its shown copy matches too (alone, it is listed).
        """
        from desk.core.search.compiler import compile_query
        from desk.core.search.hits import empty, ms
        from desk.core.search.query import clean_query, parse
        from desk.core.search.searching import run_search

        started = time.perf_counter()
        limit, offset = max(0, limit), max(0, offset)
        query = clean_query(query)
        parsed = parse(query, typing=typing)
        compiled = compile_query(parsed, tags=tags)
        if compiled.empty and parsed.hint is not None:
            return SearchResult(
                query, 0, (), ms(started), None, False, (), parsed.message, parsed.hint, no_new_query=True
            )
        with self._lock:
            corpus = self._current()
            if corpus is None:
                return empty(query, started, NOT_READY)
            try:
                return run_search(
                    corpus,
                    self._lexicon,
                    self._acronyms,
                    self.semantic,
                    query,
                    parsed,
                    compiled,
                    limit,
                    offset,
                    started,
                    tags,
                    order,
                    self.encoded,
                    hidden or None,
                )
            except Exception:  # a damaged index must not take the search box down
                # Not the query itself: what a user searches for stays out of the log.
                import logging

                log.error(
                    "a search failed (%d characters)", len(query), exc_info=log.isEnabledFor(logging.DEBUG)
                )
                return empty(query, started, UNREADABLE)
            finally:
                corpus.cache.release_mapped()

    def related(self, doc_id: int, limit: int = 10) -> SearchResult:
        """Papers most like ``doc_id``, without it: its key terms' BM25F fused with its vector's cosine.

        Without vectors (not built yet), the key terms alone.
        """
        from desk.core.search.hits import empty
        from desk.core.search.related import NOT_INDEXED, related

        started = time.perf_counter()
        with self._lock:
            corpus = self._current()
            if corpus is None:
                return empty(f"related:{doc_id}", started, NOT_INDEXED)
            try:
                return related(corpus, self.semantic, doc_id, limit, started, self.encoded)
            finally:
                corpus.cache.release_mapped()

    def word_scores(self, words: Sequence[tuple[str, float]]) -> tuple[np.ndarray, np.ndarray]:
        """(ids ascending, scores) of the papers holding any of ``words`` ((stem, weight)), by
        their weighted BM25F over abstract and title; empty arrays before the index is read."""
        import numpy as np

        from desk.core.search.related import word_scores

        with self._lock:
            corpus = self._current()
            if corpus is None or not words:
                return np.zeros(0, np.int64), np.zeros(0, np.float64)
            try:
                return word_scores(corpus, words)
            finally:
                corpus.cache.release_mapped()

    def listing(
        self, label: str, scored: Sequence[tuple[int, float]], total: int, terms: Sequence[str] = ()
    ) -> SearchResult:
        """Hits for papers ranked elsewhere, their snippets the passages richest in ``terms``
        (stems, marked; else the abstract's lead); ids not indexed left out."""
        from desk.core.search.hits import empty
        from desk.core.search.related import listing

        started = time.perf_counter()
        with self._lock:
            corpus = self._current()
            if corpus is None:
                return empty(label, started, NOT_READY)
            return listing(corpus, label, scored, total, started, terms)
