"""The keys of the duplicates review: one QAction per entry of `REVIEW_ACTIONS`, and its button.

Each button shows its first key after its text and triggers the same action the key does.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QPushButton, QWidget

from desk.gui.keymap import REVIEW_ACTIONS, native_keys


def wire_review_keys(
    dialog: QWidget,
    handlers: Mapping[str, Callable[[], object]],
    buttons: Mapping[str, QPushButton],
    button_keys: dict[str, str],
    label_button: Callable[[str, str], None],
) -> dict[str, QAction]:
    """Add the review's actions to `dialog`, wire its buttons to them; `button_keys` gets each first key."""
    actions: dict[str, QAction] = {}
    for spec in REVIEW_ACTIONS:
        action = QAction(spec.text, dialog)
        action.setObjectName(f"action_{spec.name}")
        action.setShortcuts([QKeySequence(k) for k in spec.keys])
        action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        action.triggered.connect(lambda _checked=False, fn=handlers[spec.name]: fn())
        dialog.addAction(action)
        actions[spec.name] = action
        button = buttons.get(spec.name)
        if button is not None:
            keys = native_keys(spec.keys)  # "m", "Shift+M": as the sheet writes them
            button.setToolTip(f"{spec.text.rstrip('…')} ({keys})")
            button_keys[spec.name] = keys.split(", ")[0]
            label_button(spec.name, button.text())
            button.clicked.connect(action.trigger)
    return actions
