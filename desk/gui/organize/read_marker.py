"""Opening a paper marks it read after a moment (1.5 s at first), as Zotero and mail clients do.

A paper counts as opened when it is on screen while the keys are in the result list, the
reading pane or its note — the user moved to it, pressed Enter or came from the related list.
The best hit a search highlights while the user is still typing in the search box is not
opened; leaving a paper (or going back to the box) before the delay leaves it unread. The
setting (Paper → Mark papers read when opened, and the delay) is kept for every library.
Marking on opening is no step of the undo history (`Library.mark_opened`): Ctrl+Z takes back
what the user did.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QTimer, Signal, Slot
from PySide6.QtGui import QAction, QActionGroup
from PySide6.QtWidgets import QApplication, QMainWindow, QMenu, QWidget

from desk.core.records.detail import PaperDetail
from desk.core.records.page import PaperSummary
from desk.gui.settings import WindowSettings
from desk.gui.workers import LibraryExecutor

if TYPE_CHECKING:  # desk.core.library.facade loads Whoosh: only the worker thread imports it
    from desk.core.library.facade import Library

OPEN_PANES = ("list", "reading", "note")
DELAYS_MS = (0, 500, 1500, 3000, 5000)


def delay_text(ms: int) -> str:
    """How a delay is written in the menu."""
    return "At once" if ms == 0 else f"After {ms / 1000:g} s"


class ReadMarker(QObject):
    """`shown(paper)` when a paper comes on screen; `marked(dict)` with its row once it is read."""

    marked = Signal(object)  # dict[int, PaperSummary]

    def __init__(
        self,
        executor: LibraryExecutor,
        settings: WindowSettings,
        where: Callable[[], str],
        in_view: Callable[[], int | None],
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.executor = executor
        self.settings = settings
        self.where = where
        self.in_view = in_view
        self.enabled = settings.mark_read
        self.delay_ms = settings.read_delay_ms
        self._unread: int | None = None  # the paper on screen, while it is unread
        self._armed: int | None = None  # the paper the timer is for
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.timeout.connect(self._fire)
        app = QApplication.instance()
        if isinstance(app, QApplication):
            app.focusChanged.connect(self._focus_moved)  # a bound slot: gone with this object

    @Slot(QWidget, QWidget)
    def _focus_moved(self, _old: QWidget | None, _new: QWidget | None) -> None:
        self._arm()

    def shown(self, paper: PaperDetail) -> None:
        """A paper is on screen (a reload of the same one keeps its timer running)."""
        self._unread = None if paper.read else paper.id
        self._arm()

    def _arm(self) -> None:
        pid = self._unread
        opened = pid is not None and self.enabled and pid == self.in_view() and self.where() in OPEN_PANES
        if not opened:
            self.timer.stop()
            self._armed = None
        elif not (self.timer.isActive() and self._armed == pid):
            self._armed = pid
            self.timer.start(self.delay_ms)

    def _fire(self) -> None:
        pid = self._armed
        self._armed = None
        if pid is None or pid != self.in_view() or self.where() not in OPEN_PANES:
            return
        self._unread = None

        def op(lib: Library) -> dict[int, PaperSummary]:
            return lib.summaries([pid]) if lib.mark_opened(pid) else {}

        self.executor.submit(op, lambda rows: self.marked.emit(rows) if rows else None)

    # -- the setting -------------------------------------------------------------------------
    def set_enabled(self, on: bool) -> None:
        """Paper → Mark papers read when opened."""
        self.enabled = self.settings.mark_read = on
        self._arm()

    def set_delay(self, ms: int) -> None:
        """Paper → Mark read: how long a paper is open first."""
        self.delay_ms = ms
        self.settings.read_delay_ms = ms
        if self.timer.isActive():
            self.timer.start(ms)

    def add_menu(self, window: QMainWindow) -> QAction:
        """The setting in the Paper menu (after its actions); the checkable action."""
        menu = next((a.menu() for a in window.menuBar().actions() if a.text() == "&Paper"), None)
        if not isinstance(menu, QMenu):
            menu = window.menuBar().addMenu("&Paper")
        menu.addSeparator()
        toggle = QAction("Mark papers read when &opened", window)
        toggle.setObjectName("action_mark_read")
        toggle.setCheckable(True)
        toggle.setChecked(self.enabled)
        toggle.toggled.connect(self.set_enabled)
        menu.addAction(toggle)
        delays = menu.addMenu("Mark read a&fter")
        group = QActionGroup(window)
        for ms in sorted({*DELAYS_MS, self.delay_ms}):
            choice = QAction(delay_text(ms), window)
            choice.setObjectName(f"action_read_delay_{ms}")
            choice.setCheckable(True)
            choice.setChecked(ms == self.delay_ms)
            choice.triggered.connect(lambda _c=False, v=ms: self.set_delay(v))
            group.addAction(choice)
            delays.addAction(choice)
        toggle.toggled.connect(delays.setEnabled)
        delays.setEnabled(self.enabled)
        return toggle
