"""When work goes to worker processes, and in what pieces: one object instead of module constants.

The defaults were measured on a 2-core machine: below each threshold, starting workers and
moving data to them costs more than doing the work here. A ``WorkerPool`` carries one
``Tuning``; a test hands ``Tuning.eager()`` to a library so the seeds take the path a
5,000-abstract list takes.
"""

from __future__ import annotations

from dataclasses import dataclass, replace


@dataclass(frozen=True)
class Tuning:
    """Thresholds (counts of abstracts or documents) and job sizes of the parallel paths."""

    #: A file with this many abstracts is analysed (titles, keys) on the workers.
    analyse_on_workers_from: int = 1000
    #: Abstracts per analysis job given to a worker.
    analyse_part: int = 256
    #: An import of this many bytes of lists starts the workers at once (≈ analyse_on_workers_from abstracts).
    start_workers_from_bytes: int = 1_000_000
    #: A batch of this many papers is written to the index as segments by the workers.
    index_on_workers_from: int = 1000
    #: An import writes the index once this many papers wait (and at its end): a segment per
    #: worker of import_batch / workers papers. 100k papers are then 4 segments of 25,000, as
    #: the import's closing merge made of 40 segments of 2,500 (a segment per file and worker),
    #: rewriting every paper at ~0.85 ms CPU each; 8 segments of 12,500 searched 15-40 % slower.
    #: A worker holds its segment's postings in memory (~10 KB a paper: ~250 MB at 25,000).
    import_batch: int = 50_000
    #: Papers per segment of a rebuild: a segment's postings are held in memory (≈20 KB a paper).
    rebuild_part: int = 5000
    #: A file with this many abstracts is hashed for near-duplicates on the workers, while it is
    #: stored (fewer: here, while the workers write the index; they would first load numpy).
    hash_on_workers_from: int = 2000
    #: Abstracts a worker hashes in one job during an import (at most).
    hash_chunk: int = 512
    #: Texts the near-duplicate index hashes on the workers rather than here (two of its chunks).
    dedup_on_workers_from: int = 2048

    @classmethod
    def eager(cls, size: int = 5) -> Tuning:
        """Every path taken from ``size`` items, in small jobs: for tests on a small corpus."""
        return replace(
            cls(),
            analyse_on_workers_from=size,
            analyse_part=size + 2,
            index_on_workers_from=size,
            import_batch=size,
            hash_on_workers_from=size,
            hash_chunk=size,
            dedup_on_workers_from=size,
        )


#: What a WorkerPool gets when it is given no Tuning.
DEFAULT = Tuning()
