"""The main window's map (View → Map): made when first opened, then kept.

The map follows the query the list shows, is laid out again when the library's vectors change
(while it is shown), and is stopped when the main window closes. What the map asks of the main
window (highlight a paper, read it, search for a cluster) goes through the callables it is given.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QWidget

from desk.gui.map.window import Later, MapWindow
from desk.gui.search.controller import SearchController

if TYPE_CHECKING:
    from desk.gui.organize.bulk import PaperActions
    from desk.gui.workers import LibraryExecutor


class MapLauncher(QObject):
    """Opens the map of ``parent``'s library; ``map_window``: the map once made (None before)."""

    def __init__(
        self,
        executor: LibraryExecutor,
        actions: PaperActions,
        later: Later,
        controller: SearchController,
        show: Callable[[int], object],
        read: Callable[[int], object],
        search: Callable[[str], object],
        parent: QWidget,
    ) -> None:
        """``show(pid)``: highlight a paper in the main window; ``read(pid)``: read it there;
        ``search(query)``: search as if typed."""
        super().__init__(parent)
        self.executor = executor
        self.actions = actions
        self.later = later
        self.controller = controller
        self.show_paper, self.read_paper, self.search_for = show, read, search
        self.owner = parent
        self.map_window: MapWindow | None = None

    def open(self) -> None:
        """View → Map: the library's map in a window of its own, at the list's query."""
        if self.map_window is None:
            shown = MapWindow(self.executor, self.actions, self.later, self.owner)
            shown.paperHighlighted.connect(self.show_paper)
            shown.readRequested.connect(self.read_paper)
            shown.queryRequested.connect(self.search_for)
            self.controller.searched.connect(lambda _o: shown.set_query(self.controller.shown_query))
            self.map_window = shown
        self.map_window.set_query(self.controller.shown_query)
        self.map_window.open()

    def refresh(self) -> None:
        """The library changed (new vectors): the map, when shown, is laid out again off the UI thread."""
        if self.map_window is not None and self.map_window.isVisible():
            self.map_window.refresh()

    def close(self) -> None:
        """The main window closes: the map's work stops and its window closes."""
        if self.map_window is not None:
            self.map_window.stop()
            self.map_window.close()
