"""Ctrl+Z / Ctrl+Shift+Z (Ctrl+Y) are the library's undo and redo everywhere, except in a text
field that holds text typed since it got the keys: there they take back the typing.

Qt gives a text field these keys before any shortcut (a QLineEdit keeps its own undo), so the
Esc chain, which ends in the search box, used to make "star, Esc, Ctrl+Z" take back the query
and keep the star.  `UndoKeys` watches the text fields: until the user types in one after it
got the focus, it lets the window's undo and redo have the keys.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QKeyCombination, QObject, Qt
from PySide6.QtGui import QKeyEvent, QKeySequence
from PySide6.QtWidgets import QWidget

from desk.gui.main.focus import types_text

HISTORY_KEYS = (QKeySequence.StandardKey.Undo, QKeySequence.StandardKey.Redo)
CTRL = Qt.KeyboardModifier.ControlModifier
REDO_KEYS = (  # the window's redo keys (keymap.py), whatever the platform's standard one is
    QKeyCombination(CTRL | Qt.KeyboardModifier.ShiftModifier, Qt.Key.Key_Z),
    QKeyCombination(CTRL, Qt.Key.Key_Y),
)
EDITING_KEYS = (QKeySequence.StandardKey.Paste, QKeySequence.StandardKey.Cut, QKeySequence.StandardKey.Delete)


def is_history_key(event: QKeyEvent) -> bool:
    """Ctrl+Z, Ctrl+Shift+Z or Ctrl+Y (as the platform spells undo and redo)."""
    return any(event.matches(k) for k in HISTORY_KEYS) or event.keyCombination() in REDO_KEYS


class UndoKeys(QObject):
    """Decides, per text field, whether Ctrl+Z is the field's or the library's."""

    def __init__(self, fields: tuple[QWidget, ...], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._typed: dict[QWidget, bool] = {}
        for field in fields:
            self.watch(field)

    def watch(self, field: QWidget) -> None:
        """Another text field under the rule (the tag picker's, an in-place title edit)."""
        self._typed[field] = False
        field.installEventFilter(self)

    def typed_in(self, field: QWidget) -> bool:
        """Whether the user typed in `field` since it got the keys."""
        return self._typed.get(field, False)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if not isinstance(watched, QWidget) or watched not in self._typed:
            return False
        kind = event.type()
        if kind == QEvent.Type.FocusIn:
            self._typed[watched] = False
        elif kind == QEvent.Type.KeyPress:
            key: QKeyEvent = event  # type: ignore[assignment]
            if types_text(key) or any(key.matches(k) for k in EDITING_KEYS):
                self._typed[watched] = True
        elif kind == QEvent.Type.ShortcutOverride and not self._typed[watched]:
            key = event  # type: ignore[assignment]
            if is_history_key(key):
                event.ignore()  # not the field's: the window's undo / redo shortcut takes it
                return True
        return False
