"""View → Appearance: like the system, always light or always dark (kept for every library)."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtGui import QAction, QActionGroup
from PySide6.QtWidgets import QMainWindow, QMenu

CHOICES = (("system", "Like the &system"), ("light", "&Light"), ("dark", "&Dark"))


def appearance_menu(window: QMainWindow, current: str, choose: Callable[[str], None]) -> dict[str, QAction]:
    """Add View → Appearance before Help; `choose(choice)` when one is picked. The actions by choice."""
    view = QMenu("&View", window)
    help_menu = next((a for a in window.menuBar().actions() if a.text() == "&Help"), None)
    if help_menu is not None:
        window.menuBar().insertMenu(help_menu, view)
    else:
        window.menuBar().addMenu(view)
    appearance = view.addMenu("&Appearance")
    group = QActionGroup(window)
    actions: dict[str, QAction] = {}
    for choice, text in CHOICES:
        action = QAction(text, window)
        action.setObjectName(f"action_scheme_{choice}")
        action.setCheckable(True)
        action.setChecked(choice == current)
        action.triggered.connect(lambda _c=False, c=choice: choose(c))
        group.addAction(action)
        appearance.addAction(action)
        actions[choice] = action
    return actions
