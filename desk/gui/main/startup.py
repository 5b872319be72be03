"""The main window's way in and out of the library: opening it, the first-run sample lists, import, export."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox

from desk.core.records import ImportReport
from desk.gui.dialogs.export import ExportDialog, ask_path
from desk.gui.search.results import EMPTY_LIBRARY
from desk.gui.workers import ProgressRelay, plain_message

if TYPE_CHECKING:
    from desk.core.library import Library
    from desk.gui.main.window import MainWindow

DUPLICATES_DELAY_MS = 300


class LibraryFiles:
    """Opens the window's library (importing the sample lists into an empty one), imports, exports."""

    def __init__(self, window: MainWindow) -> None:
        self.window = window

    # -- opening the library -----------------------------------------------------------------
    def open(self) -> None:
        relay = ProgressRelay(self.window)

        def preparing(done: int, total: int, _label: str) -> None:
            if total:
                self.window.hits_label.setText(f"Preparing the search index… {done} of {total}")

        relay.progressed.connect(preparing)
        self.window.executor.open_library(
            self.window.library_dir,
            progress=lambda done, total: relay.report(done, total, ""),
            success=self._library_opened,
            failure=self._library_failed,
        )

    def _library_opened(self, lib: Library) -> None:
        repaired = getattr(lib, "repaired", None)
        self.window.executor.submit(lambda lib: lib.count(), lambda count: self._counted(count, repaired))

    def _counted(self, count: int, repaired: str | None) -> None:
        if count == 0 and self.window.seeds is not None:
            self.window.hits_label.setText("Importing the sample lists…")
            self.window.paper_view.show_empty("Importing the sample lists that come with desk…")
            self.window.importer.start([self.window.seeds], title="Importing the sample lists", summary=False)
            return
        if repaired and count:  # a new library has no index yet: nothing worth saying
            self.window.show_status(f"The search index was rebuilt: {repaired}")
        self._start(count)

    def _start(self, count: int) -> None:
        self.window.ready = True
        self.window.controller.enabled = True
        if count == 0:
            self.window.paper_view.show_empty(EMPTY_LIBRARY)
        self.window.controller.run_now()
        self.window.duplicates.refresh(delay_ms=DUPLICATES_DELAY_MS)  # after the first search, not before it

    def _library_failed(self, exc: Exception) -> None:
        message = plain_message(exc)
        self.window.open_error = message
        self.window.hits_label.setText("The library could not be opened")
        self.window.paper_view.show_empty(
            f"The library in {self.window.library_dir} could not be opened: {message}"
        )
        self.window.show_message("desk cannot open the library", message, QMessageBox.Icon.Critical)

    def imported(self, report: ImportReport) -> None:
        if not self.window.ready:  # the first-run import of the sample lists
            self.window.show_status(f"Imported {report.added} sample abstracts; your library is ready.")
            self._start(report.added)
            return
        self.window.related.invalidate()
        self.window.controller.run_now()
        self.window.duplicates.refresh()

    # -- import and export ---------------------------------------------------------------------
    def import_paths(self, paths: list[Path]) -> None:
        if not paths:
            return
        if not self.window.ready:
            self.window.show_status("The library is still opening; try again in a moment.")
        elif not self.window.importer.start(paths):
            self.window.show_status("An import is already running.")

    def export(self) -> None:
        if not self.window.ready:
            return
        query = self.window.controller.shown_query  # what the list shows, even if the box holds more
        dialog = ExportDialog(query, self.window.model.total, self.window)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)

        def chosen(result: int) -> None:
            if result != ExportDialog.DialogCode.Accepted:
                return
            path = ask_path(self.window, dialog.choice())
            if path is not None:
                self.window.exporter.export(dialog.choice(), query, path)

        dialog.finished.connect(chosen)
        dialog.open()
