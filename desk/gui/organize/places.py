"""Where you are in the library: the sidebar in its dock, its counts, and its keys.

`Places` gets what it needs, not the main window: the executor, the search controller (its
filter is the one truth the sidebar and the search bar's buttons both show), a way to set the
filter, the focus model, and the window's settings.  The counts follow the library: after a
search and every few seconds the worker is asked whether the database changed
(`Library.data_version`), and they are read again only when it did.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt, QTimer, Signal
from PySide6.QtWidgets import QDockWidget, QWidget

from desk.gui.main.focus import FocusModel
from desk.gui.organize.sidebar import Counts, Sidebar, load_counts
from desk.gui.search.controller import SearchController
from desk.gui.settings import WindowSettings
from desk.gui.workers import LibraryExecutor

if TYPE_CHECKING:  # desk.core.library loads Whoosh: only the worker thread imports it
    from desk.core.library import Library

POLL_MS = 2000  # how often the counts ask whether the library changed (a cheap PRAGMA)
SOON_MS = 150  # after a search or a change made here: look again this soon
DOCK_WIDTH = 230


class Places(QObject):
    """The sidebar's dock and behaviour; `handlers()` are its actions' (keymap.py)."""

    status = Signal(str)
    countsShown = Signal(object)  # Counts, once the sidebar shows them

    def __init__(
        self,
        executor: LibraryExecutor,
        parent: QWidget,
        controller: SearchController,
        set_filter: Callable[[str], None],
        focus: FocusModel,
        settings: WindowSettings,
    ) -> None:
        super().__init__(parent)
        self.executor = executor
        self.controller = controller
        self.set_filter = set_filter
        self.focus = focus
        self.settings = settings
        self.sidebar = Sidebar()
        self.dock = QDockWidget("Sidebar", parent)
        self.dock.setObjectName("sidebarDock")
        self.dock.setFeatures(QDockWidget.DockWidgetFeature.NoDockWidgetFeatures)
        self.dock.setTitleBarWidget(QWidget())  # no title bar: the sidebar is part of the window
        self.dock.setWidget(self.sidebar)
        self.dock.setVisible(settings.sidebar)
        focus.add_pane(self.sidebar)
        self._seen: int | None = None  # the data version the counts were read at
        self._asking = False
        self._again = False
        self._soon = QTimer(self)
        self._soon.setSingleShot(True)
        self._soon.setInterval(SOON_MS)
        self._soon.timeout.connect(self.look)
        self._poll = QTimer(self)
        self._poll.setInterval(POLL_MS)
        self._poll.timeout.connect(self.look)
        self._poll.start()
        self.sidebar.select_filter(controller.filter)
        self.sidebar.chosen.connect(self.set_filter)
        self.sidebar.entered.connect(focus.to_list)
        controller.filterChanged.connect(self.sidebar.select_filter)
        controller.searched.connect(lambda _outcome: self.soon())

    def handlers(self) -> dict[str, Callable[[], object]]:
        """The sidebar's actions by name (keymap.ACTIONS)."""
        return {"toggle_sidebar": self.toggle, "focus_sidebar": self.focus_sidebar}

    # -- showing it ---------------------------------------------------------------------------
    @property
    def shown(self) -> bool:
        return not self.dock.isHidden()

    def toggle(self) -> None:
        """Ctrl+B: show or hide the sidebar (remembered); hiding it while it has the keys gives
        them to the list."""
        if self.shown:
            had_keys = self.sidebar.hasFocus()
            self.dock.hide()
            if had_keys:
                self.focus.to_list()
        else:
            self.dock.show()
            self.look(force=True)
        self.settings.sidebar = self.shown

    def focus_sidebar(self) -> None:
        """F6 / Ctrl+Shift+B: the keys into the sidebar (shown first when hidden)."""
        if not self.shown:
            self.toggle()
        if self.sidebar.currentItem() is None:
            self.sidebar.select_filter(self.controller.filter)
        self.sidebar.setFocus(Qt.FocusReason.ShortcutFocusReason)

    # -- counts -------------------------------------------------------------------------------
    def soon(self) -> None:
        """Look at the counts again shortly (something may have changed them)."""
        self._soon.start()

    def look(self, force: bool = False) -> None:
        """Read the counts again if the library changed since they were read (or `force`)."""
        if not self.shown and not force:
            return
        if self._asking:
            self._again = True
            return
        self._asking = True
        seen = None if force else self._seen

        def op(lib: Library) -> tuple[int, Counts] | None:
            version = lib.data_version()
            if version == seen:
                return None
            return version, load_counts(lib)

        self.executor.submit(op, self._loaded, lambda _exc: self._done())

    def _loaded(self, value: tuple[int, Counts] | None) -> None:
        if value is not None:
            self._seen, counts = value
            self.sidebar.show_counts(counts)
            self.countsShown.emit(counts)
        self._done()

    def _done(self) -> None:
        self._asking = False
        if self._again:
            self._again = False
            self.soon()
