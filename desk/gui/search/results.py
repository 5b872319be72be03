"""The main window's search side: what a search brings back, moving in the result list, opening a paper."""

from __future__ import annotations

import html
from typing import TYPE_CHECKING

from PySide6.QtCore import QItemSelectionModel, QModelIndex, Qt

from desk.gui.search.controller import Outcome

if TYPE_CHECKING:
    from desk.gui.main.window import MainWindow

EMPTY_LIBRARY = "Your library is empty. Import a list with Ctrl+I, or drop .txt files on this window."
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


class SearchResults:
    """Shows each search's outcome and keeps the selection in the result list; the window's keys call it."""

    def __init__(self, window: MainWindow) -> None:
        self.window = window
        self._open_when_ready = False
        self._suggestion: str | None = None

    # -- search ------------------------------------------------------------------------------
    def searched(self, outcome: Outcome) -> None:
        total = self.window.model.total
        shown = f"{total} paper{'s' if total != 1 else ''}"
        self.window.hits_label.setText(f"{shown} · {outcome.took_ms:.0f} ms")
        if outcome.message:
            kept = " The list shows the last complete query." if outcome.kept_previous else ""
            self.window.query_message.setText(outcome.message + kept)
            self.window.query_message.setToolTip(outcome.message + kept)
            self.window.query_message.show()
        else:
            self.window.query_message.hide()
        self._suggestion = outcome.suggestion
        if outcome.suggestion:
            link = f'<a href="suggestion">{html.escape(outcome.suggestion)}</a>'
            lead = "Showing results for" if outcome.corrected else "Did you mean"
            self.window.suggestion_label.setText(f"{lead} {link}{'' if outcome.corrected else '?'} (Ctrl+D)")
        else:
            self.window.suggestion_label.clear()
        if self._open_when_ready:  # Enter was pressed before this search landed
            self._open_when_ready = False
            self.open_current()
        if self.window.model.rowCount() == 0 and self.window.ready:
            self.window.paper_view.show_empty(
                empty_text(outcome.query.strip(), self.window.controller.filter)
            )

    def results_reset(self) -> None:
        # New words select the best hit; a filter change or a re-run keeps the paper in view.
        keep = self.window.controller.refined and self.window.current_id is not None
        row = self.window.model.row_of(self.window.current_id) if keep else None  # type: ignore[arg-type]
        if row is None and self.window.model.rowCount():
            row = 0
        if row is None:
            self.window.note.set_paper(None, "")
            self.window.current_id = None
            self.window.related.set_paper(None)
        else:
            if self.window.paper_view.paper is None:
                self.window.paper_view.show_empty("")  # the paper follows in a moment
            self.select_row(row)
            if self.window.current_id == self.window.model.id_at(row):
                self.window.papers.timer.start()  # same paper: load it again for the new highlights

    def use_suggestion(self) -> None:
        if self._suggestion:
            self.window.search_box.setText(self._suggestion)
            self.window.controller.set_text(self._suggestion)
            self.window.controller.run_now()

    # -- moving and opening ------------------------------------------------------------------
    def select_row(self, row: int) -> None:
        index = self.window.model.index(row)
        self.window.results_view.selectionModel().setCurrentIndex(
            index, QItemSelectionModel.SelectionFlag.ClearAndSelect
        )
        self.window.results_view.scrollTo(index)

    def move(self, step: int) -> None:
        count = self.window.model.rowCount()
        if not count:
            return
        current = self.window.results_view.currentIndex()
        row = current.row() if current.isValid() else -1
        self.select_row(min(max(row + step, 0), count - 1))

    def current_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        pid = self.window.model.id_at(current.row()) if current.isValid() else None
        if pid is not None and pid != self.window.current_id:
            # Keys act on the new paper at once; loading it waits a moment so that typing and
            # held-down j/k are not slowed by papers flashing past.
            self.window.note.flush()
            self.window.current_id = pid
            self.window.papers.timer.start()

    def open_current(self) -> None:
        """Enter: read the selected paper (search first if a query is still pending)."""
        if self.window.controller.pending():
            self._open_when_ready = True
            self.window.controller.run_now()
            return
        if not self.window.results_view.currentIndex().isValid() and self.window.model.rowCount():
            self.select_row(0)
        if self.window.current_id is not None:
            self.window.abstract_view.setFocus(Qt.FocusReason.ShortcutFocusReason)

    def focus_search(self) -> None:
        self.window.search_box.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.window.search_box.selectAll()

    def back_to_search(self) -> None:
        self.window.note.flush()
        self.focus_search()
