"""The main window: search box, results, the paper with its note and related papers, status bar.

The widgets are built in window_layout; what the keys do is split by side: the search and
the result list (window_search), the paper in view and its note (window_papers), and the
library's opening, import and export (window_library).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QCloseEvent, QDragEnterEvent, QDropEvent, QKeyEvent
from PySide6.QtWidgets import QMessageBox

from desk import __version__
from desk.core.paths import bundled_seeds_dir
from desk.gui import theme
from desk.gui.dialogs.export import Exporter
from desk.gui.dialogs.importing import FileDropFilter, ImportRunner, choose_files, choose_folder, local_paths
from desk.gui.duplicates.review import DuplicatesReview
from desk.gui.keymap import ShortcutSheet, build_actions
from desk.gui.main.external_changes import ExternalChanges
from desk.gui.main.layout import WindowLayout
from desk.gui.main.startup import LibraryFiles
from desk.gui.reading.pane import PaperActions
from desk.gui.search.controller import SearchController
from desk.gui.search.results import SearchResults
from desk.gui.settings import WindowSettings
from desk.gui.workers import LibraryExecutor

MOVE_KEYS = {Qt.Key.Key_Up: -1, Qt.Key.Key_Down: 1, Qt.Key.Key_PageUp: -10, Qt.Key.Key_PageDown: 10}
STATUS_MS = 5000


class MainWindow(WindowLayout):
    """One library, one window.  Every library call goes through `self.executor`."""

    def __init__(self, library_dir: Path, *, seeds: Path | bool | None = True) -> None:
        super().__init__()
        self.library_dir = library_dir
        self.seeds = bundled_seeds_dir() if seeds is True else (seeds or None)
        self.ready = False
        self.open_error: str | None = None
        self._closed = False
        self.papers = PaperActions(self)  # the paper in view: loading it, star, read, note, title
        self.current_id: int | None = None
        self.search = SearchResults(self)  # what a search brings back, the selection in the list
        self.library = LibraryFiles(self)  # opening the library, import, export
        self._sheet: ShortcutSheet | None = None
        self.executor = LibraryExecutor(self)
        self.settings = WindowSettings()
        self.setWindowTitle(f"desk {__version__}")
        self.setAcceptDrops(True)
        self._build_widgets(self.executor)
        self._build_actions()
        self.controller = SearchController(self.executor, self.model, self)
        self.importer = ImportRunner(self.executor, self)
        self.exporter = Exporter(self.executor, self)
        self.duplicates = DuplicatesReview(
            self.executor, self, self.named_actions["duplicates"], before_change=self.note.flush
        )
        self.statusBar().insertPermanentWidget(0, self.duplicates.badge)
        self._connect()
        self.external = ExternalChanges(self.executor, self, self.refresh)  # other processes' writes
        self._restore()
        self.controller.filter = self.checked_filter()
        self.controller.text = self.search_box.text()
        self._restyle()
        self.focus_search()
        self.library.open()

    # -- actions ------------------------------------------------------------------------------
    def _build_actions(self) -> None:
        handlers: dict[str, Callable[[], object]] = {
            "import_files": lambda: self.import_paths(choose_files(self)),
            "import_folder": lambda: self.import_paths(choose_folder(self)),
            "export": self.export,
            "quit": self.close,
            "focus_search": self.focus_search,
            "filter_all": lambda: self.set_filter("all"),
            "filter_starred": lambda: self.set_filter("starred"),
            "filter_unread": lambda: self.set_filter("unread"),
            "filter_notes": lambda: self.set_filter("notes"),
            "use_suggestion": self.use_suggestion,
            "open": self.open_current,
            "next": lambda: self.move_selection(1),
            "previous": lambda: self.move_selection(-1),
            "star": lambda: self.toggle("starred"),
            "read": lambda: self.toggle("read"),
            "note": self.edit_note,
            "preview": self.toggle_preview,
            "rename": self.rename,
            "related": self.show_related,
            "duplicates": lambda: self.duplicates.open(),
            "back": self.back_to_search,
            "shortcuts": self.show_shortcuts,
            "about": self.about,
        }
        self.named_actions = build_actions(self, handlers, (self.search_box, self.results_view))

    def _connect(self) -> None:
        self.search_box.textEdited.connect(self.controller.set_text)
        self.search_box.installEventFilter(self)
        drop = FileDropFilter(self.import_paths, self)
        targets = (self.search_box, self.abstract_view.viewport(), self.note_editor.viewport())
        for w in (*targets, self.note.preview.viewport()):
            w.installEventFilter(drop)
        self.results_view.selectionModel().currentChanged.connect(self.search.current_changed)
        self.results_view.activated.connect(lambda _i: self.open_current())
        self.model.modelReset.connect(self.search.results_reset)
        self.controller.searched.connect(self.search.searched)
        self.controller.failed.connect(self.show_status)
        self.executor.failed.connect(self.show_status)
        self.note.saveRequested.connect(self.papers.save_note)
        self.related.paperActivated.connect(lambda pid: self.show_paper(pid, focus=True, select=True))
        self.suggestion_label.linkActivated.connect(lambda _link: self.use_suggestion())
        self.filter_group.buttonClicked.connect(
            lambda b: self.set_filter(next(n for n, x in self.filter_buttons.items() if x is b))
        )
        self.importer.finished.connect(self.library.imported)
        self.duplicates.changed.connect(self.refresh)
        self.exporter.exported.connect(
            lambda n, path: self.show_status(f"Exported {n} paper{'s' if n != 1 else ''} to {path}")
        )
        self.exporter.failed.connect(
            lambda msg: self.show_message("Export failed", f"Nothing was written: {msg}")
        )

    # -- search and the result list (see window_search) --------------------------------------
    def set_filter(self, name: str) -> None:
        self._check_filter(name)
        self.controller.set_filter(name)

    def refresh(self) -> None:
        """Show what another process (a `desk` command, another window) changed: search again."""
        self.related.invalidate()
        self.controller.run_now()

    def use_suggestion(self) -> None:
        self.search.use_suggestion()

    def move_selection(self, step: int) -> None:
        """Move the current result ``step`` rows (QWidget.move places the window: another name)."""
        self.search.move(step)

    def open_current(self) -> None:
        """Enter: read the selected paper (search first if a query is still pending)."""
        self.search.open_current()

    def focus_search(self) -> None:
        self.search.focus_search()

    def back_to_search(self) -> None:
        self.search.back_to_search()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.search_box and event.type() == QEvent.Type.KeyPress:
            key_event: QKeyEvent = event  # type: ignore[assignment]
            step = MOVE_KEYS.get(Qt.Key(key_event.key()))
            if step is not None and key_event.modifiers() in (
                Qt.KeyboardModifier.NoModifier,
                Qt.KeyboardModifier.KeypadModifier,
            ):
                self.move_selection(step)
                return True
        return super().eventFilter(watched, event)

    # -- the paper in view (see window_papers) -----------------------------------------------
    def show_paper(self, pid: int, *, focus: bool = False, select: bool = False) -> None:
        """Load a paper into the right side (the note of the previous one is saved first)."""
        self.papers.show_paper(pid, focus=focus, select=select)

    def toggle(self, field: str) -> None:
        """`s` and `r`: flip the star or the reading state of the paper in view."""
        self.papers.toggle(field)

    def edit_note(self) -> None:
        self.papers.edit_note()

    def toggle_preview(self) -> None:
        self.papers.toggle_preview()

    def show_related(self) -> None:
        self.papers.show_related()

    def rename(self) -> None:
        self.papers.rename()

    # -- import, export, dialogs (import and export: see window_library) ---------------------
    def import_paths(self, paths: list[Path]) -> None:
        self.library.import_paths(paths)

    def export(self) -> None:
        self.library.export()

    def show_shortcuts(self) -> None:
        if self._sheet is None:
            self._sheet = ShortcutSheet(self.named_actions, self)
        self._sheet.show()
        self._sheet.raise_()
        self._sheet.activateWindow()

    def about(self) -> None:
        self.show_message(
            "About desk",
            f"desk {__version__}\n\n"
            "An offline, keyboard-driven reading list for research-paper abstracts.\n\n"
            f"Library: {self.library_dir}\n\nPress ? or F1 for the keyboard shortcuts.",
            QMessageBox.Icon.Information,
        ).setObjectName("aboutBox")

    def show_status(self, text: str) -> None:
        self.statusBar().showMessage(text, STATUS_MS)

    def show_message(
        self, title: str, text: str, icon: QMessageBox.Icon = QMessageBox.Icon.Warning
    ) -> QMessageBox:
        box = QMessageBox(icon, title, text, QMessageBox.StandardButton.Ok, self)
        box.setTextFormat(Qt.TextFormat.PlainText)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.open()
        return box

    # -- drag and drop, palette, closing -----------------------------------------------------
    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if local_paths(event):
            event.acceptProposedAction()

    def dragMoveEvent(self, event: Any) -> None:
        if local_paths(event):
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        paths = local_paths(event)
        if paths:
            event.acceptProposedAction()
            self.import_paths(paths)

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange:
            self._restyle()

    def _restyle(self) -> None:
        self.query_message.setStyleSheet(f"color: {theme.colors(self.palette()).warning.name()};")
        self.results_view.viewport().update()

    def closeEvent(self, event: QCloseEvent) -> None:
        if self._closed:
            event.accept()
            return
        self._closed = True
        self.note.flush(failed_too=True)
        self._save_settings()
        self.importer.cancel()
        self.duplicates.close()
        self.executor.shutdown()
        event.accept()
