"""The main window's paper side: loading the paper in view, star and read, its note, title, related."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QInputDialog, QLineEdit

from desk.core.errors import PaperNotFound
from desk.core.records import PaperDetail, PaperSummary
from desk.gui.reading.paper_view import abstract_html
from desk.gui.workers import plain_message

if TYPE_CHECKING:
    from desk.core.library import Library
    from desk.gui.main.window import MainWindow

PAPER_DELAY_MS = 40


class PaperActions:
    """What the keys do to the paper in view (`window.current_id`); every change goes through the executor."""

    def __init__(self, window: MainWindow) -> None:
        self.window = window
        self._note_after_load = False
        # Loads the selected paper a moment after the selection moves (see SearchResults.current_changed).
        self.timer = QTimer(window)
        self.timer.setSingleShot(True)
        self.timer.setInterval(PAPER_DELAY_MS)
        self.timer.timeout.connect(
            lambda: self.show_paper(window.current_id) if window.current_id is not None else None
        )

    # -- loading -----------------------------------------------------------------------------
    def show_paper(self, pid: int, *, focus: bool = False, select: bool = False) -> None:
        """Load a paper into the right side (the note of the previous one is saved first)."""
        self.window.note.flush()
        self.window.current_id = pid
        if select:
            row = self.window.model.row_of(pid)
            if row is not None:
                self.window.search.select_row(row)
            else:
                self.window.results_view.clearSelection()
        terms = self.window.controller.terms

        def op(lib: Library) -> tuple[PaperDetail, str]:
            paper = lib.paper(pid)
            return paper, abstract_html(paper, terms)

        def done(loaded: tuple[PaperDetail, str]) -> None:
            paper, body = loaded
            if pid != self.window.current_id:
                return
            self.window.paper_view.show_paper(paper, body)
            self.window.note.set_paper(pid, paper.note)
            self.window.related.set_paper(pid)
            if self._note_after_load:
                self._note_after_load = False
                self.window.note.focus_editor()
            elif focus:
                self.window.abstract_view.setFocus(Qt.FocusReason.ShortcutFocusReason)

        def failed(exc: Exception) -> None:
            if pid == self.window.current_id:
                gone = isinstance(exc, PaperNotFound)
                self.window.paper_view.show_empty(
                    "This paper is no longer in the library." if gone else plain_message(exc)
                )
                self.window.note.set_paper(None, "")

        self.window.executor.submit(op, done, failed)

    # -- changing papers ---------------------------------------------------------------------
    def need_paper(self) -> int | None:
        if self.window.current_id is None:
            self.window.show_status("Select a paper first.")
        return self.window.current_id

    def _apply(self, summaries: dict[int, PaperSummary]) -> None:
        self.window.model.set_summaries(summaries)
        for summary in summaries.values():
            self.window.paper_view.update_state(summary)

    def toggle(self, field: str) -> None:
        """`s` and `r`: flip the star or the reading state of the paper in view."""
        pid = self.need_paper()
        if pid is None:
            return

        def op(lib: Library) -> tuple[bool, dict[int, PaperSummary]]:
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
            self.window.show_status(words[0] if value else words[1])

        self.window.executor.submit(op, done)

    def save_note(self, pid: int, text: str) -> None:
        def op(lib: Library) -> dict[int, PaperSummary]:
            lib.set_note(pid, text)
            return lib.summaries([pid])

        def done(summaries: dict[int, PaperSummary]) -> None:
            self.window.note.saved(pid, text)
            self._apply(summaries)

        # Urgent: a note is written within a second even while an import or a scan runs.
        self.window.executor.submit_urgent(
            op, done, lambda exc: self.window.note.save_failed(pid, plain_message(exc))
        )

    def edit_note(self) -> None:
        if self.need_paper() is None:
            return
        self.window.tabs.setCurrentWidget(self.window.note)
        if self.window.note.paper_id == self.window.current_id:
            self.window.note.focus_editor()
        else:
            self._note_after_load = True  # the paper is still loading: go there once it is in

    def toggle_preview(self) -> None:
        self.window.tabs.setCurrentWidget(self.window.note)
        self.window.note.set_preview(not self.window.note.is_preview())

    def show_related(self) -> None:
        if self.need_paper() is None:
            return
        self.window.tabs.setCurrentWidget(self.window.related)
        self.window.related.focus_list()

    def rename(self) -> None:
        pid = self.need_paper()
        paper = self.window.paper_view.paper
        if pid is None or paper is None or paper.id != pid:
            return
        text, ok = QInputDialog.getText(
            self.window,
            "Rename paper",
            "Title (leave empty to use the title derived from the abstract):",
            QLineEdit.EchoMode.Normal,
            paper.user_title or paper.title,
        )
        if not ok:
            return

        def op(lib: Library) -> dict[int, PaperSummary]:
            lib.set_title(pid, text.strip() or None)
            return lib.summaries([pid])

        def done(summaries: dict[int, PaperSummary]) -> None:
            self._apply(summaries)
            self.show_paper(pid)
            self.window.show_status("Title saved")

        self.window.executor.submit(op, done)
