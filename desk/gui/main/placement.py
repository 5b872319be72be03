"""Where the window sits and how its panes are split: kept between runs, in the library's settings.

A window opens where that library's window last closed, with its sidebar and splitters as they
were. A library opened for the first time takes the geometry of the last window of any library,
moved a step down and right (``CASCADE_STEP``), so that a second library (`--library lib2`) never
opens exactly over the first.
"""

from __future__ import annotations

from collections.abc import Mapping

from PySide6.QtWidgets import QDockWidget, QMainWindow, QSplitter

from desk.gui.settings import WindowSettings

CASCADE_STEP = 40  # pixels a new library's window is moved from the last window's place
DEFAULT_SIZE = (1200, 760)
DEFAULT_SPLITS = {"main": [440, 760], "right": [460, 300]}  # the panes' widths, the pane's heights


def restore(
    window: QMainWindow, settings: WindowSettings, dock: QDockWidget, splitters: Mapping[str, QSplitter]
) -> None:
    """``window``'s geometry, its sidebar ``dock`` and its ``splitters`` as they were (a default
    size the first time)."""
    geometry = settings.geometry
    if geometry is None or not window.restoreGeometry(geometry):
        window.resize(*DEFAULT_SIZE)
    elif not settings.own_geometry:
        cascade(window)  # another library's window may be open where that one was last
    docks = settings.splitter("docks")  # the sidebar's width and whether it is shown
    if docks is not None and window.restoreState(docks):
        dock.setVisible(settings.sidebar)  # the setting says; not a triage's hiding
    for name, splitter in splitters.items():
        state = settings.splitter(name)
        if state is None or not splitter.restoreState(state):
            splitter.setSizes(DEFAULT_SPLITS.get(name, [1, 1]))


def cascade(window: QMainWindow) -> None:
    """Move ``window`` a step down and right of the geometry it took from another library's
    window, kept on the screen."""
    placed = window.geometry()
    moved = placed.translated(CASCADE_STEP, CASCADE_STEP)
    screen = window.screen()
    if screen is not None and not screen.availableGeometry().contains(moved):
        back = placed.translated(-CASCADE_STEP, -CASCADE_STEP)  # off the bottom or right: up and left
        moved = back if screen.availableGeometry().contains(back) else placed
    window.setGeometry(moved)


def save(window: QMainWindow, settings: WindowSettings, splitters: Mapping[str, QSplitter]) -> None:
    """Keep ``window``'s geometry, its docks' state and the splits (written by the settings' sync)."""
    settings.geometry = window.saveGeometry()
    settings.set_splitter("docks", window.saveState())
    for name, splitter in splitters.items():
        settings.set_splitter(name, splitter.saveState())
