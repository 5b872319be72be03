"""How a build of the encoder store goes: in which order the papers are encoded, how many
between two looks at the clock, when the store is written, and on how many threads.

The order is a reader's (``build_order``: the papers in view, then unread before read, newest
first). A build writes the whole store every CHECKPOINT_CHUNKS chunks or CHECKPOINT_S seconds,
whichever comes first, but never spends more than a WRITE_SHARE-th of its time writing
(``Checkpoints``). Each chunk is encoded by one thread a core, each with one BLAS thread
(``one_blas_thread``, ``encode_side_by_side``).
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

import numpy as np

from desk.core.semantic import minilm

CHUNK = 64  # abstracts read and encoded between two progress reports (and looks at the time)
CHECKPOINT_CHUNKS = 8  # chunks encoded between two writes of the store (a kill loses at most these)
#: ...or this long since the last write, whichever comes first: on a loaded machine 8 chunks
#: (2,048 abstracts at ~40 ms each) take minutes, and a builder killed before them kept nothing.
CHECKPOINT_S = 30.0
WRITE_SHARE = 10.0  # the time since the last write is at least this many times that write's
CHUNK_VARIABLE = "DESK_ENCODE_CHUNK"  # another chunk (tests: a few abstracts)
CHECKPOINT_VARIABLE = "DESK_ENCODE_CHECKPOINT_S"  # another time between two writes (tests: 0)
WORKERS_VARIABLE = "DESK_ENCODE_WORKERS"  # threads a build encodes with (default: one a core)


def workers_wanted() -> int:
    """Threads a build encodes with: one a core (WORKERS_VARIABLE sets another number)."""
    try:
        return max(1, int(os.environ.get(WORKERS_VARIABLE, os.cpu_count() or 1)))
    except ValueError:
        return os.cpu_count() or 1


def chunk_size() -> int:
    """Abstracts encoded between two looks at the clock (CHUNK unless CHUNK_VARIABLE sets another)."""
    try:
        return max(1, int(os.environ.get(CHUNK_VARIABLE, CHUNK)))
    except ValueError:
        return CHUNK


def checkpoint_seconds() -> float:
    """Seconds between two writes of the store during a build (CHECKPOINT_S unless set)."""
    try:
        return max(0.0, float(os.environ.get(CHECKPOINT_VARIABLE, CHECKPOINT_S)))
    except ValueError:
        return CHECKPOINT_S


def build_order(missing: np.ndarray, read: np.ndarray, first: Sequence[int] = ()) -> np.ndarray:
    """The ids of ``missing`` in the order a reader needs them: those of ``first`` (the papers in
    view) in its order, then the unread before the ``read``, the newest (highest id: the papers
    just imported) first."""
    missing = np.asarray(missing, np.int64)
    if not len(missing):
        return missing
    wanted = set(missing.tolist())
    head = list(dict.fromkeys(i for i in first if i in wanted))
    rest = missing[~np.isin(missing, np.array(head, np.int64))] if head else missing
    was_read = np.isin(rest, read)
    rest = rest[np.lexsort((-rest, was_read))]  # unread (False) first, then by id descending
    return np.concatenate([np.array(head, np.int64), rest])


class Checkpoints:
    """When a build writes the store it has so far (a build cut short resumes from there)."""

    def __init__(self) -> None:
        self.seconds = checkpoint_seconds()
        self.written = time.monotonic()  # when the store was last written (or the build began)
        self.chunks = 0
        self.writing = 0.0  # how long the last write took

    def chunk_done(self) -> bool:
        """One more chunk encoded: whether the store is due to be written now."""
        self.chunks += 1
        since = time.monotonic() - self.written
        due = self.chunks % CHECKPOINT_CHUNKS == 0 or since >= self.seconds
        # Each write is of the whole store (a million rows: seconds): never more than a
        # tenth of the build's time goes to writing.
        return due and since >= WRITE_SHARE * self.writing

    def wrote(self, started: float) -> None:
        """The store was written, the write begun at ``started`` (``time.monotonic()``)."""
        self.written = time.monotonic()
        self.writing = self.written - started


@contextmanager
def one_blas_thread() -> Iterator[None]:
    """One BLAS thread for each of the threads encoding side by side, for the block."""
    # Imported here: once loaded, BLAS products are limited around each call (blas.pinned).
    from threadpoolctl import threadpool_limits  # type: ignore[import-untyped]

    with threadpool_limits(1):
        yield


def encode_side_by_side(model: minilm.MiniLM, texts: list[str], max_tokens: int) -> np.ndarray:
    """The unit vectors of ``texts`` (float32), encoded by ``workers_wanted()`` threads side by side.

    Each thread takes every n-th text of the texts sorted by length (so each pads as little
    and works as long as the others). numpy gives the interpreter's lock back inside its
    products and element-wise loops, which are most of the time; a thread of BLAS each beat
    one process with BLAS's threads over both cores here (bench/encoder_rate.py)."""
    workers = min(workers_wanted(), max(1, len(texts) // minilm.BATCH))
    if workers <= 1:
        return model.encode(texts, max_tokens)
    order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
    shares = [order[w::workers] for w in range(workers)]
    out = np.zeros((len(texts), minilm.DIMENSIONS), np.float32)
    failed: list[BaseException] = []

    def work(share: list[int]) -> None:
        try:
            out[share] = model.encode([texts[i] for i in share], max_tokens)
        except BaseException as exc:  # raised again on the caller's thread
            failed.append(exc)

    threads = [threading.Thread(target=work, args=(share,), daemon=True) for share in shares[1:]]
    for thread in threads:
        thread.start()
    work(shares[0])
    for thread in threads:
        thread.join()
    if failed:
        raise failed[0]
    return out
