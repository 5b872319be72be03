"""Importing lists: choose files or a folder (or drop them), a cancellable progress dialog, a summary."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import QFileDialog, QMessageBox, QProgressDialog, QWidget

from desk.core.records.detail import ImportReport
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
    """Runs one import at a time on the worker with a cancellable progress dialog."""

    started = Signal(str)  # the progress dialog's title, once it is shown
    finished = Signal(object)  # ImportReport
    failed = Signal(str)

    def __init__(self, executor: LibraryExecutor, parent: QWidget) -> None:
        super().__init__(parent)
        self.executor = executor
        self.parent_widget = parent
        self.dialog: QProgressDialog | None = None
        self._relay: ProgressRelay | None = None

    def busy(self) -> bool:
        return self.dialog is not None

    def start(self, paths: Sequence[Path], *, title: str = "Importing", summary: bool = True) -> bool:
        """Import `paths`; False when nothing was started (no paths, or an import is running)."""
        paths = list(paths)
        if not paths or self.busy():
            return False
        relay = ProgressRelay(self)
        dialog = QProgressDialog(f"{title}…", "Cancel", 0, 0, self.parent_widget)
        dialog.setObjectName("importProgress")
        dialog.setWindowTitle(title)
        dialog.setWindowModality(Qt.WindowModality.WindowModal)
        dialog.setMinimumDuration(0)
        dialog.setAutoClose(False)
        dialog.setAutoReset(False)
        dialog.canceled.connect(relay.cancel)
        dialog.canceled.connect(lambda: dialog.setLabelText("Cancelling after the current file…"))
        relay.progressed.connect(lambda done, total, name: self._progress(dialog, done, total, name))
        self.dialog = dialog
        self._relay = relay
        dialog.show()
        self.started.emit(title)

        def op(lib: Library) -> ImportReport:
            return lib.import_paths(paths, progress=relay.report, cancelled=relay.cancelled)

        def done(report: ImportReport) -> None:
            self._close()
            relay.deleteLater()
            if summary:
                self.show_summary(report)
            self.finished.emit(report)

        def failed(exc: Exception) -> None:
            self._close()
            relay.deleteLater()
            message = plain_message(exc)
            self._message(QMessageBox.Icon.Warning, "Import failed", f"Nothing was imported: {message}")
            self.failed.emit(message)

        self.executor.submit(op, done, failed)
        return True

    @staticmethod
    def _progress(dialog: QProgressDialog, done: int, total: int, name: str) -> None:
        if dialog.wasCanceled():
            return
        dialog.setMaximum(max(total, 1))
        dialog.setValue(min(done, max(total, 1)))
        if name:
            dialog.setLabelText(f"Reading {Path(name).name} ({min(done + 1, total)} of {total})")

    def cancel(self) -> None:
        """Stop after the file being read (the window is closing)."""
        if self._relay is not None:
            self._relay.cancel()

    def _close(self) -> None:
        self._relay = None
        if self.dialog is not None:
            self.dialog.hide()
            self.dialog.deleteLater()
            self.dialog = None
            self.parent_widget.activateWindow()  # keys go back to the window

    def show_summary(self, report: ImportReport) -> QMessageBox:
        icon = QMessageBox.Icon.Warning if report.errors else QMessageBox.Icon.Information
        title = "Import finished with problems" if report.errors else "Import finished"
        return self._message(icon, title, summary_text(report))

    def _message(self, icon: QMessageBox.Icon, title: str, text: str) -> QMessageBox:
        box = QMessageBox(icon, title, text, QMessageBox.StandardButton.Ok, self.parent_widget)
        box.setObjectName("importSummary")
        box.setTextFormat(Qt.TextFormat.PlainText)  # file names and errors are not markup
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.open()  # window-modal, does not block the event loop
        return box


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
