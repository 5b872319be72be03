"""The window's keys that act on papers, wired in one place: which papers, and what to do.

`PaperKeys` builds the result list's multi-selection (`Selection`), the actions over it
(`PaperActions`), the tag picker and the delete question, and hands the window its handlers
by action name (keymap.py). The papers a key acts on: in triage the paper on screen; with the
keys in the result list every selected row; elsewhere (the abstract, the related list) the
paper in view. The reading pane keeps showing the row the cursor is on — so Shift+↓ reads each
abstract as the range grows — and the status bar says how many papers are selected.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QLabel, QWidget

from desk.gui.organize.bulk import PaperActions
from desk.gui.organize.deleting import Deleter
from desk.gui.organize.selection import Selection, Target
from desk.gui.organize.tag_picker import TagPicker
from desk.gui.search.results import ResultList
from desk.gui.workers import LibraryExecutor

Later = Callable[[Callable[[], object]], None]


class PaperKeys(QObject):
    """The handlers of star, read, done, tag, the digits, delete, copy and select-all.

    `status(str)` for the status bar, `changed(dict)` rows to redraw, `gone(ids)` after papers
    went to the trash (the window searches again).
    """

    status = Signal(str)
    changed = Signal(object)  # dict[int, PaperSummary]
    gone = Signal(object)  # list[int]

    def __init__(
        self,
        executor: LibraryExecutor,
        window: QWidget,
        results: ResultList,
        keys_in_list: Callable[[], bool],
        in_view: Callable[[], int | None],
        triage_paper: Callable[[], int | None],
        triage_page: QWidget,
        shown_query: Callable[[], str],
        total: Callable[[], int],
        later: Later,
    ) -> None:
        super().__init__(window)
        self.results = results
        self.keys_in_list = keys_in_list
        self.in_view = in_view
        self.triage_paper = triage_paper
        self.triage_page = triage_page
        self.later = later
        self.selection = Selection(results, in_view, keys_in_list, shown_query, total, later, self)
        self.actions = PaperActions(executor, self)
        self.deleter = Deleter(executor, window)
        self.picker = TagPicker(window)
        self.count_label = QLabel()
        self.count_label.setObjectName("selectionCount")
        self.selection.changed.connect(self.count_label.setText)
        self.actions.rows.connect(self.changed)
        self.actions.status.connect(self.status)
        self.actions.doneWith.connect(self._moved_past)
        self.deleter.status.connect(self.status)
        self.deleter.deleted.connect(self.gone)
        self._picking: Callable[[], Target] | None = None
        self._move_when_done = False
        self.picker.chosen.connect(self._tag_chosen)

    def target(self, *, from_list: bool | None = None) -> Target:
        """The papers a key pressed now acts on."""
        pid = self.triage_paper()
        if pid is not None:
            return Target((pid,))
        return self.selection.target(from_list=from_list)

    def handlers(self) -> dict[str, Callable[[], object]]:
        """By action name (keymap.py), for `build_actions`."""
        act, later = self.actions, self.later
        return {
            "star": lambda: later(lambda: act.toggle(self.target(), "starred")),
            "read": lambda: later(lambda: act.toggle(self.target(), "read")),
            "done": lambda: later(self.mark_done),
            "tag": self.open_picker,
            "delete": lambda: later(lambda: self.deleter.delete(self.target(from_list=True))),
            "copy": lambda: later(lambda: act.copy(self.target(from_list=True))),
            "copy_titles": lambda: later(lambda: act.copy(self.target(from_list=True), titles_only=True)),
            "select_all": lambda: later(self.selection.select_all),
        }

    def toggle_nth(self, n: int) -> None:
        """Digit n: toggle the n-th tag on the papers the keys act on."""
        self.later(lambda: self.actions.toggle_nth(self.target(), n))

    # -- the tag picker ----------------------------------------------------------------------
    def open_picker(self) -> None:
        """`t`: the picker opens at once (keys typed next land in it); the tags load meanwhile."""
        triage = self.triage_paper()
        in_list = self.keys_in_list()
        if triage is not None:
            fixed = Target((triage,))
            self._picking = lambda: fixed
        else:
            self._picking = lambda: self.selection.target(from_list=in_list)
        anchor = self.triage_page if triage is not None else self.results
        target = self._picking()
        count = self.selection.count() if in_list and self.selection.all_selected else len(target.ids)
        self.picker.open_for(max(count, 1), anchor)
        # What the picker shows (the tags and their ✓) waits for a search on its way, as the key does.
        self.later(
            lambda: self.actions.load_tags(self._picking() if self._picking else target, self.picker.load)
        )

    def _tag_chosen(self, name: str) -> None:
        picking = self._picking
        self._picking = None
        if picking is not None:
            self.later(lambda: self.actions.toggle_tag(picking(), name))

    # -- `e` -------------------------------------------------------------------------------
    def mark_done(self) -> None:
        """`e`: mark the papers done and move on at once, from the list or the reading pane.

        The highlight moves before the write lands, so that a key typed straight after (`e s`)
        acts on the next paper, never on the one just finished. Every hit selected (Ctrl+A) is
        known only once the write resolves it: the move waits for it then (`doneWith`)."""
        target = self.target()
        self.actions.mark_done(target)
        if target.query is None:
            self._move_past(list(target.ids))
        else:
            self._move_when_done = True

    def _moved_past(self, ids: list[int]) -> None:
        if self._move_when_done:  # Ctrl+A: the move waited for the ids
            self._move_when_done = False
            self._move_past(ids)

    def _move_past(self, ids: list[int]) -> None:
        """Papers marked done: the highlight moves to the row after the last of them (the
        reading pane follows it; the keys stay where they were)."""
        if self.triage_paper() is not None:
            return
        model = self.results.results
        rows = [r for r in (model.row_of(i) for i in ids) if r is not None]
        if not rows:
            return
        after = min(max(rows) + 1, model.rowCount() - 1)
        if self.results.currentIndex().row() != after:
            self.results.select_row(after)
