"""The window's side of the duplicates review: the status-bar badge, the count in the menu, the dialog.

`DuplicatesReview` is what the main window holds; it counts the near-duplicate groups on
the window's executor and opens the `DuplicatesDialog`.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, Qt, QTimer, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QApplication, QToolButton, QWidget

from desk.gui import theme
from desk.gui.duplicates.dialog import DuplicatesDialog
from desk.gui.workers import LibraryExecutor


class DuplicatesBadge(QToolButton):
    """The count of groups in the status bar ("3 possible duplicates"); a click opens the review."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("duplicatesBadge")
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.setAutoRaise(True)
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.setToolTip("Review the near-duplicates (Ctrl+Shift+D)")
        self.count = 0
        self.hide()
        self._restyle()

    def set_count(self, count: int) -> None:
        self.count = count
        self.setText(f"{count} possible duplicate{'s' if count != 1 else ''}")
        self.setVisible(count > 0)

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange:
            self._restyle()

    def _restyle(self) -> None:
        # The colours come from the window's palette: this button's own is changed by its style sheet.
        parent = self.parentWidget()
        c = theme.colors(parent.palette() if parent is not None else QApplication.palette())
        sheet = (
            f"QToolButton#duplicatesBadge {{ background: {c.badge_background.name()};"
            f" color: {c.badge_text.name()}; border: none; border-radius: 8px; padding: 1px 8px; }}"
        )
        if sheet != self.styleSheet():  # setting it changes the palette, which calls this again
            self.setStyleSheet(sheet)


class DuplicatesReview(QObject):
    """The window's side of the review: the badge, the count in the menu, the dialog."""

    changed = Signal()  # papers were merged or restored: refresh the result list
    countChanged = Signal(int)

    def __init__(
        self,
        executor: LibraryExecutor,
        window: QWidget,
        action: QAction | None = None,
        before_change: Callable[[], None] | None = None,
    ) -> None:
        super().__init__(window)
        self.executor = executor
        self.parent_window = window
        self.action = action
        self.before_change = before_change
        self._menu_text = action.text() if action is not None else ""
        self.count: int | None = None
        self.dialog: DuplicatesDialog | None = None
        self.badge = DuplicatesBadge()
        self.badge.clicked.connect(self.open)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self.refresh)

    def refresh(self, delay_ms: int = 0) -> None:
        """Count the groups again (or reload the open review); after `delay_ms` if given."""
        if delay_ms:
            self._timer.start(delay_ms)
            return
        self._timer.stop()
        if self.dialog is not None and self.dialog.isVisible():
            self.dialog.reload()
            return
        self.executor.submit(lambda lib: len(lib.duplicates.groups()), self._counted)

    def open(self) -> None:
        """Ctrl+Shift+D: show the review (where it was left) and look for the groups again."""
        if self.dialog is None:
            self.dialog = DuplicatesDialog(self.executor, self.parent_window, self.before_change)
            self.dialog.countChanged.connect(self._counted)
            self.dialog.changed.connect(self.changed)
            size = self.parent_window.size()
            self.dialog.resize(min(1180, max(760, size.width() - 60)), min(760, max(520, size.height() - 40)))
        self.dialog.show()
        self.dialog.raise_()
        self.dialog.activateWindow()
        self.dialog.reload()

    def close(self) -> None:
        if self.dialog is not None:
            self.dialog.close()

    def _counted(self, count: int) -> None:
        self.count = count
        self.badge.set_count(count)
        if self.action is not None:
            text = self._menu_text
            self.action.setText(text.replace("…", f" ({count})…") if count else text)
        self.countChanged.emit(count)
