"""Renaming a paper in place (F2): the title turns into a line to edit; Enter keeps it, Esc not.

No dialog: the paper stays in view, and the keys go back where they were once answered."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QApplication, QLineEdit, QWidget

_KEYS = (Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_Escape)


class TitleEdit(QLineEdit):
    """`edit(text, on_done)`: shown over the title; `on_done(text)` on Enter (empty: the derived title)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("titleEdit")
        self.setAccessibleName("Title (Enter keeps it, Esc leaves it as it was)")
        self.setPlaceholderText("Empty: the title derived from the abstract")
        self.setToolTip("Enter keeps this title, Esc leaves it as it was; empty: the derived title")
        self._on_done: Callable[[str], object] | None = None
        self._back: QWidget | None = None
        self.installEventFilter(self)
        self.hide()

    @property
    def editing(self) -> bool:
        return self.isVisible()

    def edit(self, text: str, on_done: Callable[[str], object]) -> None:
        """Show the line with `text` selected; the keys move into it."""
        focus = QApplication.focusWidget()
        self._back = focus if focus is not self else self._back
        self._on_done = on_done
        self.setText(text)
        self.selectAll()
        self.show()
        self.setFocus(Qt.FocusReason.OtherFocusReason)

    def finish(self, keep: bool) -> None:
        """Enter (keep) or Esc (leave it): the line goes, the keys go back."""
        if not self.isVisible():
            return
        on_done, self._on_done = self._on_done, None
        text = " ".join(self.text().split())
        self.hide()
        if self._back is not None:
            self._back.setFocus(Qt.FocusReason.OtherFocusReason)
        self._back = None
        if keep and on_done is not None:
            on_done(text)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self and event.type() == QEvent.Type.FocusOut and self.isVisible():
            now = QApplication.focusWidget()
            if now is not None and now is not self:
                self._back = None  # the keys went elsewhere on their own: they stay there
                self.finish(False)  # clicked elsewhere: left as it was
            return False
        if not isinstance(event, QKeyEvent) or event.key() not in _KEYS:
            return False
        if event.type() == QEvent.Type.ShortcutOverride:
            event.accept()  # Enter and Esc are the edit's, not the window's (open, back)
            return True
        if event.type() == QEvent.Type.KeyPress:
            self.finish(event.key() != Qt.Key.Key_Escape)
            return True
        return False
