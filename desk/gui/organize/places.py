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
from PySide6.QtWidgets import QDockWidget, QPushButton, QStackedWidget, QVBoxLayout, QWidget

from desk.gui.main.focus import FocusModel, frame_style
from desk.gui.organize.ask_bar import AskBar
from desk.gui.organize.removal import Removal
from desk.gui.organize.sidebar import Counts, Sidebar, load_counts, saved_filter
from desk.gui.search.controller import SearchController, effective_query
from desk.gui.settings import WindowSettings
from desk.gui.workers import LibraryExecutor

if TYPE_CHECKING:  # desk.core.library.facade loads Whoosh: only the worker thread imports it
    from desk.core.library.facade import Library

POLL_MS = 2000  # how often the counts ask whether the library changed (a cheap PRAGMA)
SOON_MS = 150  # after a search or a change made here: look again this soon
DOCK_WIDTH = 230


class Places(QObject):
    """The sidebar's dock and behaviour; `handlers()` are its actions' (keymap.py)."""

    status = Signal(str)
    triageRequested = Signal()  # "Triage unread here": the unread papers of the list in view
    countsShown = Signal(object)  # Counts, once the sidebar shows them

    def __init__(
        self,
        executor: LibraryExecutor,
        parent: QWidget,
        controller: SearchController,
        set_filter: Callable[[str], None],
        focus: FocusModel,
        settings: WindowSettings,
        pages: QStackedWidget,
        search_bar: QWidget,
    ) -> None:
        super().__init__(parent)
        self.executor = executor
        self.controller = controller
        self.set_filter = set_filter
        self.focus = focus
        self.settings = settings
        self.sidebar = Sidebar()
        self.ask = AskBar()  # questions asked here, never in a modal dialog
        inside = QWidget()
        column = QVBoxLayout(inside)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(self.ask)
        column.addWidget(self.sidebar, 1)
        self.triage_button = QPushButton("Triage the unread here (Ctrl+T)")
        self.triage_button.setObjectName("sidebarTriage")
        self.triage_button.setToolTip("Go through the unread papers of the list in view, one key a paper")
        self.triage_button.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # Ctrl+T is its key
        self.triage_button.clicked.connect(self.triageRequested)
        column.addWidget(self.triage_button)
        self.dock = QDockWidget("Sidebar", parent)
        self.dock.setObjectName("sidebarDock")
        self.dock.setFeatures(QDockWidget.DockWidgetFeature.NoDockWidgetFeatures)
        self.dock.setTitleBarWidget(QWidget())  # no title bar: the sidebar is part of the window
        self.dock.setWidget(inside)
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
        self.removal = Removal(
            executor, pages, search_bar, self.ask, self._changed, lambda: controller.filter, set_filter
        )
        trash_list = self.removal.view.list
        trash_list.setStyleSheet(frame_style(trash_list, parent.palette()))
        self.sidebar.chosen.connect(self._chosen)
        self.sidebar.trashChosen.connect(self.removal.open)
        self.sidebar.entered.connect(self._entered)
        self.removal.left.connect(self._trash_left)
        self.pages = pages
        pages.currentChanged.connect(self._page_changed)
        controller.filterChanged.connect(self.sidebar.select_filter)
        controller.searched.connect(lambda _outcome: self.soon())
        self.sidebar.deleteRequested.connect(self.delete_entry)

    def handlers(self) -> dict[str, Callable[[], object]]:
        """The sidebar's actions by name (keymap.ACTIONS)."""
        return {
            "toggle_sidebar": self.toggle,
            "focus_sidebar": self.focus_sidebar,
            "save_search": self.save_search,
        }

    def _page_changed(self, _index: int) -> None:
        """Triage fills the window: the sidebar steps aside, and comes back after."""
        page = self.pages.currentWidget()
        listing = page is self.pages.widget(0) or page is self.removal.view
        self.dock.setVisible(self.settings.sidebar and listing)

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

    # -- saved searches -----------------------------------------------------------------------
    def save_search(self) -> None:
        """Ctrl+Shift+S: keep the query in view (the filter's term with what was typed) under a name."""
        query = effective_query(self.controller.text, self.controller.filter).strip()
        if not query:
            self.status.emit("Type a search first (or choose a filter), then save it.")
            return
        if not self.shown:
            self.toggle()
        default = " ".join(self.controller.text.split()) or query

        def save(name: str) -> None:
            self.executor.submit(
                lambda lib: lib.saved_searches.save(name, query),
                lambda _none: self._changed(f"Saved the search “{name}”"),
            )

        self.ask.ask_name(f"Save the search “{query}” as:", default, save)

    def delete_entry(self, kind: str, name: str) -> None:
        """Delete on a sidebar entry: a saved search is deleted (asked first; Ctrl+Z brings it back)."""
        if kind == "collection":
            self.removal.remove_list(name)
            return
        if kind != "saved":
            return

        def delete() -> None:
            if self.controller.filter == saved_filter(name):
                self.set_filter("all")
            self.executor.submit(
                lambda lib: lib.saved_searches.delete(name),
                lambda _done: self._changed(f"Deleted the saved search “{name}” (Ctrl+Z brings it back)"),
            )

        self.ask.confirm(f"Delete the saved search “{name}”?", "Delete", delete)

    def _changed(self, said: str) -> None:
        self.status.emit(said)
        self.look(force=True)
        self.controller.run_now()  # the list shows the change too

    # -- moving in the sidebar ----------------------------------------------------------------
    def _chosen(self, name: str) -> None:
        self.removal.close()  # another entry than the trash: the list again
        self.set_filter(name)

    def _entered(self) -> None:
        """Enter in the sidebar: the keys go to what it shows (the list, or the trash)."""
        if self.removal.showing:
            self.removal.focus_list()
        else:
            self.focus.to_list()

    def _trash_left(self) -> None:
        self.sidebar.select_filter(self.controller.filter, force=True)
        if self.removal.view.list.hasFocus() or not self.shown:
            self.focus.to_list()

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
