"""The keys of the duplicates review that change the library: merge, not a duplicate, undo, merge all exact.

Each runs on the window's executor, then the groups are found again and the dialog shows
the group the change leaves in view.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox

from desk.gui.duplicates.data import Snapshot, fetch, merge_exact, unmerge_all
from desk.gui.workers import plain_message

if TYPE_CHECKING:
    from desk.core.library import Library
    from desk.gui.duplicates.dialog import DuplicatesDialog


class ReviewDecisions:
    """What the deciding keys do to the pair (or the groups) `dialog` shows."""

    def __init__(self, dialog: DuplicatesDialog) -> None:
        self.dialog = dialog
        self._confirm: QMessageBox | None = None

    def _change(
        self,
        change: Callable[[Any], tuple[Collection[int], Any]],
        done: Callable[[Any], str],
        *,
        writes_papers: bool = True,
    ) -> None:
        """Run `change(lib) -> (ids to show next, result)`, then find the groups again.

        `done(result)` runs on the UI thread before the list is shown and says what happened.
        """
        if self.dialog.before_change is not None and writes_papers:
            self.dialog.before_change()  # a note being typed is saved before its paper can be merged away
        self.dialog._busy = True
        position = self.dialog.view.index if self.dialog.view is not None else 0
        token = self.dialog._next_token()

        def op(lib: Library) -> tuple[Any, Snapshot]:
            prefer, result = change(lib)
            return result, fetch(lib, prefer, position)

        def succeeded(value: tuple[Any, Snapshot]) -> None:
            result, snapshot = value
            message = done(result)
            self.dialog._busy = False
            if self.dialog._current(token):
                self.dialog._apply(snapshot, message)
            else:  # a newer load is on its way and will show the list
                self.dialog.status.setText(message)
            if writes_papers:
                self.dialog.changed.emit()

        def failed(exc: Exception) -> None:
            self.dialog._busy = False
            self.dialog._current(token)
            self.dialog.status.setText(plain_message(exc))
            self.dialog.reload()
            if writes_papers:
                self.dialog.changed.emit()

        self.dialog.executor.submit(op, succeeded, failed)

    def merge(self, *, keep_right: bool) -> None:
        """m: keep the left paper and fold the right one into it; Shift+M the other way round."""
        pair = None if self.dialog._busy else self.dialog.shown_pair()
        if pair is None:
            return
        keep, other = (pair[1], pair[0]) if keep_right else pair
        comparison = self.dialog.comparison()
        assert comparison is not None
        title = (comparison.right if keep_right else comparison.left).paper.title

        def change(lib: Library) -> tuple[Collection[int], None]:
            lib.merge(keep, [other])
            return (keep,), None

        def done(_result: None) -> str:
            self.dialog.undo_stack.append([keep])
            return f"Merged into “{_short(title)}”. U undoes it."

        self._change(change, done)

    def mark_distinct(self) -> None:
        """d: the pair in view are different papers; they are never offered together again."""
        pair = None if self.dialog._busy else self.dialog.shown_pair()
        if pair is None:
            return

        def change(lib: Library) -> tuple[Collection[int], None]:
            lib.mark_distinct(*pair)
            return pair, None

        self._change(
            change,
            lambda _r: "Marked as different papers; they will not be offered again.",
            writes_papers=False,
        )

    def undo(self) -> None:
        """u: bring back the papers of the last merge made in this review."""
        if self.dialog._busy:
            return
        if not self.dialog.undo_stack:
            self.dialog.status.setText("No merge made in this review to undo.")
            return
        kept = self.dialog.undo_stack[-1]

        def change(lib: Library) -> tuple[Collection[int], list[int]]:
            restored = unmerge_all(lib, kept)
            return (*kept, *restored), restored

        def done(restored: list[int]) -> str:
            if self.dialog.undo_stack and self.dialog.undo_stack[-1] is kept:
                self.dialog.undo_stack.pop()
            n = len(restored)
            return f"Merge undone: {n} paper{'s are' if n != 1 else ' is'} back."

        self._change(change, done)

    def ask_merge_exact(self) -> None:
        """The batch: every group whose abstracts are equal after cleanup, after a confirmation."""
        if self.dialog._busy:
            return
        exact = [g for g in self.dialog.groups if g.exact_after_cleanup]
        if not exact:
            self.dialog.status.setText("No group has the same text after cleanup.")
            return
        papers = sum(len(g.ids) for g in exact)
        groups = f"{len(exact)} group{'s' if len(exact) != 1 else ''}"
        box = QMessageBox(
            QMessageBox.Icon.Question,
            "Merge exact duplicates",
            f"Merge {groups} whose abstracts are the same text after cleanup ({papers} papers)?\n\n"
            "In each group the first paper is kept; the sources, star, read state and notes of the "
            "others are folded into it. U undoes the whole batch.",
            QMessageBox.StandardButton.NoButton,
            self.dialog,
        )
        box.setObjectName("mergeExactConfirm")
        box.setTextFormat(Qt.TextFormat.PlainText)
        yes = box.addButton(f"Merge {groups}", QMessageBox.ButtonRole.AcceptRole)
        box.addButton(QMessageBox.StandardButton.Cancel)
        box.setDefaultButton(yes)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        wanted = {g.ids for g in exact}

        def finished(_result: int) -> None:
            if box.clickedButton() is yes:
                self._merge_exact(wanted)

        box.finished.connect(finished)
        self._confirm = box
        box.open()

    def _merge_exact(self, wanted: set[tuple[int, ...]]) -> None:
        if self.dialog._busy:
            return

        def change(lib: Library) -> tuple[Collection[int], tuple[list[int], str | None]]:
            return (), merge_exact(lib, wanted)

        def done(result: tuple[list[int], str | None]) -> str:
            kept, error = result
            if kept:
                self.dialog.undo_stack.append(kept)
            n = len(kept)
            said = f"Merged {n} group{'s' if n != 1 else ''} of exact duplicates. U undoes them."
            return said if error is None else f"{said} Stopped: {error}"

        self._change(change, done)


def _short(title: str, limit: int = 70) -> str:
    return title if len(title) <= limit else title[: limit - 1].rstrip() + "…"
