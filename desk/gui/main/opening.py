"""Files the window is asked to open (`desk-gui FILE...`, "Open with desk", another start's
hand-over): imported once the library is ready and no other import runs, then shown."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from PySide6.QtCore import QEvent, QObject, QTimer, Signal
from PySide6.QtGui import QFileOpenEvent

from desk.core.records.detail import ImportReport
from desk.gui.dialogs.importing import ImportRunner, summary_text
from desk.gui.organize.sidebar import collection_filter


class FileOpener(QObject):
    """Queues files to open and imports them on the window's importer, one batch at a time.

    `show(filter)` when an import of its own is done: the one collection those files hold (a
    collection's filter, `in:"…"`), else "all"; `status(text)` says what the import did.
    A failure or a skipped file is said by the importer's own summary, as for Ctrl+I.
    """

    show = Signal(str)
    status = Signal(str)

    def __init__(self, importer: ImportRunner, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.importer = importer
        self.waiting: list[Path] = []
        self._ready = False
        self._running = False  # the import running is this opener's
        importer.finished.connect(self._finished)
        importer.failed.connect(self._failed)

    def open(self, files: Sequence[Path]) -> None:
        """Import and show ``files`` as soon as the window can (each file once)."""
        self.waiting += [f for f in files if f not in self.waiting]
        self._soon()

    def library_ready(self) -> None:
        """The library is open: the files waiting can be imported."""
        self._ready = True
        self._soon()

    def _soon(self) -> None:
        # After the slots of the import that just ended (its report is not this opener's).
        QTimer.singleShot(0, self, self._next)

    def _next(self) -> None:
        if not self._ready or self._running or not self.waiting or self.importer.busy():
            return
        files, self.waiting = self.waiting, []
        self._running = self.importer.start(files, title="Opening", summary=False)
        if not self._running:
            self.waiting = files + self.waiting

    def _finished(self, report: ImportReport) -> None:
        if self._running:
            self._running = False
            if report.errors:
                self.importer.show_summary(report)
            else:
                self.status.emit(" ".join(summary_text(report).splitlines()))
            collections = report.collections
            if collections or not report.errors:
                self.show.emit(collection_filter(collections[0]) if len(collections) == 1 else "all")
        self._soon()  # another import ended (the user's, the samples'): ours may start now

    def _failed(self, _message: str) -> None:
        self._running = False
        self._soon()


class FileOpenEvents(QObject):
    """The files macOS hands an app (Finder's "Open with", a file dropped on the Dock icon): an
    Apple event that Qt delivers to the application as a QFileOpenEvent, not as arguments.
    Installed on the application, it passes each one's file on as ``opened([path])``."""

    opened = Signal(list)  # list[Path]

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.FileOpen and isinstance(event, QFileOpenEvent) and event.file():
            self.opened.emit([Path(event.file())])
            return True
        return super().eventFilter(watched, event)
