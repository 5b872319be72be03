"""Importing lists: choose files or a folder (or drop them), the progress and a summary inline
(dialogs/import_panel.py): never a modal dialog, so what is typed meanwhile lands where it should."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject, Signal
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import QFileDialog, QWidget

from desk.core.records.detail import ImportReport
from desk.gui.dialogs.import_panel import ImportPanel
from desk.gui.workers import LibraryExecutor, ProgressRelay, plain_message

if TYPE_CHECKING:  # desk.core.library.facade loads Whoosh: only the worker thread imports it
    from desk.core.library.facade import Library

TEXT_FILTER = "Paper lists (*.txt);;All files (*)"


def choose_files(parent: QWidget) -> list[Path]:
    files, _ = QFileDialog.getOpenFileNames(parent, "Import paper lists", str(Path.home()), TEXT_FILTER)
    return [Path(f) for f in files]


def choose_folder(parent: QWidget) -> list[Path]:
    folder = QFileDialog.getExistingDirectory(parent, "Import every list in a folder", str(Path.home()))
    return [Path(folder)] if folder else []


def local_paths(event: QDragEnterEvent | QDropEvent) -> list[Path]:
    """The local files and folders a drag carries (nothing for text or web links)."""
    mime = event.mimeData()
    if not mime.hasUrls():
        return []
    return [Path(u.toLocalFile()) for u in mime.urls() if u.isLocalFile() and u.toLocalFile()]


def summary_text(report: ImportReport) -> str:
    """The outcome of an import in plain words."""
    from desk.core.importing.summary import count, import_summary

    lines = import_summary(report, review="Paper → Review duplicates (Ctrl+Shift+D)")
    if report.errors:
        lines.append("")
        skipped = report.skipped_files
        lines.append(f"Skipped {count(skipped, 'file', 'files')}:" if skipped else "Skipped in the files:")
        lines.extend(f"• {Path(e.file).name}: {e.error}" for e in report.errors)
    return "\n".join(lines)


class ImportRunner(QObject):
    """Runs one import at a time on the worker, its progress and outcome in `panel` (inline)."""

    started = Signal(str)  # the import's title, once the panel shows it
    finished = Signal(object)  # ImportReport
    failed = Signal(str)
    said = Signal(str)  # one line for the status bar

    def __init__(self, executor: LibraryExecutor, parent: QWidget) -> None:
        super().__init__(parent)
        self.executor = executor
        self.parent_widget = parent
        self.panel = ImportPanel(parent)
        self._relay: ProgressRelay | None = None
        self.panel.cancelled.connect(self.cancel)

    def busy(self) -> bool:
        return self._relay is not None

    def start(self, paths: Sequence[Path], *, title: str = "Importing", summary: bool = True) -> bool:
        """Import `paths`; False when nothing was started (no paths, or an import is running)."""
        paths = list(paths)
        if not paths or self.busy():
            return False
        relay = ProgressRelay(self)
        relay.progressed.connect(lambda done, total, name: self._progress(done, total, name))
        self._relay = relay
        self.panel.start(title)
        self.started.emit(title)

        def op(lib: Library) -> ImportReport:
            return lib.import_paths(paths, progress=relay.report, cancelled=relay.cancelled)

        def done(report: ImportReport) -> None:
            self._relay = None
            relay.deleteLater()
            if summary:
                self.show_summary(report)
            else:
                self.panel.hide()
            self.finished.emit(report)

        def failed(exc: Exception) -> None:
            self._relay = None
            relay.deleteLater()
            message = plain_message(exc)
            self.panel.finish(f"Import failed: nothing was imported. {message}", problems=True)
            self.said.emit("Import failed")
            self.failed.emit(message)

        self.executor.submit(op, done, failed)
        return True

    def _progress(self, done: int, total: int, name: str) -> None:
        text = f"Reading {Path(name).name} ({min(done + 1, total)} of {total})" if name else ""
        self.panel.progress(done, total, text)

    def cancel(self) -> None:
        """Stop after the file being read (Cancel, or the window is closing)."""
        if self._relay is not None:
            self._relay.cancel()

    def show_summary(self, report: ImportReport) -> None:
        """What the import did, in the panel (problems stay until it is closed) and the status line."""
        text = summary_text(report)
        self.panel.finish(text, problems=bool(report.errors))
        first = text.splitlines()[0] if text else "Import finished"
        self.said.emit(first + (" (some files were skipped: see above the list)" if report.errors else ""))


class FileDropFilter(QObject):
    """Lets files dropped on a text widget go to the importer instead of into the text."""

    def __init__(self, on_drop: Callable[[list[Path]], None], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.on_drop = on_drop

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        kind = event.type()
        if kind in (QEvent.Type.DragEnter, QEvent.Type.DragMove):
            if local_paths(event):  # type: ignore[arg-type]
                event.acceptProposedAction()  # type: ignore[attr-defined]
                return True
        elif kind == QEvent.Type.Drop:
            paths = local_paths(event)  # type: ignore[arg-type]
            if paths:
                event.acceptProposedAction()  # type: ignore[attr-defined]
                self.on_drop(paths)
                return True
        return False
