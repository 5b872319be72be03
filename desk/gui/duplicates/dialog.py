"""The Duplicates review: near-duplicate papers side by side, the differing words marked, decided by key.

`DuplicatesReview` (in review) is what the main window holds: the status-bar badge
with the count of groups, the count in the menu text, and the `DuplicatesDialog` here.  Every
library call goes through the window's executor; the dialog acts only on the pair it shows.
The widgets are built in layout, the keys wired in keys, and the keys that change the library
are in decisions (they run through `run_change` here).
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QAbstractSlider, QWidget

from desk.gui.duplicates.data import Comparison, GroupView, Snapshot, fetch, load_view
from desk.gui.duplicates.decisions import Change, Decision, ReviewDecisions
from desk.gui.duplicates.keys import wire_review_keys
from desk.gui.duplicates.layout import EMPTY, DuplicatesLayout
from desk.gui.workers import LibraryExecutor, plain_message

__all__ = ["EMPTY", "DuplicatesDialog"]


class DuplicatesDialog(DuplicatesLayout):
    """Walks through the near-duplicate groups; each key acts on the pair in view."""

    changed = Signal()  # papers were merged or brought back: lists elsewhere are stale
    countChanged = Signal(int)

    def __init__(
        self,
        executor: LibraryExecutor,
        parent: QWidget | None = None,
        before_change: Callable[[], None] | None = None,
    ) -> None:
        super().__init__(parent)
        self.executor = executor
        self.before_change = before_change
        self.groups: tuple[Any, ...] = ()
        self.view: GroupView | None = None
        self.snapshot = Snapshot((), None)
        self.other = 0  # which other paper of the group is on the right
        self.undo_stack: list[Decision] = []
        self.loaded = False
        self._busy = False
        self._token = 0
        self._loading: int | None = None  # the token of the load on its way, if any
        self._error: str | None = None  # why the groups could not be found, if they could not
        self._going_to: tuple[int, ...] | None = None  # the group a step is loading
        self.decisions = ReviewDecisions(self, self)
        self._button_keys: dict[str, str] = {}
        self.setObjectName("duplicatesView")
        self.setWindowTitle("Review duplicates")
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self._build()
        self.selector.activated.connect(self._choose_other)
        self.actions_by_name = self._build_actions()
        self._restyle()
        self._render()

    # -- keys ---------------------------------------------------------------------------------
    def _build_actions(self) -> dict[str, QAction]:
        handlers: dict[str, Callable[[], object]] = {
            "merge_left": lambda: self.merge(keep_right=False),
            "merge_right": lambda: self.merge(keep_right=True),
            "distinct": self.mark_distinct,
            "next_group": lambda: self.step(1),
            "previous_group": lambda: self.step(-1),
            "next_other": lambda: self.step_other(1),
            "previous_other": lambda: self.step_other(-1),
            "scroll_down": lambda: self._scroll(QAbstractSlider.SliderAction.SliderPageStepAdd),
            "scroll_up": lambda: self._scroll(QAbstractSlider.SliderAction.SliderPageStepSub),
            "undo_merge": self.undo,
            "merge_exact": self.ask_merge_exact,
            "merge_truncations": self.ask_merge_truncations,
            "close_review": self.close,
        }
        return wire_review_keys(self, handlers, self.buttons, self._button_keys, self._label_button)

    def _label_button(self, name: str, text: str) -> None:
        """A button's text with its first key after it, as the menus show them."""
        self.buttons[name].setText(f"{text}   {self._button_keys.get(name, '')}".rstrip())

    # -- state for the keys -------------------------------------------------------------------
    def busy(self) -> bool:
        """A change is being written; keys wait until the list is fresh again."""
        return self._busy

    def idle(self) -> bool:
        """Loaded, nothing being written and nothing on its way (for tests and the screenshot script)."""
        return self.loaded and not self._busy and self._loading is None

    def _next_token(self) -> int:
        self._token += 1
        self._loading = self._token
        return self._token

    def _current(self, token: int) -> bool:
        """Whether a result answers the latest request (older ones are dropped)."""
        if token != self._token:
            return False
        self._loading = None
        return True

    def comparison(self) -> Comparison | None:
        if self.view is None or not self.view.comparisons:
            return None
        return self.view.comparisons[min(self.other, len(self.view.comparisons) - 1)]

    def shown_pair(self) -> tuple[int, int] | None:
        """(left id, right id) of the pair in view."""
        comparison = self.comparison()
        return None if comparison is None else (comparison.left.paper.id, comparison.right.paper.id)

    def say(self, message: str) -> None:
        """Show what happened (or why nothing did) in the status line."""
        self.status.setText(message)

    # -- changing -----------------------------------------------------------------------------
    def run_query(self, query: Callable[[Any], Any], done: Callable[[Any], None]) -> None:
        """Run `query(lib)` on the worker (it changes nothing), then `done(result)` here."""
        self.executor.submit(query, done, lambda exc: self.say(plain_message(exc)))

    def run_change(self, change: Change, done: Callable[[Any], str], *, writes_papers: bool = True) -> None:
        """Run `change(lib) -> (ids to show next, result)` on the worker, then find the groups again.

        `done(result)` runs on the UI thread before the list is shown and says what happened.
        """
        if self.before_change is not None and writes_papers:
            self.before_change()  # a note being typed is saved before its paper can be merged away
        self._busy = True
        position = self.view.index if self.view is not None else 0
        token = self._next_token()

        def op(lib: Any) -> tuple[Any, Snapshot]:
            prefer, result = change(lib)
            return result, fetch(lib, prefer, position)

        def succeeded(value: tuple[Any, Snapshot]) -> None:
            result, snapshot = value
            message = done(result)
            self._busy = False
            if self._current(token):
                self._apply(snapshot, message)
            else:  # a newer load is on its way and will show the list
                self.say(message)
            if writes_papers:
                self.changed.emit()

        def failed(exc: Exception) -> None:
            self._busy = False
            self._current(token)
            self.say(plain_message(exc))
            self.reload()
            if writes_papers:
                self.changed.emit()

        self.executor.submit(op, succeeded, failed)

    # -- loading ------------------------------------------------------------------------------
    def reload(self, prefer: Collection[int] = ()) -> None:
        """Find the groups again; show the one holding a preferred paper, else stay in place."""
        if self._busy:
            return  # the change in flight finds the groups again after it, and knows what to show
        if not prefer and self._going_to is not None:
            prefer = self._going_to  # a key moved on: a reload on its heels must not take it back
        elif not prefer and self.view is not None:
            prefer = self.view.candidate.ids
        position = self.view.index if self.view is not None else 0
        token = self._next_token()

        def applied(snapshot: Snapshot) -> None:
            if self._current(token):
                self._apply(snapshot)

        def failed(exc: Exception) -> None:
            if self._current(token):
                self._failed(exc)

        self.executor.submit(lambda lib: fetch(lib, prefer, position), applied, failed)

    def _apply(self, snapshot: Snapshot, message: str | None = None) -> None:
        previous = self.view
        self.snapshot = snapshot
        self.groups = snapshot.groups
        self.view = snapshot.view
        if previous is None or self.view is None or previous.candidate != self.view.candidate:
            self.other = 0
        self.loaded = True
        self._busy = False
        self._error = None
        if message is not None:
            self.status.setText(message)
        self._render()
        self.countChanged.emit(len(self.groups))

    def _failed(self, exc: Exception) -> None:
        self._busy = False
        self.loaded = True
        self._error = plain_message(exc)
        self.status.setText(self._error)
        self._render()

    def _render(self) -> None:
        count = len(self.groups)
        comparison = self.comparison()
        view = self.view
        if view is None or comparison is None:
            self.pages.setCurrentIndex(1)
            if not self.loaded:
                self.empty.setText("Looking for near-duplicates…")
            elif self._error is not None and not self.groups:
                self.empty.setText(f"The near-duplicates could not be found: {self._error}")
            else:
                self.empty.setText(EMPTY)
            self.empty_detail.setVisible(self.loaded and self._error is None)
            for w in (self.group_label, self.similarity_label, self.exact_label, self.legend):
                w.hide()
            self.selector.hide()
            self.selector_label.hide()
        else:
            self.pages.setCurrentIndex(0)
            candidate = view.candidate
            size = len(candidate.ids)
            self.group_label.setText(f"Group {view.index + 1} of {count}")
            self.similarity_label.setText(comparison.relation)
            self.exact_label.setVisible(candidate.exact_after_cleanup)
            for w in (self.group_label, self.similarity_label, self.legend):
                w.show()
            several = size > 2
            self.selector.setVisible(several)
            self.selector_label.setVisible(several)
            if several:
                self.selector.blockSignals(True)
                self.selector.clear()
                for i, c in enumerate(view.comparisons, start=2):
                    self.selector.addItem(f"paper {i} of {size}: {c.right.paper.title[:60]}")
                self.selector.setCurrentIndex(self.other)
                self.selector.blockSignals(False)
            left, right = comparison.left, comparison.right
            self.left.show_side(
                left, f"Paper 1 of {size}  ·  M keeps this one  ·  {_words(left.own_words)} only here"
            )
            self.right.show_side(
                right,
                f"Paper {self.other + 2} of {size}  ·  Shift+M keeps this one  ·  "
                f"{_words(right.own_words)} only here",
            )
        has_pair = comparison is not None
        enabled = {
            "merge_left": has_pair,
            "merge_right": has_pair,
            "distinct": has_pair,
            "next_group": count > 1,
            "previous_group": count > 1,
            "undo_merge": bool(self.undo_stack),
            "merge_exact": any(g.exact_after_cleanup for g in self.groups),
            "merge_truncations": bool(self.snapshot.can_merge("truncation")),
        }
        for name, on in enabled.items():
            self.buttons[name].setEnabled(on)
        exact = sum(g.exact_after_cleanup for g in self.groups)
        self._label_button("merge_exact", f"Merge all exact ({exact})…" if exact else "Merge all exact…")
        cut = self.snapshot.can_merge("truncation")  # the groups the batch merges, as its preview says
        self._label_button(
            "merge_truncations", f"Merge all truncations ({cut})…" if cut else "Merge all truncations…"
        )

    # -- moving -------------------------------------------------------------------------------
    def step(self, delta: int) -> None:
        """→/n/Space: the next group; ←/p: the previous one."""
        if self._busy or not self.groups or self.view is None:
            return
        index = self.view.index + delta
        if not 0 <= index < len(self.groups):
            self.status.setText("This is the last group." if delta > 0 else "This is the first group.")
            return
        self.go(index)

    def go(self, index: int) -> None:
        groups = self.groups
        token = self._next_token()
        self._going_to = groups[index].ids

        def done(view: GroupView) -> None:
            self._going_to = None
            if self._current(token):
                self.view = view
                self.other = 0
                self.status.clear()
                self._render()

        def failed(_exc: Exception) -> None:
            self._going_to = None
            if self._current(token):
                self.reload()  # the group changed under us (another program): find them again

        self.executor.submit(lambda lib: load_view(lib, groups, index), done, failed)

    def step_other(self, delta: int) -> None:
        """↑/↓ in a group of three or more: compare the first paper with another one."""
        if self.view is None or len(self.view.comparisons) < 2:
            return
        self._choose_other((self.other + delta) % len(self.view.comparisons))

    def _choose_other(self, index: int) -> None:
        if self.view is not None and 0 <= index < len(self.view.comparisons):
            self.other = index
            self._render()

    def _scroll(self, action: QAbstractSlider.SliderAction) -> None:
        for side in (self.left, self.right):
            side.abstract.verticalScrollBar().triggerAction(action)

    # -- deciding (see duplicates_decisions) --------------------------------------------------
    def merge(self, *, keep_right: bool) -> None:
        """m: keep the left paper and fold the right one into it; Shift+M the other way round."""
        self.decisions.merge(keep_right=keep_right)

    def mark_distinct(self) -> None:
        """d: the pair in view are different papers; they are never offered together again."""
        self.decisions.mark_distinct()

    def undo(self) -> None:
        """u: take back the last merge or "not a duplicate" made in this review."""
        self.decisions.undo()

    def ask_merge_exact(self) -> None:
        """The batch: every group whose abstracts are equal after cleanup, after a confirmation."""
        self.decisions.ask_merge_exact()

    def ask_merge_truncations(self) -> None:
        """The batch: every group where one abstract is cut from a longer one, after a preview."""
        self.decisions.ask_merge_truncations()


def _words(n: int) -> str:
    return f"{n} word{'s' if n != 1 else ''}"
