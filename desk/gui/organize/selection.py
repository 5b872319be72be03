"""Which papers the keys act on: the selection of the result list, or the paper in view.

The list selects several rows (Shift+↑/↓, Shift/Ctrl+click, Ctrl+A while it has the keys).
While the keys are in the list, `s`, `r`, `e`, the digits, `t`, Delete, Ctrl+C and the export
act on every selected row; anywhere else (the abstract, the related list, triage) on the paper
in view. Ctrl+A selects every hit of the search, also those the lazy list has not loaded yet:
the ids are then resolved on the worker (`resolve`).

Shift+↑/↓ wait for a search on its way as the other keys do (`later`), so "diffusion ↓
Shift+↓" selects hits of "diffusion", not of the half-typed query shown a moment before.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QItemSelection, QItemSelectionModel, QObject, Qt, QTimer, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QAbstractItemView

from desk.gui.search.model import Roles
from desk.gui.search.results import ResultList

if TYPE_CHECKING:  # desk.core.library.facade loads Whoosh: only the worker thread imports it
    from desk.core.library.facade import Library

Select = QItemSelectionModel.SelectionFlag
ALL_LIMIT = 1_000_000


@dataclass(frozen=True)
class Target:
    """The papers an action is for: `ids` as the window knows them, plus every other hit of
    `query` when the whole list was selected (Ctrl+A) and not all of it is loaded."""

    ids: tuple[int, ...]
    query: str | None = None

    def resolve(self, lib: Library) -> list[int]:
        """The ids, the list's order first (on the worker thread)."""
        if self.query is None:
            return list(self.ids)
        hits = lib.search_ids(self.query, limit=ALL_LIMIT, typing=True).hits
        return list(dict.fromkeys([*self.ids, *(h.id for h in hits)]))

    @property
    def count_hint(self) -> int:
        return len(self.ids)


class Selection(QObject):
    """The result list's multi-selection, and which papers an action is for (`target()`).

    `changed(text)` says how many papers are selected ("" for one or none), for the status bar.
    """

    changed = Signal(str)

    def __init__(
        self,
        view: ResultList,
        in_view: Callable[[], int | None],
        keys_in_list: Callable[[], bool],
        shown_query: Callable[[], str],
        total: Callable[[], int],
        later: Callable[[Callable[[], object]], None],
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.view = view
        self.in_view = in_view
        self.keys_in_list = keys_in_list
        self.shown_query = shown_query
        self.total = total
        self.later = later
        self.all_selected = False  # Ctrl+A: every hit of the search, loaded or not
        self._anchor: int | None = None  # where a Shift+↑/↓ range starts
        self._selecting_all = False
        view.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        view.installEventFilter(self)
        self._kept: list[int] = []  # the selection while the list is refilled
        self._kept_anchor: int | None = None
        self._restoring: tuple[list[int], int | None] | None = None
        self._query = ""  # the query of the hits the list held
        model = view.model()
        model.modelAboutToBeReset.connect(self._keep)
        model.modelReset.connect(self._reset)
        view.selectionModel().selectionChanged.connect(self._selection_changed)

    # -- what the keys act on ----------------------------------------------------------------
    def selected_ids(self) -> list[int]:
        """The selected rows' paper ids, in the list's order."""
        model = self.view.model()
        rows = sorted(i.row() for i in self.view.selectionModel().selectedIndexes())
        ids = (model.data(model.index(r, 0), Roles.Id) for r in rows)
        return [i for i in ids if isinstance(i, int)]

    def target(self, *, from_list: bool | None = None) -> Target:
        """The papers an action is for: the list's selection when the keys are there, else the
        paper in view (an empty target when there is none)."""
        self._restore()
        in_list = self.keys_in_list() if from_list is None else from_list
        ids = self.selected_ids() if in_list else []
        if in_list and self.all_selected and len(ids) < self.total():
            return Target(tuple(ids), self.shown_query())
        if not ids:
            pid = self.in_view()
            ids = [pid] if pid is not None else []
        return Target(tuple(ids))

    def count_of(self, target: Target) -> int:
        """How many papers `target` holds (all the hits when they are not all loaded)."""
        return max(len(target.ids), self.total()) if target.query is not None else len(target.ids)

    def count(self) -> int:
        """How many papers are selected (all hits after Ctrl+A)."""
        n = len(self.view.selectionModel().selectedIndexes())
        return max(n, self.total()) if self.all_selected else n

    # -- selecting ---------------------------------------------------------------------------
    def extend(self, step: int) -> None:
        """Shift+↓ / Shift+↑: grow or shrink the range from where it started by `step` rows."""
        self._restore()
        model = self.view.model()
        count = model.rowCount()
        if not count:
            return
        current = self.view.currentIndex()
        row = current.row() if current.isValid() else 0
        anchor = self._anchor if self._anchor is not None and self._anchor < count else row
        new = min(max(row + step, 0), count - 1)
        selection = QItemSelection(model.index(min(anchor, new), 0), model.index(max(anchor, new), 0))
        self.view.selectionModel().select(selection, Select.ClearAndSelect)
        self.view.selectionModel().setCurrentIndex(model.index(new, 0), Select.NoUpdate)
        self.view.scrollTo(model.index(new, 0))
        self._anchor = anchor

    def select_all(self) -> None:
        """Ctrl+A in the list: every hit of the search."""
        self._selecting_all = True
        try:
            self.view.selectAll()
        finally:
            self._selecting_all = False
        self.all_selected = True
        self._say()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is not self.view or event.type() not in (
            QEvent.Type.KeyPress,
            QEvent.Type.ShortcutOverride,
        ):
            return False
        key_event: QKeyEvent = event  # type: ignore[assignment]
        shift = key_event.modifiers() == Qt.KeyboardModifier.ShiftModifier
        step = {Qt.Key.Key_Down: 1, Qt.Key.Key_Up: -1}.get(Qt.Key(key_event.key())) if shift else None
        if step is None:
            return False
        if event.type() == QEvent.Type.ShortcutOverride:
            event.accept()  # the list's, not a window shortcut's
            return True
        self.later(lambda: self.extend(step))
        return True

    def _keep(self) -> None:
        self._kept = self.selected_ids() if len(self.view.selectionModel().selectedIndexes()) > 1 else []
        model = self.view.model()
        self._kept_anchor = (
            model.data(model.index(self._anchor, 0), Roles.Id) if self._anchor is not None else None
        )

    def _reset(self) -> None:
        """The list was refilled: a search for the same query (after an undo, say) keeps the
        selection — once the window has highlighted the row in view again; new words drop it."""
        self._anchor = None
        self._restoring = None
        self.all_selected = False
        same = self.shown_query() == self._query
        self._query = self.shown_query()
        kept, anchor = self._kept, self._kept_anchor
        self._kept, self._kept_anchor = [], None
        if same and kept:
            self._restoring = (kept, anchor)
            QTimer.singleShot(0, self, self._restore)

    def _restore(self) -> None:
        """Select again what was selected before the refill (a key acting first calls it too)."""
        if self._restoring is None:
            return
        ids, anchor = self._restoring
        self._restoring = None
        model = self.view.model()
        current = (
            model.data(self.view.currentIndex(), Roles.Id) if self.view.currentIndex().isValid() else None
        )
        if current not in ids:
            return  # the highlight moved meanwhile: the user is elsewhere
        rows = [r for r in (self.view.results.row_of(i) for i in ids) if r is not None]
        selection = QItemSelection()
        for r in rows:
            selection.select(model.index(r, 0), model.index(r, 0))
        self.view.selectionModel().select(selection, Select.ClearAndSelect)
        self._anchor = self.view.results.row_of(anchor) if anchor is not None else None

    def _selection_changed(self, *_args: object) -> None:
        if not self._selecting_all:
            self.all_selected = False
            if len(self.view.selectionModel().selectedIndexes()) <= 1:
                self._anchor = None  # a plain move or click: the next range starts here (extend sets it)
        self._say()

    def _say(self) -> None:
        n = self.count()
        self.changed.emit(f"{n} selected of" if n > 1 else "")  # "4 selected of 1097 papers · 3 ms"
