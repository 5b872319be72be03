"""Driving the window as a user does: keys go to whatever has the focus."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QWidget

SEEDS = Path(__file__).resolve().parents[2] / "seeds"


def wait_ready(qtbot, window) -> None:
    qtbot.waitUntil(
        lambda: bool(window.open_error) or (window.ready and not window.controller.pending()), timeout=20_000
    )
    assert window.open_error is None, window.open_error
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)


def press(qtbot, key: Qt.Key | str, modifier: Qt.KeyboardModifier = Qt.KeyboardModifier.NoModifier) -> None:
    """A key pressed by the user: it goes to whatever has the focus."""
    target: QWidget | None = QApplication.focusWidget()
    assert target is not None, "nothing has the keyboard focus"
    qtbot.keyClick(target, key, modifier)


def type_text(qtbot, text: str) -> None:
    target = QApplication.focusWidget()
    assert target is not None
    qtbot.keyClicks(target, text)


def wait_search(qtbot, window, text: str | None = None) -> None:
    """Wait until what was typed has been searched and shown."""
    qtbot.waitUntil(
        lambda: not window.controller.pending() and (text is None or window.controller.text == text),
        timeout=10_000,
    )
