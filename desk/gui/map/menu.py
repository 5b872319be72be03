"""View → Map (Ctrl+M) in the main window's menu bar."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMainWindow, QMenu

KEYS = "Ctrl+M"


def add_map_action(window: QMainWindow, open_map: Callable[[], object]) -> QAction:
    """The action opening the map, first in the View menu (made before Help when there is none)."""
    action = QAction("&Map of the library", window)
    action.setObjectName("action_map")
    action.setShortcut(QKeySequence(KEYS))
    action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
    action.triggered.connect(lambda _checked=False: open_map())
    window.addAction(action)  # the key works while the menu bar is hidden too
    bar = window.menuBar()
    menu = next((a.menu() for a in bar.actions() if a.text() == "&View"), None)
    if not isinstance(menu, QMenu):
        menu = QMenu("&View", window)
        help_menu = next((a for a in bar.actions() if a.text() == "&Help"), None)
        if help_menu is not None:
            bar.insertMenu(help_menu, menu)
        else:
            bar.addMenu(menu)
    present = menu.actions()
    if present:
        menu.insertAction(present[0], action)
        menu.insertSeparator(present[0])
    else:
        menu.addAction(action)
    return action
