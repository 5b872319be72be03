"""One worker thread for every Library call; results come back on the UI thread.

Anki's QueryOp/CollectionOp pattern: an operation is a function of the library that
never touches a widget; its `success` or `failure` callback runs later on the UI
thread.  All calls go to one long-lived thread, in the order they were submitted,
so SQLite and Whoosh see a single caller and a note saved before a star is written
before it.

One exception: notes.  A note must reach the database within a second of typing even
while a long job (an import, a rebuild, the duplicate scan) holds the worker, so note
saves go to a second thread (`submit_urgent`) that does not wait behind earlier jobs;
jobs submitted after a note save still wait for it.  The Library is safe to call from
two threads: each call has its own SQLite transaction and the index locks itself.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from PySide6.QtCore import QObject, Qt, QThread, QTimer, Signal, Slot

from desk.core.runtime.errors import DeskError

if TYPE_CHECKING:  # imported by the worker when it opens the library: Whoosh loads off the UI thread
    from desk.core.library.facade import Library

log = logging.getLogger(__name__)

T = TypeVar("T")
Failure = Callable[[Exception], object]

#: Quiet this long after the last job (submitted or ended), the worker folds the small index segments
#: that edits left (Library.fold_edits): a note is searchable at once, and the folding waits for a pause.
IDLE_FOLD_MS = 1500


class LibraryNotOpen(DeskError):
    """A job came while no library is open (opening it failed)."""

    def __init__(self) -> None:
        super().__init__("the library is still opening; try again in a moment")


def plain_message(exc: BaseException) -> str:
    """An error in plain words, never a traceback."""
    if isinstance(exc, DeskError):
        return str(exc)
    if isinstance(exc, OSError):
        where = f" ({exc.filename})" if exc.filename else ""
        return f"{exc.strerror or exc}{where}"
    return f"something went wrong: {exc}" if str(exc) else f"something went wrong ({type(exc).__name__})"


@dataclass
class _Job:
    fn: Callable[[Any], Any]  # of the Library, or of Library | None when not needs_library
    success: Callable[[Any], object] | None
    failure: Failure | None
    seq: int = 0  # submission order across both threads
    needs_library: bool = True
    quiet: bool = False  # its end does not count as activity (the idle fold's own job)


class _Delivery(QObject):
    """Lives on the UI thread; the worker emits, the callback runs here."""

    deliver = Signal(object, object)

    def __init__(self) -> None:
        super().__init__()
        self.deliver.connect(self._run, Qt.ConnectionType.QueuedConnection)

    @Slot(object, object)
    def _run(self, callback: Callable[[Any], object], value: object) -> None:
        try:
            callback(value)
        except Exception:  # a bug in a callback must not take the window down
            log.exception("desk: a window callback failed")


class LibraryExecutor(QObject):
    """Runs `fn(library)` on one worker thread, one job at a time, in order.

    The first job should open the library (`open_library`); a job that finds no library
    open (opening failed) fails with `LibraryNotOpen`.  `failure` receives the exception; when it is not
    given, the executor's `failed` signal carries the message in plain words.
    Small writes that must not wait (notes) go through `submit_urgent`.
    """

    failed = Signal(str)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.library: Library | None = None
        self._jobs: queue.Queue[_Job | None] = queue.Queue()
        self._urgent: queue.Queue[_Job | None] = queue.Queue()
        self._delivery = _Delivery()
        self._stopped = False
        self._seq = 0
        self._open_seq = 0  # the latest open_library job: urgent jobs after it wait for the library
        self._opened = threading.Event()
        self._opened.set()
        self._urgent_pending: set[int] = set()  # seqs of urgent jobs not yet done
        self._urgent_done = threading.Condition()
        self._thread = threading.Thread(target=self._loop, name="desk-library", daemon=True)
        self._urgent_thread = threading.Thread(target=self._urgent_loop, name="desk-notes", daemon=True)
        # No parent: the executor may be destroyed on its worker thread (the thread holds it last),
        # and a timer is stopped and deleted on its own thread only; shutdown() deletes it here.
        self._in_flight = 0  # jobs submitted and not ended (counted on the UI thread)
        self._idle: QTimer | None = QTimer()
        self._idle.setSingleShot(True)
        self._idle.setInterval(IDLE_FOLD_MS)
        self._idle.timeout.connect(self._fold_when_idle)
        self._thread.start()
        self._urgent_thread.start()

    # -- submitting ------------------------------------------------------------------------
    def submit(
        self,
        fn: Callable[[Library], T],
        success: Callable[[T], object] | None = None,
        failure: Failure | None = None,
    ) -> None:
        """Queue `fn(library)`; callbacks run on the UI thread once it is done."""
        self._submit(_Job(fn, success, failure))

    def _submit(self, job: _Job) -> None:
        if self._stopped:
            return
        self._restart_idle()  # the fold waits for a pause after the last job
        self._in_flight += 1
        self._seq += 1
        job.seq = self._seq
        self._jobs.put(job)

    def submit_urgent(
        self,
        fn: Callable[[Library], T],
        success: Callable[[T], object] | None = None,
        failure: Failure | None = None,
    ) -> None:
        """Run a short write as soon as the library is open, without waiting for earlier jobs.

        Urgent jobs run in order among themselves; every job submitted later waits for them.
        """
        if self._stopped:
            return
        self._restart_idle()
        self._in_flight += 1
        self._seq += 1
        with self._urgent_done:
            self._urgent_pending.add(self._seq)
        self._urgent.put(_Job(fn, success, failure, self._seq))

    def open_library(
        self,
        directory: Path,
        progress: Callable[[int, int], None] | None = None,
        success: Callable[[Library], object] | None = None,
        failure: Failure | None = None,
    ) -> None:
        """Open the library in the worker (its index may be repaired, with progress)."""

        def op(_: Library | None) -> Library:
            from desk.core.library.facade import Library  # imported here: Whoosh loads off the UI thread

            try:
                self.library = Library(directory, progress, defer_folds=True)
            finally:
                self._opened.set()
            return self.library

        self._opened.clear()
        self._open_seq = self._seq + 1
        self._submit(_Job(op, success, failure, needs_library=False))

    def _restart_idle(self) -> None:
        idle = self._idle
        if idle is not None and QThread.currentThread() == idle.thread():  # started from its own thread only
            idle.start()

    def _fold_when_idle(self) -> None:
        """Queue the fold of what edits left unfolded, once no job waits or runs (else the next
        job's end starts the pause again)."""
        if self._stopped or self._in_flight:
            return
        self._seq += 1  # not through _submit: the fold must not restart the timer that started it
        self._jobs.put(_Job(_fold_edits, None, None, self._seq, needs_library=False, quiet=True))

    def pending(self) -> int:
        """How many jobs wait (roughly; for tests and the busy indicator)."""
        return self._jobs.qsize() + self._urgent.qsize()

    def shutdown(self, timeout: float = 30.0) -> bool:
        """Finish the queued jobs, close the library and stop; True when the thread ended."""
        if self._stopped:
            return not self._thread.is_alive()

        def close(lib: Library | None) -> None:
            if lib is not None:
                lib.close()
            self.library = None

        if self._idle is not None:  # stopped and deleted (Python owns it) on the thread that made it
            self._idle.stop()
            self._idle = None
        # after every note save submitted before it
        self._submit(_Job(close, None, None, needs_library=False))
        self._stopped = True
        self._jobs.put(None)
        self._urgent.put(None)
        self._thread.join(timeout)
        self._urgent_thread.join(1.0)
        return not self._thread.is_alive()

    # -- the worker thread -------------------------------------------------------------------
    def _loop(self) -> None:
        while True:
            job = self._jobs.get()
            if job is None:
                return
            self._after_urgent(job.seq)  # a note saved before this job was asked for is written first
            self._run(job)

    def _after_urgent(self, seq: int) -> None:
        with self._urgent_done:
            self._urgent_done.wait_for(lambda: all(s > seq for s in self._urgent_pending))

    def _urgent_loop(self) -> None:
        while True:
            job = self._urgent.get()
            if job is None:
                return
            try:
                if job.seq > self._open_seq:
                    self._opened.wait()
                self._run(job)
            finally:
                with self._urgent_done:
                    self._urgent_pending.discard(job.seq)
                    self._urgent_done.notify_all()

    def _run(self, job: _Job) -> None:
        try:
            self._run_job(job)
        finally:
            if not job.quiet:  # the pause before the idle fold counts from a job's end
                self._delivery.deliver.emit(self._job_ended, None)

    def _job_ended(self, _: object) -> None:
        self._in_flight -= 1
        self._restart_idle()

    def _run_job(self, job: _Job) -> None:
        try:
            if self.library is None and job.needs_library:
                raise LibraryNotOpen
            value = job.fn(self.library)
        except Exception as exc:
            if not isinstance(exc, DeskError | OSError):
                log.exception("desk: a library operation failed")
            if job.failure is not None:
                self._delivery.deliver.emit(job.failure, exc)
            else:
                self._delivery.deliver.emit(self.failed.emit, plain_message(exc))
            return
        if job.success is not None:
            self._delivery.deliver.emit(job.success, value)


def _fold_edits(library: Library | None) -> int:
    return library.fold_edits() if library is not None else 0


class ProgressRelay(QObject):
    """Carries progress reports and a cancel flag between the worker and a dialog."""

    progressed = Signal(int, int, str)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._cancel = threading.Event()

    def report(self, done: int, total: int, label: str = "") -> None:
        """Called on the worker thread."""
        self.progressed.emit(done, total, label)

    def cancel(self) -> None:
        """Called on the UI thread."""
        self._cancel.set()

    def cancelled(self) -> bool:
        """Called on the worker thread."""
        return self._cancel.is_set()
