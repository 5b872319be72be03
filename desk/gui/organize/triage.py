"""Triage mode: one paper fills the window, one key per decision.

`s` stars the paper (and counts it as seen) and moves on, `e` or `x` marks it done (read) and
moves on, `u` goes back one paper and undoes the decision taken there, Esc leaves. The queue is
fixed when the mode starts (the unread papers, or the papers of the list in view), so a decision
never reshuffles what comes next. Every decision is one step of the library's undo history.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from desk.core.records.detail import PaperDetail
from desk.gui.reading.paper_view import PaperView, abstract_html
from desk.gui.workers import LibraryExecutor

if TYPE_CHECKING:  # desk.core.library.facade loads Whoosh: only the worker thread imports it
    from desk.core.library.facade import Library

# The window's one-letter shortcuts (s stars the list's paper) must not fire here: these keys are
# the triage view's while it has the focus.
_OWN_KEYS = frozenset(
    {Qt.Key.Key_S, Qt.Key.Key_E, Qt.Key.Key_X, Qt.Key.Key_U, Qt.Key.Key_Escape, Qt.Key.Key_Space}
    | {Qt.Key.Key_PageDown, Qt.Key.Key_PageUp}
)
HELP = "s  star and next     e / x  done and next     u  back and undo     Esc  leave triage"


def _star_and_done(lib: Library, pid: int) -> None:
    with lib.history.batch("Triage: star"):
        lib.set_starred([pid], True)
        lib.set_read([pid], True)


def _done(lib: Library, pid: int) -> None:
    with lib.history.batch("Triage: done"):
        lib.set_read([pid], True)


class TriageView(QWidget):
    """The triage page: `start(ids)` with the queue; `left` when the user leaves (Esc or the end)."""

    left = Signal(int)  # decisions taken
    status = Signal(str)
    changed = Signal(object)  # the ids whose rows changed

    def __init__(self, executor: LibraryExecutor, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("triageView")
        self.executor = executor
        self.queue: list[int] = []
        self.position = 0
        self.decisions: list[int] = []  # positions decided, in order (u takes back the last)
        self.paper_view = PaperView()
        self.paper_view.abstract.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # the keys are the view's
        self.counter = QLabel()
        self.counter.setObjectName("triageCounter")
        self.keys = QLabel(HELP)
        self.keys.setObjectName("triageKeys")
        layout = QVBoxLayout(self)
        layout.addWidget(self.counter)
        layout.addWidget(self.paper_view, 1)
        layout.addWidget(self.keys)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)

    @property
    def current_id(self) -> int | None:
        """The paper on screen, or None past the end of the queue."""
        return self.queue[self.position] if 0 <= self.position < len(self.queue) else None

    def start(self, ids: Sequence[int]) -> None:
        """Go through `ids` one at a time from the first."""
        self.queue = list(ids)
        self.position = 0
        self.decisions = []
        self._show()
        self.setFocus(Qt.FocusReason.OtherFocusReason)

    def remaining(self) -> int:
        """Papers not yet decided, the one on screen included."""
        return max(0, len(self.queue) - self.position)

    def _show(self) -> None:
        pid = self.current_id
        left = self.remaining()
        self.counter.setText(
            f"Triage · {left} of {len(self.queue)} unread paper{'s' if len(self.queue) != 1 else ''} left"
            if pid is not None
            else f"Triage · all {len(self.queue)} decided — Esc to go back"
        )
        if pid is None:
            self.paper_view.show_empty("Nothing left to triage.")
            return

        def load(lib: Library) -> tuple[PaperDetail, str]:
            paper = lib.paper(pid)
            return paper, abstract_html(paper, ())

        def shown(result: tuple[PaperDetail, str]) -> None:
            if self.current_id == result[0].id:  # not a stale load after a quick key
                self.paper_view.show_paper(*result)

        self.executor.submit(load, shown)

    def _decide(self, star: bool) -> None:
        pid = self.current_id
        if pid is None:
            return
        self.executor.submit(lambda lib: (_star_and_done if star else _done)(lib, pid))
        self.changed.emit([pid])
        self.status.emit("Starred" if star else "Done")
        self.decisions.append(self.position)
        self.position += 1
        self._show()

    def _back(self) -> None:
        """u: back to the last decided paper, its decision undone."""
        if not self.decisions:
            self.status.emit("Nothing to take back in this triage.")
            return
        self.position = self.decisions.pop()
        pid = self.queue[self.position]
        self.executor.submit(lambda lib: lib.history.undo())
        self.changed.emit([pid])
        self.status.emit("Taken back")
        self._show()

    def event(self, event: QEvent) -> bool:
        if event.type() == QEvent.Type.ShortcutOverride and isinstance(event, QKeyEvent):
            plain = not (
                event.modifiers() & ~Qt.KeyboardModifier.ShiftModifier & ~Qt.KeyboardModifier.KeypadModifier
            )
            if plain and Qt.Key(event.key()) in _OWN_KEYS:
                event.accept()  # delivered to keyPressEvent instead of a window shortcut
                return True
        return super().event(event)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        key, mods = event.key(), event.modifiers()
        if mods & ~Qt.KeyboardModifier.ShiftModifier & ~Qt.KeyboardModifier.KeypadModifier:
            super().keyPressEvent(event)
            return
        if key == Qt.Key.Key_S:
            self._decide(star=True)
        elif key in (Qt.Key.Key_E, Qt.Key.Key_X):
            self._decide(star=False)
        elif key == Qt.Key.Key_U:
            self._back()
        elif key == Qt.Key.Key_Escape:
            self.left.emit(len(self.decisions))
        elif key in (Qt.Key.Key_Space, Qt.Key.Key_PageDown):
            bar = self.paper_view.abstract.verticalScrollBar()
            bar.setValue(bar.value() + bar.pageStep())
        elif key == Qt.Key.Key_PageUp:
            bar = self.paper_view.abstract.verticalScrollBar()
            bar.setValue(bar.value() - bar.pageStep())
        else:
            super().keyPressEvent(event)
