"""The result list as searches land: the hits label, the paper kept in view, and the keys pressed
while a search was on its way.

A key that acts on the list (↓, Enter, s…) typed before the search for what was typed has
landed waits for it (``after_search``): "diffusion ↓ ↓ s" typed quickly stars the third hit for
"diffusion", never a hit of the half-typed query whose results happened to be on screen. A new
list highlights its best hit; a filter change or a re-run keeps the paper in view; the first
list after a start highlights the paper highlighted when the window closed (``last_paper``).
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QLabel, QWidget

from desk.gui.reading.pane import ReadingPane
from desk.gui.search.bar import SearchBar
from desk.gui.search.controller import Outcome, SearchController
from desk.gui.search.results import ResultList, empty_text
from desk.gui.workers import LibraryExecutor

TITLE_QUERY_CHARS = 40  # a longer query is cut in the title, as a window switcher would cut it


def counted_title(base: str, query: str, total: int) -> str:
    """The window's title once a search landed: the query and its count before ``base`` (the
    library's name and desk's), so that a window switcher (and a script on a real display) tells
    what the window lists: "policy · 12 papers — reading-group — desk"."""
    words = " ".join(query.split())
    if len(words) > TITLE_QUERY_CHARS:
        words = words[: TITLE_QUERY_CHARS - 1].rstrip() + "…"
    count = f"{total:,} paper{'s' if total != 1 else ''}"
    return f"{words} · {count} — {base}" if words else f"{count} — {base}"


class ResultFlow(QObject):
    """What follows a search: ``landed`` once its list is shown and the waiting keys have run;
    ``counted`` with the query and its count, as the window's title says them."""

    landed = Signal()
    counted = Signal(str, int)  # what was typed (without the filter), the papers listed

    def __init__(
        self,
        controller: SearchController,
        results: ResultList,
        bar: SearchBar,
        reading: ReadingPane,
        executor: LibraryExecutor,
        ready: Callable[[], bool],
        parent: QWidget,
    ) -> None:
        super().__init__(parent)
        self.controller = controller
        self.results = results
        self.model = results.results
        self.bar = bar
        self.reading = reading
        self.executor = executor
        self.ready = ready  # whether the library is open (an empty list then says why)
        self.hits_label = QLabel("Opening the library…", parent)  # the status bar's count and time
        self.hits_label.setObjectName("hitsLabel")
        self.last_paper: int | None = None  # the paper to highlight again once the list is there
        self._deferred: list[Callable[[], object]] = []  # keys pressed while a search was on its way
        self._suggestion: str | None = None
        self._edits_rehearsed = False  # see searched

    def searched(self, outcome: Outcome) -> None:
        """A search landed: its count and time, its hint and suggestion, the keys that waited."""
        total = self.model.total
        self.hits_label.setText(f"{total} paper{'s' if total != 1 else ''} · {outcome.took_ms:.0f} ms")
        self.bar.show_outcome(outcome)
        self.counted.emit(outcome.query, total)
        self._suggestion = outcome.suggestion
        if self.model.rowCount() == 0 and self.ready():
            self.reading.show_message(empty_text(outcome.query.strip(), self.controller.filter))
        self.run_deferred()
        self.landed.emit()
        if not self._edits_rehearsed:
            # The first results are on screen: the worker readies the edit path meanwhile (nothing
            # written), so that the first note or star is as quick as the ones after it.
            self._edits_rehearsed = True
            self.executor.submit(lambda lib: lib.rehearse_edits())

    def after_search(self, action: Callable[[], object]) -> None:
        """Run a key's action now, or once the search for what was typed has landed."""
        if self.controller.pending():
            self._deferred.append(action)
            self.controller.hurry()
        else:
            action()

    def run_deferred(self) -> None:
        """Run the keys' actions that waited, while no other search is on its way."""
        while self._deferred and not self.controller.pending():
            self._deferred.pop(0)()

    def results_reset(self) -> None:
        """A new list: highlight its best hit, the paper in view, or the one of the last run."""
        keep = self.reading.current_id if self.controller.refined else None
        if self.last_paper is not None and self.model.rowCount():
            keep, self.last_paper = self.last_paper, None
        before = self.reading.current_id
        pid = self.results.select_after_reset(keep)
        if pid is None:
            self.reading.clear()
        elif pid == before:
            self.reading.reload()  # the same paper: load it again for the new highlights

    def use_suggestion(self) -> None:
        """Search for the spelling the last search suggested ("Did you mean …")."""
        if self._suggestion:
            self.bar.box.setText(self._suggestion)
            self.controller.set_text(self._suggestion)
            self.controller.run_now()

    def open_current(self) -> None:
        """Enter: read the highlighted paper (once the search for what was typed has landed)."""
        if self.controller.pending():
            self.after_search(self.open_current)
            return
        if not self.results.currentIndex().isValid() and self.model.rowCount():
            self.results.select_row(0)
        if self.reading.current_id is not None:
            self.reading.focus_abstract()
