"""Worker processes for the CPU-heavy parts of an import or a rebuild (Python runs one core per process).

Started with "spawn" (a fresh interpreter, not a fork), so a caller with threads — the
window — can use them too: a forked child could inherit a lock another thread held.
The pool starts on first use and lives until close(), so one import of many files pays
the start-up (≈0.5 s per worker) once.
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import importlib
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

from desk.core.runtime import tuning as _tuning
from desk.core.runtime.tuning import Tuning

T = TypeVar("T")
R = TypeVar("R")

MAX_WORKERS = 4
PARENT_CHECK_SECONDS = 0.5
_PR_SET_PDEATHSIG = 1  # <linux/prctl.h>
_CANNOT_START = (BrokenProcessPool, RuntimeError, OSError)


def cores() -> int:
    """How many cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


class WorkerPool:
    """A lazily started pool of spawned worker processes; falls back to this process when it cannot start."""

    def __init__(self, workers: int | None = None, tuning: Tuning | None = None) -> None:
        self.workers = max(1, min(workers or cores(), MAX_WORKERS))
        #: When work given to this pool goes to its workers, and in what pieces.
        self.tuning = tuning if tuning is not None else _tuning.DEFAULT
        self._pool: ProcessPoolExecutor | None = None
        self._broken = False
        self._warming = False  # start() asked the workers to start up

    @property
    def parallel(self) -> bool:
        """True when work given to the pool can run beside this process."""
        return self.workers > 1 and not self._broken

    @property
    def started(self) -> bool:
        """True once worker processes were started (and not closed)."""
        return self._pool is not None

    def _executor(self) -> ProcessPoolExecutor:
        if self._pool is None:
            self._pool = ProcessPoolExecutor(
                self.workers,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=start_worker,
                initargs=(os.getpid(),),
            )
        return self._pool

    def submit(self, fn: Callable[..., R], *args: Any) -> Future[R]:
        """Run fn(*args) in a worker (or here, when workers cannot run); a Future either way."""
        if self.parallel:
            try:
                return self._executor().submit(fn, *args)
            except _CANNOT_START:
                self._give_up()
        done: Future[R] = Future()
        try:
            done.set_result(fn(*args))
        except BaseException as exc:  # handed to the caller through the Future, as a worker would
            done.set_exception(exc)
        return done

    def start(self) -> None:
        """Start the worker processes now, so they load their code while this process reads
        (once: a second call does nothing)."""
        if self.parallel and not self._warming:
            self._warming = True
            for _ in range(self.workers):
                self.submit(os.getpid)

    def preload(self, modules: Sequence[str]) -> None:
        """Have the workers load ``modules`` once they are done with the work given so far
        (best effort: one job per worker), so a later job does not wait for them."""
        if self.parallel and modules:
            for _ in range(self.workers):
                self.submit(load_modules, tuple(modules))

    def map(self, fn: Callable[[T], R], items: Sequence[T], chunksize: int = 1) -> list[R]:
        """[fn(x) for x in items], spread over the workers; in order."""
        if not self.parallel or len(items) < 2:
            return [fn(x) for x in items]
        try:
            return list(self._executor().map(fn, items, chunksize=chunksize))
        except _CANNOT_START:
            # Workers could not start (a __main__ read from stdin, no /dev/shm for the
            # queues' semaphores): do it here instead.
            self._give_up()
            return [fn(x) for x in items]

    def _give_up(self) -> None:
        self._broken = True
        self.close()

    def close(self) -> None:
        """Stop the worker processes, if any were started."""
        if self._pool is not None:
            self._pool.shutdown(cancel_futures=True)
            self._pool = None
        self._warming = False

    def __enter__(self) -> WorkerPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def load_modules(names: Sequence[str]) -> None:
    """Import the modules ``names`` (in a worker: see WorkerPool.preload)."""
    for name in names:
        importlib.import_module(name)


def start_worker(parent: int) -> None:
    """In a worker, first thing: end with ``parent`` (exit_with_parent), and end at once when
    the pool shuts it down (exit_without_teardown)."""
    exit_with_parent(parent)
    atexit.register(exit_without_teardown)


def exit_without_teardown() -> None:
    """In a worker at its normal exit: end the process now, skipping the interpreter's teardown.

    Tearing down a worker that analysed and indexed thousands of papers frees every object it
    made, one by one (≈ 0.25 s each at 10k papers), and the pool's shutdown waits for it: an
    import's last half second, one core idle. Nothing is left to write by then: a worker hands
    its results back through the pool's queue before it takes the next job (a SimpleQueue: no
    feeder thread to flush), and the files it writes are closed by the job that wrote them.
    Registered as the worker starts, this runs after the exit handlers of modules its jobs
    imported and before multiprocessing's own, which would only tidy up. The exit status is 0
    even after a failed job: the pool reads a job's failure from its result, not the status.
    """
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            if stream is not None:
                stream.flush()
    os._exit(0)


def exit_with_parent(parent: int) -> None:
    """In a worker: end this process when ``parent`` is gone (killed, crashed).

    An idle worker waits on a queue its siblings keep open, so it would never notice. On
    Linux the kernel is asked to kill it with its parent; elsewhere a thread watches.
    """
    if not _kernel_kills_with_parent():
        threading.Thread(target=_watch, args=(parent,), name="desk-parent-watch", daemon=True).start()
    if os.getppid() != parent:  # gone before we asked
        os._exit(1)


def _kernel_kills_with_parent() -> bool:
    """prctl(PR_SET_PDEATHSIG, SIGKILL): no thread ticking in the worker (measured 5 % faster)."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _watch(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(PARENT_CHECK_SECONDS)
    os._exit(1)


def split(items: Sequence[T], parts: int) -> list[Sequence[T]]:
    """items cut into at most ``parts`` contiguous, nearly equal, non-empty slices."""
    parts = max(1, min(parts, len(items)))
    size, extra = divmod(len(items), parts)
    out: list[Sequence[T]] = []
    start = 0
    for k in range(parts):
        end = start + size + (1 if k < extra else 0)
        out.append(items[start:end])
        start = end
    return [s for s in out if len(s)]
