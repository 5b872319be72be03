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


class Placement:
    """Restores and saves ``window``'s geometry, its dock's state and the named splitters."""

    def __init__(
        self,
        window: QMainWindow,
        settings: WindowSettings,
        dock: QDockWidget,
        splitters: Mapping[str, QSplitter],
    ) -> None:
        self.window = window
        self.settings = settings
        self.dock = dock
        self.splitters = splitters

    def restore(self) -> None:
        """The geometry, the sidebar and the splits as they were (a default size the first time)."""
        window, settings = self.window, self.settings
        geometry = settings.geometry
        if geometry is None or not window.restoreGeometry(geometry):
            window.resize(*DEFAULT_SIZE)
        elif not settings.own_geometry:
            self.cascade()  # another library's window may be open where that one was last
        docks = settings.splitter("docks")  # the sidebar's width and whether it is shown
        if docks is not None and window.restoreState(docks):
            self.dock.setVisible(settings.sidebar)  # the setting says; not a triage's hiding
        for name, splitter in self.splitters.items():
            state = settings.splitter(name)
            if state is None or not splitter.restoreState(state):
                splitter.setSizes(DEFAULT_SPLITS.get(name, [1, 1]))

    def cascade(self) -> None:
        """Move a step down and right of the geometry taken from another library's window, kept
        on the screen."""
        window = self.window
        placed = window.geometry()
        moved = placed.translated(CASCADE_STEP, CASCADE_STEP)
        screen = window.screen()
        if screen is not None and not screen.availableGeometry().contains(moved):
            back = placed.translated(-CASCADE_STEP, -CASCADE_STEP)  # off the bottom or right: up and left
            moved = back if screen.availableGeometry().contains(back) else placed
        window.setGeometry(moved)

    def save(self) -> None:
        """Keep the geometry, the dock's state and the splits (written by the settings' sync)."""
        self.settings.geometry = self.window.saveGeometry()
        self.settings.set_splitter("docks", self.window.saveState())
        for name, splitter in self.splitters.items():
            self.settings.set_splitter(name, splitter.saveState())
