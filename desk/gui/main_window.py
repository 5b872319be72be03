"""The main window: search box, results, the paper with its note and related papers, status bar."""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any

from PySide6.QtCore import QEvent, QItemSelectionModel, QModelIndex, QObject, Qt, QTimer
from PySide6.QtGui import QCloseEvent, QDragEnterEvent, QDropEvent, QKeyEvent
from PySide6.QtWidgets import QInputDialog, QLineEdit, QMessageBox

from desk import __version__
from desk.core.errors import PaperNotFound
from desk.core.paths import bundled_seeds_dir
from desk.core.records import ImportReport, PaperDetail, PaperSummary
from desk.gui import theme
from desk.gui.duplicates_view import DuplicatesReview
from desk.gui.export_dialog import ExportDialog, Exporter, ask_path
from desk.gui.external_changes import ExternalChanges
from desk.gui.import_dialog import FileDropFilter, ImportRunner, choose_files, choose_folder, local_paths
from desk.gui.paper_view import abstract_html
from desk.gui.search_controller import Outcome, SearchController
from desk.gui.settings import WindowSettings
from desk.gui.shortcuts import ShortcutSheet, build_actions
from desk.gui.window_layout import WindowLayout
from desk.gui.workers import LibraryExecutor, ProgressRelay, plain_message

MOVE_KEYS = {Qt.Key.Key_Up: -1, Qt.Key.Key_Down: 1, Qt.Key.Key_PageUp: -10, Qt.Key.Key_PageDown: 10}
EMPTY_LIBRARY = "Your library is empty. Import a list with Ctrl+I, or drop .txt files on this window."
STATUS_MS = 5000
PAPER_DELAY_MS = 40
DUPLICATES_DELAY_MS = 300


EMPTY_FILTER = {
    "starred": "No starred papers yet: press S on a paper to star it.",
    "unread": "Every paper is read: press R on a paper to mark it unread.",
    "notes": "No paper has a note yet: press N to write one.",
}
AMONG = {
    "starred": " among the starred papers",
    "unread": " among the unread papers",
    "notes": " among the papers with notes",
}


def empty_text(query: str, filter_name: str) -> str:
    """What the paper pane says when the list is empty."""
    if query:
        return f"No paper matches “{query}”{AMONG.get(filter_name, '')}."
    return EMPTY_FILTER.get(filter_name, EMPTY_LIBRARY)


class MainWindow(WindowLayout):
    """One library, one window.  Every library call goes through `self.executor`."""

    def __init__(self, library_dir: Path, *, seeds: Path | bool | None = True) -> None:
        super().__init__()
        self.library_dir = library_dir
        self.seeds = bundled_seeds_dir() if seeds is True else (seeds or None)
        self.ready = False
        self.open_error: str | None = None
        self._closed = False
        self._note_after_load = False
        self._paper_timer = QTimer(self)
        self._paper_timer.setSingleShot(True)
        self._paper_timer.setInterval(PAPER_DELAY_MS)
        self._paper_timer.timeout.connect(
            lambda: self.show_paper(self.current_id) if self.current_id is not None else None
        )
        self.current_id: int | None = None
        self._open_when_ready = False
        self._suggestion: str | None = None
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
        self._open_library()

    # -- actions ------------------------------------------------------------------------------
    def _build_actions(self) -> None:
        handlers = {
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
            "next": lambda: self.move(1),
            "previous": lambda: self.move(-1),
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
        self.results_view.selectionModel().currentChanged.connect(self._current_changed)
        self.results_view.activated.connect(lambda _i: self.open_current())
        self.model.modelReset.connect(self._results_reset)
        self.controller.searched.connect(self._searched)
        self.controller.failed.connect(self.show_status)
        self.executor.failed.connect(self.show_status)
        self.note.saveRequested.connect(self._save_note)
        self.related.paperActivated.connect(lambda pid: self.show_paper(pid, focus=True, select=True))
        self.suggestion_label.linkActivated.connect(lambda _link: self.use_suggestion())
        self.filter_group.buttonClicked.connect(
            lambda b: self.set_filter(next(n for n, x in self.filter_buttons.items() if x is b))
        )
        self.importer.finished.connect(self._imported)
        self.duplicates.changed.connect(lambda: (self.related.invalidate(), self.controller.run_now()))
        self.exporter.exported.connect(
            lambda n, path: self.show_status(f"Exported {n} paper{'s' if n != 1 else ''} to {path}")
        )
        self.exporter.failed.connect(
            lambda msg: self._message("Export failed", f"Nothing was written: {msg}")
        )

    # -- opening the library -----------------------------------------------------------------
    def _open_library(self) -> None:
        relay = ProgressRelay(self)
        relay.progressed.connect(
            lambda done, total, _n: (
                total and self.hits_label.setText(f"Preparing the search index… {done} of {total}")
            )
        )
        self.executor.open_library(
            self.library_dir,
            progress=lambda done, total: relay.report(done, total, ""),
            success=self._library_opened,
            failure=self._library_failed,
        )

    def _library_opened(self, lib: Any) -> None:
        repaired = getattr(lib, "repaired", None)
        self.executor.submit(lambda lib: lib.count(), lambda count: self._counted(count, repaired))

    def _counted(self, count: int, repaired: str | None) -> None:
        if count == 0 and self.seeds is not None:
            self.hits_label.setText("Importing the sample lists…")
            self.paper_view.show_empty("Importing the sample lists that come with desk…")
            self.importer.start([self.seeds], title="Importing the sample lists", summary=False)
            return
        if repaired and count:  # a new library has no index yet: nothing worth saying
            self.show_status(f"The search index was rebuilt: {repaired}")
        self._start(count)

    def _start(self, count: int) -> None:
        self.ready = True
        self.controller.enabled = True
        if count == 0:
            self.paper_view.show_empty(EMPTY_LIBRARY)
        self.controller.run_now()
        self.duplicates.refresh(delay_ms=DUPLICATES_DELAY_MS)  # after the first search, not before it

    def _library_failed(self, exc: Exception) -> None:
        message = plain_message(exc)
        self.open_error = message
        self.hits_label.setText("The library could not be opened")
        self.paper_view.show_empty(f"The library in {self.library_dir} could not be opened: {message}")
        self._message("desk cannot open the library", message, QMessageBox.Icon.Critical)

    def _imported(self, report: ImportReport) -> None:
        if not self.ready:  # the first-run import of the sample lists
            self.show_status(f"Imported {report.added} sample abstracts; your library is ready.")
            self._start(report.added)
            return
        self.related.invalidate()
        self.controller.run_now()
        self.duplicates.refresh()

    # -- search ------------------------------------------------------------------------------
    def _searched(self, outcome: Outcome) -> None:
        total = self.model.total
        shown = f"{total} paper{'s' if total != 1 else ''}"
        self.hits_label.setText(f"{shown} · {outcome.took_ms:.0f} ms")
        if outcome.message:
            kept = " The list shows the last complete query." if outcome.kept_previous else ""
            self.query_message.setText(outcome.message + kept)
            self.query_message.setToolTip(outcome.message + kept)
            self.query_message.show()
        else:
            self.query_message.hide()
        self._suggestion = outcome.suggestion
        if outcome.suggestion:
            link = f'<a href="suggestion">{html.escape(outcome.suggestion)}</a>'
            lead = "Showing results for" if outcome.corrected else "Did you mean"
            self.suggestion_label.setText(f"{lead} {link}{'' if outcome.corrected else '?'} (Ctrl+D)")
        else:
            self.suggestion_label.clear()
        if self._open_when_ready:  # Enter was pressed before this search landed
            self._open_when_ready = False
            self.open_current()
        if self.model.rowCount() == 0 and self.ready:
            self.paper_view.show_empty(empty_text(outcome.query.strip(), self.controller.filter))

    def _results_reset(self) -> None:
        # New words select the best hit; a filter change or a re-run keeps the paper in view.
        keep = self.controller.refined and self.current_id is not None
        row = self.model.row_of(self.current_id) if keep else None  # type: ignore[arg-type]
        if row is None and self.model.rowCount():
            row = 0
        if row is None:
            self.note.set_paper(None, "")
            self.current_id = None
            self.related.set_paper(None)
        else:
            if self.paper_view.paper is None:
                self.paper_view.show_empty("")  # the paper follows in a moment
            self._select_row(row)
            if self.current_id == self.model.id_at(row):
                self._paper_timer.start()  # same paper: load it again for the new highlights

    def set_filter(self, name: str) -> None:
        self._check_filter(name)
        self.controller.set_filter(name)

    def refresh(self) -> None:
        """Show what another process (a `desk` command, another window) changed: search again."""
        self.related.invalidate()
        self.controller.run_now()

    def use_suggestion(self) -> None:
        if self._suggestion:
            self.search_box.setText(self._suggestion)
            self.controller.set_text(self._suggestion)
            self.controller.run_now()

    # -- moving and opening ------------------------------------------------------------------
    def _select_row(self, row: int) -> None:
        index = self.model.index(row)
        self.results_view.selectionModel().setCurrentIndex(
            index, QItemSelectionModel.SelectionFlag.ClearAndSelect
        )
        self.results_view.scrollTo(index)

    def move(self, step: int) -> None:
        count = self.model.rowCount()
        if not count:
            return
        current = self.results_view.currentIndex()
        row = current.row() if current.isValid() else -1
        self._select_row(min(max(row + step, 0), count - 1))

    def _current_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        pid = self.model.id_at(current.row()) if current.isValid() else None
        if pid is not None and pid != self.current_id:
            # Keys act on the new paper at once; loading it waits a moment so that typing and
            # held-down j/k are not slowed by papers flashing past.
            self.note.flush()
            self.current_id = pid
            self._paper_timer.start()

    def open_current(self) -> None:
        """Enter: read the selected paper (search first if a query is still pending)."""
        if self.controller.pending():
            self._open_when_ready = True
            self.controller.run_now()
            return
        if not self.results_view.currentIndex().isValid() and self.model.rowCount():
            self._select_row(0)
        if self.current_id is not None:
            self.abstract_view.setFocus(Qt.FocusReason.ShortcutFocusReason)

    def show_paper(self, pid: int, *, focus: bool = False, select: bool = False) -> None:
        """Load a paper into the right side (the note of the previous one is saved first)."""
        self.note.flush()
        self.current_id = pid
        if select:
            row = self.model.row_of(pid)
            if row is not None:
                self._select_row(row)
            else:
                self.results_view.clearSelection()
        terms = self.controller.terms

        def op(lib: Any) -> tuple[PaperDetail, str]:
            paper = lib.paper(pid)
            return paper, abstract_html(paper, terms)

        def done(loaded: tuple[PaperDetail, str]) -> None:
            paper, body = loaded
            if pid != self.current_id:
                return
            self.paper_view.show_paper(paper, body)
            self.note.set_paper(pid, paper.note)
            self.related.set_paper(pid)
            if self._note_after_load:
                self._note_after_load = False
                self.note.focus_editor()
            elif focus:
                self.abstract_view.setFocus(Qt.FocusReason.ShortcutFocusReason)

        def failed(exc: Exception) -> None:
            if pid == self.current_id:
                gone = isinstance(exc, PaperNotFound)
                self.paper_view.show_empty(
                    "This paper is no longer in the library." if gone else plain_message(exc)
                )
                self.note.set_paper(None, "")

        self.executor.submit(op, done, failed)

    def focus_search(self) -> None:
        self.search_box.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.search_box.selectAll()

    def back_to_search(self) -> None:
        self.note.flush()
        self.focus_search()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.search_box and event.type() == QEvent.Type.KeyPress:
            key_event: QKeyEvent = event  # type: ignore[assignment]
            step = MOVE_KEYS.get(Qt.Key(key_event.key()))
            if step is not None and key_event.modifiers() in (
                Qt.KeyboardModifier.NoModifier,
                Qt.KeyboardModifier.KeypadModifier,
            ):
                self.move(step)
                return True
        return super().eventFilter(watched, event)

    # -- changing papers ---------------------------------------------------------------------
    def _need_paper(self) -> int | None:
        if self.current_id is None:
            self.show_status("Select a paper first.")
        return self.current_id

    def _apply(self, summaries: dict[int, PaperSummary]) -> None:
        self.model.set_summaries(summaries)
        for summary in summaries.values():
            self.paper_view.update_state(summary)

    def toggle(self, field: str) -> None:
        """`s` and `r`: flip the star or the reading state of the paper in view."""
        pid = self._need_paper()
        if pid is None:
            return

        def op(lib: Any) -> tuple[bool, dict[int, PaperSummary]]:
            now = lib.summaries([pid])
            if pid not in now:
                raise PaperNotFound(pid)
            value = not getattr(now[pid], field)
            (lib.set_starred if field == "starred" else lib.set_read)([pid], value)
            return value, lib.summaries([pid])

        def done(result: tuple[bool, dict[int, PaperSummary]]) -> None:
            value, summaries = result
            self._apply(summaries)
            words = {"starred": ("Starred", "Unstarred"), "read": ("Marked read", "Marked unread")}[field]
            self.show_status(words[0] if value else words[1])

        self.executor.submit(op, done)

    def _save_note(self, pid: int, text: str) -> None:
        def op(lib: Any) -> dict[int, PaperSummary]:
            lib.set_note(pid, text)
            return lib.summaries([pid])

        def done(summaries: dict[int, PaperSummary]) -> None:
            self.note.saved(pid, text)
            self._apply(summaries)

        # Urgent: a note is written within a second even while an import or a scan runs.
        self.executor.submit_urgent(op, done, lambda exc: self.note.save_failed(pid, plain_message(exc)))

    def edit_note(self) -> None:
        if self._need_paper() is None:
            return
        self.tabs.setCurrentWidget(self.note)
        if self.note.paper_id == self.current_id:
            self.note.focus_editor()
        else:
            self._note_after_load = True  # the paper is still loading: go there once it is in

    def toggle_preview(self) -> None:
        self.tabs.setCurrentWidget(self.note)
        self.note.set_preview(not self.note.is_preview())

    def show_related(self) -> None:
        if self._need_paper() is None:
            return
        self.tabs.setCurrentWidget(self.related)
        self.related.focus_list()

    def rename(self) -> None:
        pid = self._need_paper()
        paper = self.paper_view.paper
        if pid is None or paper is None or paper.id != pid:
            return
        text, ok = QInputDialog.getText(
            self,
            "Rename paper",
            "Title (leave empty to use the title derived from the abstract):",
            QLineEdit.EchoMode.Normal,
            paper.user_title or paper.title,
        )
        if not ok:
            return

        def op(lib: Any) -> dict[int, PaperSummary]:
            lib.set_title(pid, text.strip() or None)
            return lib.summaries([pid])

        def done(summaries: dict[int, PaperSummary]) -> None:
            self._apply(summaries)
            self.show_paper(pid)
            self.show_status("Title saved")

        self.executor.submit(op, done)

    # -- import, export, dialogs -------------------------------------------------------------
    def import_paths(self, paths: list[Path]) -> None:
        if not paths:
            return
        if not self.ready:
            self.show_status("The library is still opening; try again in a moment.")
        elif not self.importer.start(paths):
            self.show_status("An import is already running.")

    def export(self) -> None:
        if not self.ready:
            return
        query = self.controller.shown_query  # what the list shows, even if the box holds more
        dialog = ExportDialog(query, self.model.total, self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)

        def chosen(result: int) -> None:
            if result != ExportDialog.DialogCode.Accepted:
                return
            path = ask_path(self, dialog.choice())
            if path is not None:
                self.exporter.export(dialog.choice(), query, path)

        dialog.finished.connect(chosen)
        dialog.open()

    def show_shortcuts(self) -> None:
        if self._sheet is None:
            self._sheet = ShortcutSheet(self.named_actions, self)
        self._sheet.show()
        self._sheet.raise_()
        self._sheet.activateWindow()

    def about(self) -> None:
        self._message(
            "About desk",
            f"desk {__version__}\n\n"
            "An offline, keyboard-driven reading list for research-paper abstracts.\n\n"
            f"Library: {self.library_dir}\n\nPress ? or F1 for the keyboard shortcuts.",
            QMessageBox.Icon.Information,
        ).setObjectName("aboutBox")

    def show_status(self, text: str) -> None:
        self.statusBar().showMessage(text, STATUS_MS)

    def _message(
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
