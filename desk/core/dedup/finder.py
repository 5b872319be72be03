"""The near-duplicate finder of one library: kept in step with the database, cached on disk."""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Collection, Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from sqlalchemy import select

from desk.core.dedup import Candidate, NearDuplicateIndex
from desk.core.dedup.cache_format import CACHE_KIND, CACHE_VERSION, LINK_PART
from desk.core.dedup.detector import DEFAULT_NUM_PERM, LINK_ARRAYS, DedupProgress, Prepared, prepare
from desk.core.dedup.saved_links import SavedLinks
from desk.core.dedup.titled import group_pairs, pairs_apart, real_titles
from desk.core.runtime.paths import DUPLICATES_CACHE_NAME
from desk.core.runtime.processes import WorkerPool
from desk.core.store import Database, Paper
from desk.core.store.derived_files import has_part, read_arrays, read_part, write_arrays
from desk.core.store.id_digest import ALL_IDS_SQL, ID_DIGEST_SQL

log = logging.getLogger(__name__)
CACHE_FILE_NAME = DUPLICATES_CACHE_NAME
LEGACY_CACHE_FILE_NAME = "near-duplicates.pickle"  # removed on the next save, never opened
HASH_BATCH = 10_000  # new papers hashed together (a progress report each)
# Fewer abstracts than pool.tuning.hash_on_workers_from are hashed in this process, while the
# workers write the index: they would first load numpy for them (1k list: 1.3 → 1.1-1.2 s; 5k:
# hashing on the workers wins).


@dataclass(frozen=True)
class Hashing:
    """The near-duplicate hashes of one file's abstracts, being computed on worker processes."""

    jobs: list[tuple[int, Future[Prepared]]]  # (position of the chunk's first abstract, its job)


class DuplicateFinder:
    """Near-duplicate candidates over every paper, reconciled with the database before each answer.

    Building the index costs seconds at 50k papers, so it is saved into the library's cache
    folder on close as plain arrays (``desk.core.store.derived_files``: no pickle, versioned, checksummed)
    and reloaded; papers added or removed since (by this or another process)
    are found by comparing ids with the database, which costs milliseconds. Listing the groups
    when no paper is new reads only the saved links (``desk.core.dedup.saved_links``): the window
    asks for their number at start, and at a million papers the whole index is ~2.5 GB.
    """

    def __init__(self, db: Database, cache_file: Path) -> None:
        self.db = db
        self.cache_file = cache_file
        self._index: NearDuplicateIndex | None = None
        self._dirty = False

    def _load(self) -> NearDuplicateIndex:
        arrays = read_arrays(self.cache_file, CACHE_KIND, CACHE_VERSION)
        if arrays is not None:
            try:
                index = NearDuplicateIndex.from_state_arrays(arrays)
                # A cache written before links were a part of their own: written again on close.
                self._dirty = not has_part(self.cache_file, LINK_PART)
                return index
            except (KeyError, ValueError, TypeError):
                log.debug("near-duplicate cache does not fit together; rebuilding", exc_info=True)
        self._dirty = True
        return NearDuplicateIndex()

    def index(
        self, pool: WorkerPool | None = None, progress: DedupProgress | None = None
    ) -> NearDuplicateIndex:
        """The index, holding exactly the papers in the database now (new ones hashed on ``pool``;
        ``progress`` hears how many are hashed, and how many candidate pairs verified)."""
        if self._index is None:
            self._index = self._load()
        index = self._index
        with self.db.reading() as session:
            in_db = set(session.scalars(select(Paper.id)))
            held = index.paper_ids()
            gone, new = held - in_db, in_db - held
            for paper_id in gone:
                index.remove(paper_id)
            missing = sorted(new)
            # A batch at a time: the texts of 100k new papers at once held ~0.5 GB (with the
            # copies sent to the workers); a batch still keeps both workers busy.
            for batch in range(0, len(missing), HASH_BATCH):
                texts: list[tuple[int, str]] = []
                for start in range(batch, min(batch + HASH_BATCH, len(missing)), 900):
                    chunk = missing[start : min(start + 900, batch + HASH_BATCH)]
                    rows = session.execute(select(Paper.id, Paper.abstract).where(Paper.id.in_(chunk)))
                    texts += [(i, text) for i, text in rows]
                index.add_many(texts, pool)
                if progress is not None:
                    progress(min(batch + HASH_BATCH, len(missing)), len(missing), "hashing")
        self._dirty = self._dirty or bool(gone or new)
        index.settle(progress)
        return index

    def start_hashing(self, texts: Sequence[str], pool: WorkerPool) -> Hashing | None:
        """Hash one file's readable abstracts on the pool's workers, started before the file is
        stored (the workers would wait meanwhile); add_hashed() keeps the papers it added.

        None for few texts: index() hashes those here when asked.
        """
        if not pool.parallel or len(texts) < pool.tuning.hash_on_workers_from:
            return None
        size = min(pool.tuning.hash_chunk, -(-len(texts) // pool.workers))  # every worker gets a share
        return Hashing(
            [
                (lo, pool.submit(prepare, texts[lo : lo + size], DEFAULT_NUM_PERM))
                for lo in range(0, len(texts), size)
            ]
        )

    def add_hashed(self, files: Sequence[tuple[Hashing, Sequence[int], Sequence[int]]]) -> None:
        """Add the hashes of papers added by files: (the file's hashing, the papers' ids, their
        abstracts' positions in the file). A failed job's papers are hashed by index() instead."""
        if not files:
            return
        if self._index is None:
            self._index = self._load()
        if self._index.num_perm != DEFAULT_NUM_PERM:
            return
        for hashing, ids, rows in files:
            for lo, job in hashing.jobs:
                try:
                    ready = job.result()
                except Exception:
                    log.debug("near-duplicate hashing failed on a worker; done here later", exc_info=True)
                    continue
                picked = [
                    (i, r - lo) for i, r in zip(ids, rows, strict=True) if lo <= r < lo + len(ready.words)
                ]
                if picked:
                    self._index.add_prepared([i for i, _ in picked], ready.subset([r for _, r in picked]))
                    self._dirty = True

    def groups(
        self, excluded: Collection[tuple[int, int]], progress: DedupProgress | None = None
    ) -> list[Candidate]:
        """Groups of papers that look like one paper, minus pairs a user ruled out and pairs
        whose real titles name two papers (``desk.core.dedup.titled``)."""
        found = self._groups(excluded, progress)
        apart = self._titles_apart(group_pairs(g.ids for g in found))
        if not apart:
            return found
        return self._groups(set(excluded) | apart, progress)  # grouped again without those links

    def _groups(
        self, excluded: Collection[tuple[int, int]], progress: DedupProgress | None
    ) -> list[Candidate]:
        if self._index is None:
            saved = self._saved_groups(excluded)
            if saved is not None:
                return saved
        return self.index(progress=progress).groups(exclude_pairs=excluded)

    def quick_groups(self, excluded: Collection[tuple[int, int]]) -> list[Candidate] | None:
        """The groups when they come cheap: from the index once loaded, else the saved links
        alone; None when only hashing papers would say (the lists show every copy meanwhile)."""
        if self._index is not None:
            return self.groups(excluded)
        return self._saved_groups(excluded)

    def _titles_apart(self, pairs: Sequence[tuple[int, int]]) -> set[tuple[int, int]]:
        """Those of ``pairs`` whose two papers both have a real title, and the titles differ."""
        if not pairs:
            return set()
        with self.db.reading() as session:
            raw = session.connection().connection.driver_connection
            assert isinstance(raw, sqlite3.Connection)
            titles = real_titles(raw, {i for pair in pairs for i in pair})
        return pairs_apart(pairs, titles)

    def _saved_groups(self, excluded: Collection[tuple[int, int]]) -> list[Candidate] | None:
        """The groups from the cache's links alone, or None when the whole index must answer."""
        arrays = read_part(self.cache_file, CACHE_KIND, CACHE_VERSION, LINK_PART)
        if arrays is None:
            return None
        try:
            saved = SavedLinks.from_arrays(arrays)
        except (KeyError, ValueError, TypeError):
            log.debug("near-duplicate links do not fit together; reading the whole cache", exc_info=True)
            return None
        with self.db.reading() as session:
            raw = session.connection().connection.driver_connection
            assert isinstance(raw, sqlite3.Connection)
            # The same papers (the usual case) are known from a digest, no id leaving SQLite.
            count, total, squares = raw.execute(ID_DIGEST_SQL).fetchone()
            same = (int(count), int(total), int(squares)) == saved.id_digest()
            in_db = (
                saved.ids
                if same
                else np.array(sorted(r[0] for r in raw.execute(ALL_IDS_SQL)), dtype=np.int64)
            )
        return saved.groups(in_db, excluded)

    def offered(
        self,
        paper_ids: Sequence[int],
        excluded: Collection[tuple[int, int]],
        pool: WorkerPool | None = None,
        progress: DedupProgress | None = None,
    ) -> int:
        """How many of the given papers have a near-duplicate not ruled out (by a user, or by
        their real titles)."""
        index = self.index(pool, progress)
        offered = {
            i: [p for j, _ in index.candidates_for(i) if (p := (min(i, j), max(i, j))) not in excluded]
            for i in paper_ids
        }
        apart = self._titles_apart([p for pairs in offered.values() for p in pairs])
        return sum(any(p not in apart for p in pairs) for pairs in offered.values())

    def save(self) -> None:
        """Write the index to the cache file if it changed (atomically)."""
        if self._index is None or not self._dirty:
            return
        try:
            arrays = self._index.state_arrays()
            write_arrays(self.cache_file, CACHE_KIND, CACHE_VERSION, arrays, parts={LINK_PART: LINK_ARRAYS})
            self._dirty = False
            (self.cache_file.parent / LEGACY_CACHE_FILE_NAME).unlink(missing_ok=True)
        except OSError:
            log.debug("could not write the near-duplicate cache", exc_info=True)
