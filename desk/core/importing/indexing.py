"""What follows each file of an import: near-duplicate hashing and index segments, on the workers.

Each file is stored in a transaction of its own, and its papers wait in the database's index
queue from that commit on: a kill at any moment leaves them there, and the next open indexes
them. So the index need not follow file by file. It is written once a batch is worth it —
Tuning.import_batch papers — or a few seconds have passed, and at the end: a folder of 200
one-abstract files is one commit (one merge of the tiny segments) instead of 200, and big files
are gathered into batches of Tuning.import_batch papers (two segments of 25,000 instead of two
of 2,500 per 5,000-abstract file, which the closing merge then rewrote).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # types only: none of these modules imports this one
    from desk.core.dedup.finder import DuplicateFinder, Hashing
    from desk.core.importing.importer import FileOutcome
    from desk.core.runtime.processes import WorkerPool
    from desk.core.search.index_sync import IndexSync, PendingFlush
    from desk.core.text.analysis import Analysed

#: Papers stored since the last index write are written anyway after this long, so a window
#: importing a big folder of small files shows them searchable as it goes (a batch small
#: enough to be written in this process)...
FLUSH_EVERY_SECONDS = 3.0
#: ... and a bigger one after this long, or once Tuning.import_batch papers wait: the workers
#: write segments of import_batch / workers papers, big enough that the import's closing merge
#: (which rewrites every paper it merges) has nothing to do up to 100k papers.
FLUSH_BIG_EVERY_SECONDS = 120.0
#: Papers one batch holds at most (the workers hold a segment's postings in memory, ~10 KB a paper).
MOST_PAPERS = 60_000


class ImportIndexing:
    """Once a file is analysed, its abstracts are hashed for near-duplicates while it is stored;
    once stored, its papers are indexed — a big batch as segments the workers write while the
    next file is stored (committed before the next batch starts), small files gathered first."""

    def __init__(
        self,
        sync: IndexSync,
        dupes: DuplicateFinder,
        pool: WorkerPool,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.sync, self.dupes, self.pool = sync, dupes, pool
        self.pending: list[PendingFlush] = []
        self.current: Hashing | None = None  # the file being stored
        self.hashing: list[tuple[Hashing, list[int], list[int]]] = []
        self._clock = clock
        self._waiting = 0  # papers queued for the index since the last write started
        self._unmerged = False  # a commit of this import left its small segments as they were
        self._since = clock()

    def analysed(self, items: Sequence[Analysed]) -> None:
        """A file is analysed and about to be stored: start hashing its abstracts."""
        self.current = self.dupes.start_hashing([a.readable for a in items], self.pool)

    def __call__(self, outcome: FileOutcome) -> None:
        """A file is stored: index what is queued when a batch is due (see the module doc)."""
        if self.current is not None and outcome.added_ids:
            self.hashing.append((self.current, outcome.added_ids, outcome.added_rows))
        self.current = None
        self._waiting += len(outcome.added_ids) + outcome.merged
        waited = self._clock() - self._since
        small = self._waiting < self.pool.tuning.index_on_workers_from  # written here, not staged
        if (
            self._waiting >= self.pool.tuning.import_batch
            or waited >= FLUSH_BIG_EVERY_SECONDS
            or (small and waited >= FLUSH_EVERY_SECONDS)
        ):
            self._write_batch()

    def _write_batch(self) -> None:
        """Commit the batch under way, then start writing the papers waiting (MOST_PAPERS at most)."""
        if self.pending:
            self.pending.pop().finish()
        # Not the last write: no merge now (a small batch's commit would fold the tiny segments
        # in each time); finish() merges once.
        batch = min(max(self._waiting, self.pool.tuning.import_batch), MOST_PAPERS)
        started = self.sync.start_flush(self.pool, "none", batch)
        if started is not None:
            self.pending.append(started)
        self._unmerged = True
        self._waiting, self._since = max(self._waiting - batch, 0), self._clock()

    def write_waiting(self) -> None:
        """After the last file: start writing the papers still waiting on the workers (a batch
        at a time), so they write while near-duplicates are checked; finish() commits them."""
        while self._waiting >= self.pool.tuning.index_on_workers_from:
            self._write_batch()

    def add_hashes(self) -> None:
        """Give the near-duplicate finder the hashes the workers computed (waits for them)."""
        self.dupes.add_hashed(self.hashing)
        self.hashing = []

    def finish(
        self, progress: Callable[[int, int], None] | None = None, cancelled: Callable[[], bool] | None = None
    ) -> None:
        """Commit the segments under way and index what is left (small files, merged papers'
        new sources, a batch that failed): one commit. Then merge the segments the import left
        by size class (IndexSync.merge_segments: ten segments of a class become one, on the
        workers, committed once), so 100k papers imported are a handful of segments, not one
        per file and worker; ``progress`` hears how many merges are done, ``cancelled`` stops them."""
        while self.pending:
            self.pending.pop().finish()
        if not self.sync.flush(self.pool, "tiny") and self._unmerged:
            self.sync.merge_small()  # nothing left to write: the merge alone
        if cancelled is None or not cancelled():
            self.sync.merge_segments(self.pool, progress, cancelled)

    def abandon(self) -> None:
        """Drop segments not committed (their papers stay queued)."""
        while self.pending:
            self.pending.pop().abandon()
