"""``Library.discovery``: finding papers by meaning — the semantic vectors, related papers, recommendations.

Each method hands the work to desk/core/semantic/ (and the search index's ``related``).
"""

from __future__ import annotations

import logging
import sqlite3
import threading
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from sqlalchemy import select

from desk.core.library.sorting import IdScores
from desk.core.library.tags import Tags
from desk.core.records.page import ResultPage
from desk.core.runtime import failures
from desk.core.semantic.encoded import PROBLEM_PREFIX as ENCODER_PROBLEM
from desk.core.semantic.keys import OTHER_TEXT, DatabasePapers, Keys
from desk.core.semantic.minilm import ModelError
from desk.core.store import Paper
from desk.core.store.limits import IDS_PER_STATEMENT
from desk.core.store.queries import require_papers

if TYPE_CHECKING:
    from desk.core.library.copies import Copies
    from desk.core.search import SearchIndex, SearchResult
    from desk.core.semantic.encoded import EncodedVectors
    from desk.core.semantic.recommend import Words
    from desk.core.semantic.store import Vectors
    from desk.core.semantic.vectors import SemanticVectors
    from desk.core.store import Database

log = logging.getLogger(__name__)
Progress = Callable[[int, int], None]
NOTHING_TO_GO_ON = "Star or tag a few papers, and recommendations follow from them."
NOT_READY = "The semantic vectors are being built; recommendations follow once they are ready."
RELATED_SPARE = 20  # related papers asked for beyond the limit, for the hidden copies among them
IDS_FETCHED = 8192  # ids read from the database at once (_all_ids)
WATCH_S = 2.0  # how often the window looks at the builder's work (its checkpoints, how far it is)
BUILDER_START_S = 120.0  # a builder started but not yet holding its lock is waited for this long


class Discovery:
    """Semantic vectors, related papers and "Recommended for you" (``lib.discovery``)."""

    vectors_repaired: str | None = None  # what check_vectors() found and rebuilt ("rebuilt (corrupt)")
    vectors_unwritable: str | None = None  # why check_vectors() could not bring them up to date here
    encoded_unwritable: str | None = None  # why ensure_encoded() could not write the encoder's store
    encoding_elsewhere: str | None = None  # a builder process encodes the abstracts (ensure_encoded)

    def __init__(
        self,
        db: Database,
        directory: Path,
        index: SearchIndex,
        vectors: SemanticVectors,
        encoded: EncodedVectors,
        tags: Tags,
        page: Callable[[SearchResult], ResultPage],
        copies: Callable[[], Copies],
    ) -> None:
        """``page`` turns a search result into the page of rows the caller shows, ``copies`` gives
        the near-duplicate copies the lists hide (both ``Library``'s)."""
        self.db = db
        self.directory = directory
        self.index = index
        self.tags = tags
        self.page = page
        self.copies = copies
        self.vectors = vectors
        self.encoded = encoded
        self._recommend_cache: tuple[tuple[int, int, str | None], IdScores, str | None] | None = None

    # -- the vectors -------------------------------------------------------------------------
    def _all_ids(self) -> np.ndarray:
        """Every paper's id, ascending (int64), read IDS_FETCHED rows at a time: the window checks
        its vectors against them once open, and a million ids as ORM rows and a list of ints took
        ~130 MB more at their peak, which the window's thread then kept."""
        with self.db.reading() as session:
            raw = session.connection().connection.driver_connection
            assert isinstance(raw, sqlite3.Connection)
            cursor = raw.execute(f"SELECT id FROM {Paper.__tablename__} ORDER BY id")
            parts = [np.zeros(0, np.int64)]
            while rows := cursor.fetchmany(IDS_FETCHED):
                parts.append(np.fromiter((r[0] for r in rows), np.int64, len(rows)))
            return np.concatenate(parts)

    def _papers(self) -> DatabasePapers:
        """What the vector stores are computed from: each paper's id, text and its text's key."""
        return DatabasePapers(self.db)

    def _all_keys(self) -> Keys:
        """Every paper's id (ascending) and the key of its text (keys.py)."""
        return self._papers().keys()

    def _abstracts(self, ids: Sequence[int]) -> dict[int, str]:
        out: dict[int, str] = {}
        with self.db.reading() as session:
            for start in range(0, len(ids), IDS_PER_STATEMENT):
                chunk = list(ids[start : start + IDS_PER_STATEMENT])
                rows = session.execute(select(Paper.id, Paper.abstract).where(Paper.id.in_(chunk)))
                out.update((int(i), str(a)) for i, a in rows)
        return out

    def vectors_pending(self) -> bool:
        """True when the semantic vectors lag behind the database (``ensure_vectors`` has work)."""
        if self.vectors.current is None:
            self.vectors.load()
        ids, keys = self._all_keys()
        return self.vectors.pending(ids, keys) or self.encoded.pending(ids, keys)

    def ensure_vectors(self, progress: Progress | None = None, detach: bool = False) -> str | None:
        """Build or update the semantic vectors (after an import, off its critical path).

        Returns what was done ("built", "updated", "rebuilt (corrupt)", …) or None when they
        were up to date. A store that cannot be written is logged; the vectors built are still
        used in memory, and search works without them meanwhile. ``detach``: more than a few
        papers for the sentence encoder are left to a builder process (``ensure_encoded``).
        """
        try:
            done = self.vectors.ensure(self._papers(), progress)
        except OSError as exc:  # derived and optional: said by check, not an error of the library
            log.info("the semantic vectors could not be written: %s", exc)
            return f"could not be written ({failures.reason(exc)})"
        encoded = self.ensure_encoded(progress, detach=detach)
        return done or encoded

    def ensure_encoded(
        self, progress: Progress | None = None, cancel: threading.Event | None = None, detach: bool = False
    ) -> str | None:
        """Bring the sentence encoder's vectors up to date (encoded.py); what was done, or None.

        With ``detach``, a library lacking more than ``background.inline_max()`` papers' vectors
        has them built by a detached builder process instead (started unless one is at work:
        ``encoding_elsewhere`` then says how far it got), and this returns at once. Their store
        failing to be written or their model to be read is logged, not raised: search then fuses
        LSA alone, as it does until they cover every paper."""
        from desk.core.semantic import background

        self.encoding_elsewhere = None
        self.encoded_unwritable = None
        papers = self._papers()
        known = papers.keys()
        if not self.encoded.pending(*known):
            return None
        store = self.encoded.directory
        if detach and background.SUPPORTED:
            if background.building(store):
                self.encoding_elsewhere = self._encoding_said(known, started=False)
                return None
            if (
                self.encoded.missing(*known) > background.inline_max()
                and background.start(self.directory) is not None
            ):
                self.encoding_elsewhere = self._encoding_said(known, started=True)
                return None
        with background.build_lock(store, wait=not detach) as held:
            if not held:  # a builder took the lock meanwhile (it does the work), or no writing here
                if background.building(store):
                    self.encoding_elsewhere = self._encoding_said(known, started=False)
                elif not background.writable(store):
                    self.encoded_unwritable = _unwritable_reason(store)
                return None
            self.encoded.load()  # what a builder wrote before the lock was ours is kept
            try:
                return self.encoded.ensure(papers, progress, cancel, read=papers.read_ids())
            except ModelError as exc:
                log.info("the sentence-encoder vectors could not be built: %s", exc)
                return None
            except OSError as exc:
                log.info("the sentence-encoder vectors could not be written: %s", exc)
                self.encoded_unwritable = failures.reason(exc)
                return None

    def encode_in_background(self) -> str | None:
        """Start a builder process for the sentence encoder's vectors when more than a few papers
        lack them and none is at work (after a command's import: the next search finds them under
        way); what is under way, in words, or None."""
        from desk.core.semantic import background

        known = self._all_keys()
        if not background.SUPPORTED or (
            self.encoded.missing(*known) <= background.inline_max() and not self.encoded.neighbours_due()
        ):
            return None
        running = background.building(self.encoded.directory)
        if not running and background.start(self.directory) is None:
            return None
        self.encoding_elsewhere = self._encoding_said(known, started=not running)
        return self.encoding_elsewhere

    def _encoding_said(self, known: Keys, started: bool) -> str:
        """How far the sentence encoder's builder got, in words."""
        ids = known[0]
        done = len(ids) - self.encoded.missing(*known)
        verb = "started encoding" if started else "is encoding"
        return (
            f"the sentence encoder {verb} the abstracts in the background ({done:,} of {len(ids):,} done);"
            " searches use words and LSA until it has them all"
        )

    def ensure_vectors_elsewhere(self, cancel: threading.Event | None = None) -> str | None:
        """Like ensure_vectors for LSA's vectors alone, but the build runs in a process of its own
        (the window's threads keep the interpreter to themselves); the store is then reloaded.
        Returns what changed. The sentence encoder's follow by ``ensure_encoded_elsewhere``.

        Setting ``cancel`` stops the build (its process is killed) and nothing is done."""
        if self.vectors.current is None:
            self.vectors.load()
        pending = self.vectors.pending(*self._all_keys())
        # A float store (written before int16) is held whole: the build's ensure writes the same
        # vectors again as int16, which are mapped (not a change of the vectors: nothing to say).
        if not pending and not self.vectors.stored_as_floats():
            return None
        from desk.core.semantic.build import build_in_process

        if not build_in_process(self.directory, cancel=cancel, part="lsa"):
            if cancel is not None and cancel.is_set():
                return None
            return self.ensure_vectors()  # the process could not start or failed: here, then
        self.vectors.load()
        return "built" if pending else None

    def ensure_encoded_elsewhere(
        self, cancel: threading.Event | None = None, progress: Progress | None = None
    ) -> str | None:
        """The sentence encoder's vectors brought up to date in a process of its own (minutes to
        hours for a large library: LSA's and the rows already there are used meanwhile); what
        changed, or None.

        Where builders are supported (background.py) the detached builder does it, at the lowest
        priority and on every core, and outlives the window (the next open finds its rows); this
        waits for it, loading the store at each of its checkpoints (searches then fuse the rows
        there are) and saying how far it got through ``progress`` (papers with a vector, papers).
        Setting ``cancel`` stops the waiting, not the builder."""
        known = self._all_keys()
        if not self.encoded.pending(*known) and not self.encoded.neighbours_due():
            return None
        from desk.core.semantic import background

        store = self.encoded.directory
        at_work = background.SUPPORTED and background.building(store)
        if at_work or (background.SUPPORTED and background.start(self.directory) is not None):
            return self._watch_builder(known, cancel, progress)
        from desk.core.semantic.build import build_in_process

        if not build_in_process(self.directory, cancel=cancel, part="encoded"):
            if cancel is not None and cancel.is_set():
                return None
            return self.ensure_encoded(cancel=cancel)  # the process could not start: here, then
        return "encoded" if self.encoded.load() else None

    def _watch_builder(
        self, known: Keys, cancel: threading.Event | None, progress: Progress | None
    ) -> str | None:
        """Wait for the builder started or at work, loading its checkpoints; what changed."""
        import time

        from desk.core.semantic import background

        store = self.encoded.directory
        waiting = cancel if cancel is not None else threading.Event()
        started = time.monotonic()
        changed = False
        while not waiting.wait(WATCH_S):
            if self.refresh_encoded():
                changed = True
            if progress is not None:
                progress(*self.encoding_progress(known))
            if background.building(store):
                continue
            # Not at work: done, failed, or not started yet (its interpreter and the model load).
            if not self.encoded.pending(*known) or time.monotonic() - started > BUILDER_START_S:
                break
        if waiting.is_set():
            return "encoded" if changed else None
        self.refresh_encoded()
        return "encoded" if changed or not self.encoded.pending(*self._all_keys()) else None

    def refresh_encoded(self) -> bool:
        """Load the encoder's store again when a builder wrote it since (a checkpoint); True if so."""
        if not self.encoded.available or not self.encoded.changed():
            return False
        return self.encoded.load()

    def encoding_progress(self, known: Keys | None = None) -> tuple[int, int]:
        """(papers with an encoder vector, papers): how far the build is."""
        known = known if known is not None else self._all_keys()
        total = len(known[0])
        if not self.encoded.available:
            return 0, total
        return total - self.encoded.missing(*known), total

    def encode_first(self, ids: Sequence[int]) -> None:
        """Have the builder encode the papers ``ids`` (those in view) before the others."""
        if self.encoded.available:
            self.encoded.ask_first(ids)

    def encode_now(self, ids: Sequence[int]) -> int:
        """Encode at once the few of ``ids`` (a search's best, at most encoded.SPOT_MAX) that have
        no encoder vector yet, held in memory for the searches after it; how many were.
        ~0.4 s for ten on two cores: call it off the UI thread."""
        if not self.encoded.available:
            return 0
        try:
            return self.encoded.encode_now(self._papers(), ids)
        except ModelError as exc:
            log.info("the sentence-encoder vectors could not be computed: %s", exc)
            return 0

    def check_vectors(self) -> list[str]:
        """Bring the vectors up to date, then what is still wrong with them (empty: they agree).

        A store found damaged and rebuilt is said in ``vectors_repaired``, not as a problem; one
        that is missing, behind or damaged and cannot be written here (a read-only folder, a full
        disk) in ``vectors_unwritable``, not as a problem either: the vectors are derived, searches
        work without them, and nothing can be done about it from here. The sentence encoder's,
        when many are missing, are left to a builder process (``encoding_elsewhere`` says so): not
        a problem either, they are on their way.
        """
        stale = [p for p in self.vector_problems() if OTHER_TEXT in p]
        done = self.ensure_vectors(detach=True)
        self.vectors_repaired = done if done and done.startswith("rebuilt") else None
        self.vectors_unwritable = None
        problems = self.vector_problems()
        if stale and not any(OTHER_TEXT in p for p in problems) and not self.vectors_repaired:
            self.vectors_repaired = "rebuilt: " + "; ".join(stale)  # the encoder's, dropped and encoded again
        if self.encoding_elsewhere:
            problems = [p for p in problems if not p.startswith(ENCODER_PROBLEM)]
        elif self.encoded_unwritable:  # derived and optional, as the LSA store below: a note
            shown = [
                p.removeprefix(ENCODER_PROBLEM).strip() for p in problems if p.startswith(ENCODER_PROBLEM)
            ]
            problems = [p for p in problems if not p.startswith(ENCODER_PROBLEM)]
            if shown:
                self.vectors_unwritable = (
                    f"the sentence-encoder vectors cannot be written here ({self.encoded_unwritable}):"
                    f" {'; '.join(shown)}; searches use words and LSA until desk opens the library"
                    " where it can write"
                )
        if done and done.startswith("could not"):
            found = "; ".join(p.removeprefix("semantic vectors: ") for p in problems) or "they are behind"
            why = done.removeprefix("could not be written (").removesuffix(")")
            self.vectors_unwritable = (
                f"the semantic vectors cannot be written here ({why}): {found}; ranked searches"
                " use words alone until desk opens the library where it can write"
            )
            return []
        return problems

    def vector_problems(self) -> list[str]:
        """How the stored vectors differ from the database (empty when they agree)."""
        ids, keys = self._all_keys()
        return self.vectors.problems(ids, keys) + self.encoded.problems(ids, keys)

    # -- related and recommended -------------------------------------------------------------
    def related(self, paper_id: int, limit: int = 10) -> ResultPage:
        """Papers most like the given one: its key terms (BM25F) fused with its vector's nearest."""
        with self.db.reading() as session:
            require_papers(session, [paper_id])  # PaperNotFound for an id not in the library
        if self.vectors.current is None:
            self.vectors.load()
        copies = self.copies()
        twins = copies.twins(paper_id)  # the paper's own copies are not "like" it: they are it
        hidden = copies.hidden
        if len(twins) == 1 and not hidden:
            return self.page(self.index.related(paper_id, limit=limit))
        asked = limit + len(twins) + min(len(hidden), RELATED_SPARE)
        result = self.index.related(paper_id, limit=asked)
        kept = tuple(h for h in result.hits if h.id not in twins and h.id not in hidden)
        dropped = len(result.hits) - len(kept)
        return self.page(replace(result, hits=kept[:limit], total=max(0, result.total - dropped)))

    def _training(
        self, tag: str | None
    ) -> tuple[Vectors | None, list[int], list[int], list[int], str | None]:
        """(vectors, papers kept, papers read and left, candidates, why nothing can be ranked)."""
        if self.vectors.current is None:
            self.vectors.load()
        data = self.vectors.current
        with self.db.reading() as session:
            flags = [
                (int(i), bool(s), bool(r))
                for i, s, r in session.execute(select(Paper.id, Paper.starred, Paper.read))
            ]
        tagged = set(self.tags.papers(tag))
        kept = tagged if tag else tagged | {i for i, starred, _ in flags if starred}
        left = [i for i, starred, read in flags if read and not starred and i not in kept]
        candidates = [i for i, starred, read in flags if not read and not starred and i not in kept]
        message = NOT_READY if data is None else NOTHING_TO_GO_ON if not kept else None
        return data, sorted(kept), left, candidates, message

    def _recommendation(
        self, tag: str | None, limit: int
    ) -> tuple[list[tuple[int, float]], int, tuple[str, ...], str | None]:
        """(id, score) of the best ``limit`` candidates, how many there are, the stems the kept
        papers share (``profile.py``), and why there are none."""
        data, kept, left, candidates, message = self._training(tag)
        if data is None or message is not None:
            return [], 0, (), message
        from desk.core.semantic import recommend as recommending

        words, stems = self._shared_words(data, kept, left)
        scored = recommending.rank(data, kept, left, candidates, limit, words)
        return scored, len(candidates) if scored else 0, stems, None

    def _scores(self, tag: str | None) -> tuple[IdScores, str | None]:
        """Every candidate's probability, and why there is none."""
        data, kept, left, candidates, message = self._training(tag)
        if data is None or message is not None:
            return IdScores.empty(), message
        from desk.core.semantic import recommend as recommending

        scored = recommending.score(data, kept, left, candidates, self._shared_words(data, kept, left)[0])
        return (IdScores.empty() if scored is None else IdScores.of(*scored)), None

    def _shared_words(
        self, data: Vectors, kept: list[int], left: list[int]
    ) -> tuple[Words | None, tuple[str, ...]]:
        """The BM25F of the words the kept papers share (``profile.py``; None when they share
        none), and those words' stems, heaviest first."""
        from desk.core.semantic import profile

        kept, left = profile.sample(kept), profile.sample(left)
        texts = self._abstracts(kept + left)
        vocabulary = data.model.vocabulary
        idf = dict(zip(vocabulary.words, vocabulary.idf.tolist(), strict=True))
        words, strength = profile.shared_words(
            [texts[i] for i in kept if i in texts], [texts[i] for i in left if i in texts], idf
        )
        if not words:
            return None, ()
        ids, scores = self.index.word_scores(words)
        return (ids, scores, strength), tuple(stem for stem, _ in words)

    def recommend(self, tag: str | None = None, limit: int = 50) -> ResultPage:
        """Unread papers ranked by what the user starred and tagged against what they read and left.

        With ``tag``, the papers carrying it are the ones kept, and papers already carrying it
        are not offered. Papers read, or starred, are never offered.
        """
        label = f"recommend:{tag}" if tag else "recommend"
        hidden = self.copies().hidden  # one copy of a paper, not both
        scored, total, stems, message = self._recommendation(tag, limit + len(hidden))
        kept = [(i, score) for i, score in scored if i not in hidden]
        scored, total = kept[:limit], max(0, total - (len(scored) - len(kept)))
        result = self.index.listing(label, scored, total, stems)
        page = self.page(result)
        return page if message is None else _with_message(page, message)

    def recommend_scores(self, tag: str | None = None) -> tuple[IdScores, str | None]:
        """Every candidate's score for the "recommended" sort (what ``recommend`` ranks by), and
        why there are none (nothing starred or tagged yet, vectors not built). Kept until the
        database or the vectors change, so a query typed in that sort does not train again."""
        key = (self.db.data_version(), id(self.vectors.current), tag)
        cached = self._recommend_cache
        if cached is not None and cached[0] == key and self.vectors.current is not None:
            return cached[1], cached[2]
        scores, message = self._scores(tag)
        self._recommend_cache = (
            (self.db.data_version(), id(self.vectors.current), tag),
            scores,
            message,
        )
        return scores, message


def _with_message(page: ResultPage, message: str) -> ResultPage:
    return replace(page, message=message)


def _unwritable_reason(store: Path) -> str:
    """Why the encoder's store folder cannot be written, in a few words."""
    if store.exists() and not store.is_dir():
        return "a file is in the place of its folder"
    return "the folder is read-only or the disk is full"
