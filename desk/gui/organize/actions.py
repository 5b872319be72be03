"""The organising keys of the window: undo/redo and triage (the keys acting on papers — tags,
star, delete over a selection — are organize/keys.py's).

`Organizer` gets what it needs, not the main window: the executor, the paper the keys act on,
the query the list shows, a way to redraw rows, and a way to show everything again.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QWidget

from desk.core.records.detail import UndoOutcome
from desk.gui.workers import LibraryExecutor

if TYPE_CHECKING:  # desk.core.library.facade loads Whoosh: only the worker thread imports it
    from desk.core.library.facade import Library

TRIAGE_LIMIT = 1_000_000


class Organizer(QObject):
    """Runs the organising actions; `rows(dict)` redraws changed rows, `status(str)` says what happened."""

    rows = Signal(object)  # dict[int, PaperSummary]
    status = Signal(str)
    everything = Signal()  # show the list again (after an undo or a redo)
    triageReady = Signal(object)  # list[int]: the queue

    def __init__(
        self,
        executor: LibraryExecutor,
        parent: QWidget,
        current_id: Callable[[], int | None],
        shown_query: Callable[[], str],
    ) -> None:
        super().__init__(parent)
        self.executor = executor
        self.parent_widget = parent
        self.current_id = current_id
        self.shown_query = shown_query

    # -- undo, redo -------------------------------------------------------------------------
    def undo(self) -> None:
        """Ctrl+Z: take back the last change (the window's or a command's)."""
        self.executor.submit(lambda lib: lib.history.undo(), lambda out: self._undone(out, "undo"))

    def redo(self) -> None:
        """Ctrl+Shift+Z: do again what was undone last."""
        self.executor.submit(lambda lib: lib.history.redo(), lambda out: self._undone(out, "redo"))

    def _undone(self, outcome: UndoOutcome | None, what: str) -> None:
        if outcome is None:
            self.status.emit(f"Nothing to {what}.")
            return
        self.status.emit(outcome.description)
        self.everything.emit()

    # -- triage ------------------------------------------------------------------------------
    def triage(self) -> None:
        """Ctrl+T: the unread papers of the list in view (all unread ones without a query)."""
        query = self.shown_query().strip()
        full = f"({query}) is:unread" if query else "is:unread"

        def op(lib: Library) -> list[int]:
            # As the list searched it (typing: the word at the end unfinished, not corrected),
            # so that the queue holds the unread papers of the list on screen, no others.
            return [h.id for h in lib.search_ids(full, limit=TRIAGE_LIMIT, typing=True).hits]

        def ready(ids: list[int]) -> None:
            if not ids:
                self.status.emit("Nothing unread to triage here.")
            else:
                self.triageReady.emit(ids)

        self.executor.submit(op, ready)
