"""The result list: the hits of the search, the highlighted one, and what the paper pane says when empty."""

from __future__ import annotations

from PySide6.QtCore import QItemSelectionModel, QModelIndex, Qt, Signal
from PySide6.QtWidgets import QAbstractItemView, QListView, QWidget

from desk.gui.search.delegate import ResultDelegate
from desk.gui.search.model import ResultsModel

EMPTY_LIBRARY = (
    "Your library is empty. Import a list with Ctrl+I (a folder with Ctrl+Shift+I), drop .txt files "
    "on this window, or run `desk import FILE…` in a terminal."
)
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
    """What the paper pane says when the list is empty (`filter_name`: a built-in filter's name,
    or the query term of a sidebar entry such as `saved:"x"`)."""
    among = AMONG.get(filter_name, "" if filter_name in ("", "all") else f" in {filter_name}")
    if query:
        return f"No paper matches “{query}”{among}."
    if filter_name in ("", "all") or filter_name in EMPTY_FILTER:
        return EMPTY_FILTER.get(filter_name, EMPTY_LIBRARY)
    return f"No paper is in {filter_name} now. Ctrl+1 shows all papers."


class ResultList(QListView):
    """The ranked hits (its own `ResultsModel`), drawn by `ResultDelegate`; one highlighted row.

    `paperChanged(id)` whenever the highlighted row moves to a paper; `openRequested` on a
    double click (Enter is the window's `open` action).
    """

    paperChanged = Signal(int)
    openRequested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("resultsView")
        self.setAccessibleName("Results")
        self.results = ResultsModel(self)
        self.setModel(self.results)
        self.setItemDelegate(ResultDelegate(self))
        self.setUniformItemSizes(True)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setMinimumWidth(280)
        self.selectionModel().currentChanged.connect(self._current_changed)
        self.activated.connect(lambda _i: self.openRequested.emit())

    def current_id(self) -> int | None:
        """The id of the highlighted paper, if any."""
        index = self.currentIndex()
        return self.results.id_at(index.row()) if index.isValid() else None

    def select_row(self, row: int) -> None:
        index = self.results.index(row)
        self.selectionModel().setCurrentIndex(index, QItemSelectionModel.SelectionFlag.ClearAndSelect)
        self.scrollTo(index)

    def select_paper(self, paper_id: int) -> bool:
        """Highlight a paper's row; False (and nothing highlighted) when the list does not hold it."""
        row = self.results.row_of(paper_id)
        if row is None:
            self.clearSelection()
            return False
        self.select_row(row)
        return True

    def select_after_reset(self, keep: int | None) -> int | None:
        """After new hits: highlight `keep` if the list still holds it, else the best hit; its id."""
        row = self.results.row_of(keep) if keep is not None else None
        if row is None and self.results.rowCount():
            row = 0
        if row is None:
            return None
        self.select_row(row)
        return self.results.id_at(row)

    def move_highlight(self, step: int) -> None:
        """Move the highlight `step` rows (clamped to the list)."""
        count = self.results.rowCount()
        if not count:
            return
        current = self.currentIndex()
        row = current.row() if current.isValid() else -1
        self.select_row(min(max(row + step, 0), count - 1))

    def _current_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        pid = self.results.id_at(current.row()) if current.isValid() else None
        if pid is not None:
            self.paperChanged.emit(pid)
