"""Back and forward between the papers read (Alt+← / Alt+→), as a browser does.

Every paper that comes on screen in the reading pane is a step of the trail (the same paper
twice in a row is one); going back and then opening another paper drops the steps ahead, as a
browser drops its forward history. A paper no longer in the library is skipped.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, Signal

from desk.core.records.detail import PaperDetail

LIMIT = 500  # steps kept


class PaperTrail(QObject):
    """`visited(paper)` for each paper shown; `back()` / `forward()` call `show(id)`."""

    status = Signal(str)

    def __init__(self, show: Callable[[int], None], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.show = show
        self.steps: list[int] = []
        self.at = -1  # the step on screen
        self._going: int | None = None  # the paper back/forward asked for, until it is shown

    def visited(self, paper: PaperDetail) -> None:
        """A paper came on screen."""
        pid = paper.id
        if self._going is not None:
            if pid == self._going:
                self._going = None
                return
            self._going = None  # another paper came first: the user moved on
        if 0 <= self.at < len(self.steps) and self.steps[self.at] == pid:
            return
        del self.steps[self.at + 1 :]
        self.steps.append(pid)
        if len(self.steps) > LIMIT:
            del self.steps[: len(self.steps) - LIMIT]
        self.at = len(self.steps) - 1

    def forget(self, ids: list[int]) -> None:
        """Papers gone (to the trash): not stepped to again."""
        gone = set(ids)
        current = self.steps[self.at] if 0 <= self.at < len(self.steps) else None
        kept = [p for p in self.steps if p not in gone]
        # Squash neighbours made equal by the removal.
        self.steps = [p for n, p in enumerate(kept) if n == 0 or kept[n - 1] != p]
        self.at = self.steps.index(current) if current in self.steps else len(self.steps) - 1

    def can_go(self, step: int) -> bool:
        """Whether back (-1) or forward (+1) has somewhere to go."""
        return 0 <= self.at + step < len(self.steps)

    def go(self, step: int) -> None:
        """Alt+← (-1) / Alt+→ (+1)."""
        if not self.can_go(step):
            self.status.emit("No earlier paper read." if step < 0 else "No later paper to go forward to.")
            return
        self.at += step
        self._going = self.steps[self.at]
        self.show(self._going)

    def back(self) -> None:
        """Alt+←: the paper read before this one."""
        self.go(-1)

    def forward(self) -> None:
        """Alt+→: the paper read after this one (after going back)."""
        self.go(1)
