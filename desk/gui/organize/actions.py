"""The organising keys of the window: 1–9 tag toggles, undo/redo, triage.

`Organizer` gets what it needs, not the main window: the executor, the paper the keys act on,
the query the list shows, a way to redraw rows, and a way to show everything again.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QWidget

from desk.core.records import PaperSummary, TagChange, UndoOutcome
from desk.gui.workers import LibraryExecutor

if TYPE_CHECKING:  # desk.core.library loads Whoosh: only the worker thread imports it
    from desk.core.library import Library

TRIAGE_LIMIT = 1_000_000


def _said(change: TagChange) -> str:
    if change.added:
        return f"Tagged “{change.name}”"
    if change.removed:
        return f"Took the tag “{change.name}” off"
    return f"“{change.name}”: nothing changed"


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

    def _paper(self) -> int | None:
        pid = self.current_id()
        if pid is None:
            self.status.emit("Select a paper first.")
        return pid

    def _changed(self, pid: int) -> Callable[[Library, TagChange], tuple[TagChange, dict[int, PaperSummary]]]:
        def after(lib: Library, change: TagChange) -> tuple[TagChange, dict[int, PaperSummary]]:
            return change, lib.summaries([pid])

        return after

    def _tag_done(self, result: tuple[TagChange, dict[int, PaperSummary]]) -> None:
        change, summaries = result
        self.rows.emit(summaries)
        self.status.emit(_said(change))

    # -- tags --------------------------------------------------------------------------------
    def toggle(self, pid: int, name: str) -> None:
        """Give the paper the tag, or take it off when it has it."""
        after = self._changed(pid)
        self.executor.submit(lambda lib: after(lib, lib.toggle_tag([pid], name)), self._tag_done)

    def toggle_nth(self, n: int) -> None:
        """1–9: toggle the n-th tag (1-based, in the order tags were made) on the paper in view."""
        pid = self._paper()
        if pid is None:
            return
        after = self._changed(pid)

        def op(lib: Library) -> tuple[TagChange, dict[int, PaperSummary]] | None:
            tags = lib.tags()
            if n > len(tags):
                return None
            return after(lib, lib.toggle_tag([pid], tags[n - 1].name))

        def done(result: tuple[TagChange, dict[int, PaperSummary]] | None) -> None:
            if result is None:
                self.status.emit(f"There is no tag {n} yet: press t to make one.")
            else:
                self._tag_done(result)

        self.executor.submit(op, done)

    # -- undo, redo -------------------------------------------------------------------------
    def undo(self) -> None:
        """Ctrl+Z: take back the last change (the window's or a command's)."""
        self.executor.submit(lambda lib: lib.undo(), lambda out: self._undone(out, "undo"))

    def redo(self) -> None:
        """Ctrl+Shift+Z: do again what was undone last."""
        self.executor.submit(lambda lib: lib.redo(), lambda out: self._undone(out, "redo"))

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
            return [h.id for h in lib.search_ids(full, limit=TRIAGE_LIMIT).hits]

        def ready(ids: list[int]) -> None:
            if not ids:
                self.status.emit("Nothing unread to triage here.")
            else:
                self.triageReady.emit(ids)

        self.executor.submit(op, ready)
