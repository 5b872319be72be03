"""One worker thread for every Library call; results come back on the UI thread.

Anki's QueryOp/CollectionOp pattern: an operation is a function of the library that
never touches a widget; its `success` or `failure` callback runs later on the UI
thread.  All calls go to one long-lived thread, in the order they were submitted,
so SQLite and Whoosh see a single caller and a note saved before a star is written
before it.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Qt, Signal, Slot

from desk.core.errors import DeskError

log = logging.getLogger(__name__)

Success = Callable[[Any], None]
Failure = Callable[[Exception], None]


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
    fn: Callable[[Any], Any]
    success: Success | None
    failure: Failure | None


class _Delivery(QObject):
    """Lives on the UI thread; the worker emits, the callback runs here."""

    deliver = Signal(object, object)

    def __init__(self) -> None:
        super().__init__()
        self.deliver.connect(self._run, Qt.ConnectionType.QueuedConnection)

    @Slot(object, object)
    def _run(self, callback: Callable[[Any], None], value: object) -> None:
        try:
            callback(value)
        except Exception:  # a bug in a callback must not take the window down
            log.exception("desk: a window callback failed")


class LibraryExecutor(QObject):
    """Runs `fn(library)` on one worker thread, one job at a time, in order.

    The first job should open the library (`open_library`); until then jobs get
    `None` as their argument.  `failure` receives the exception; when it is not
    given, the executor's `failed` signal carries the message in plain words.
    """

    failed = Signal(str)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.library: Any = None
        self._jobs: queue.Queue[_Job | None] = queue.Queue()
        self._delivery = _Delivery()
        self._stopped = False
        self._thread = threading.Thread(target=self._loop, name="desk-library", daemon=True)
        self._thread.start()

    # -- submitting ------------------------------------------------------------------------
    def submit(
        self,
        fn: Callable[[Any], Any],
        success: Success | None = None,
        failure: Failure | None = None,
    ) -> None:
        """Queue `fn(library)`; callbacks run on the UI thread once it is done."""
        if self._stopped:
            return
        self._jobs.put(_Job(fn, success, failure))

    def open_library(
        self,
        directory: Path,
        progress: Callable[[int, int], None] | None = None,
        success: Success | None = None,
        failure: Failure | None = None,
    ) -> None:
        """Open the library in the worker (its index may be repaired, with progress)."""

        def op(_: object) -> object:
            from desk.core.library import Library  # imported here: Whoosh loads off the UI thread

            self.library = Library(directory, progress)
            return self.library

        self.submit(op, success, failure)

    def pending(self) -> int:
        """How many jobs wait (roughly; for tests and the busy indicator)."""
        return self._jobs.qsize()

    def shutdown(self, timeout: float = 30.0) -> bool:
        """Finish the queued jobs, close the library and stop; True when the thread ended."""
        if self._stopped:
            return not self._thread.is_alive()

        def close(lib: Any) -> None:
            if lib is not None:
                lib.close()
            self.library = None

        self.submit(close)
        self._stopped = True
        self._jobs.put(None)
        self._thread.join(timeout)
        return not self._thread.is_alive()

    # -- the worker thread -------------------------------------------------------------------
    def _loop(self) -> None:
        while True:
            job = self._jobs.get()
            if job is None:
                return
            try:
                value = job.fn(self.library)
            except Exception as exc:
                if not isinstance(exc, DeskError | OSError):
                    log.exception("desk: a library operation failed")
                if job.failure is not None:
                    self._delivery.deliver.emit(job.failure, exc)
                else:
                    self._delivery.deliver.emit(self.failed.emit, plain_message(exc))
                continue
            if job.success is not None:
                self._delivery.deliver.emit(job.success, value)


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
