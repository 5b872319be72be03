"""Search → Sort by: the order of the result list, a key that cycles it, and a label beside the count.

The sort is the search controller's (`SearchController.set_sort`) and is remembered per library
(`WindowSettings.sort`).  "Recommended for you" lists first the unread papers the library's
recommender offers (`Library.search_ids(sort="recommended")`), trained on what was starred and
tagged; with a tag chosen in the sidebar, the papers it would offer for that tag.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QAction, QActionGroup
from PySide6.QtWidgets import QLabel, QMenu, QMenuBar, QStatusBar, QWidget

from desk.gui.search.controller import RECOMMENDED, SearchController, recommended_tag
from desk.gui.settings import WindowSettings
from desk.gui.workers import LibraryExecutor

if TYPE_CHECKING:  # desk.core.library.facade loads Whoosh: only the worker thread imports it
    from desk.core.library.facade import Library

SORTS: tuple[tuple[str, str], ...] = (
    ("relevance", "&Relevance"),
    ("collection", "&Collection and position"),
    ("recent", "Recently &imported"),
    ("starred", "&Starred first"),
    ("title", "&Title"),
    (RECOMMENDED, "Recommended &for you"),
)
NAMES = tuple(name for name, _ in SORTS)


def sort_text(sort: str, filter_name: str) -> str:
    """What the label beside the count says: "sorted by title", "recommended for “3D”"."""
    if sort == RECOMMENDED:
        tag = recommended_tag(filter_name)
        return f"recommended for “{tag}”" if tag else "recommended for you first"
    label = dict(SORTS).get(sort, sort).replace("&", "").lower()
    return f"sorted by {label}" if sort != "starred" else "starred first"


class SortMenu(QObject):
    """The sort's actions, its label and its key (`handlers()`); `status(str)` says what happened."""

    status = Signal(str)

    def __init__(
        self,
        executor: LibraryExecutor,
        parent: QWidget,
        controller: SearchController,
        settings: WindowSettings,
    ) -> None:
        super().__init__(parent)
        self.executor = executor
        self.controller = controller
        self.settings = settings
        self.label = QLabel()
        self.label.setObjectName("sortLabel")
        self.actions: dict[str, QAction] = {}
        stored = settings.sort
        controller.set_sort(stored if stored in NAMES else "relevance")
        controller.filterChanged.connect(lambda _f: self._show())
        self._show()

    def handlers(self) -> dict[str, Callable[[], object]]:
        """The sort's actions by name (keymap.ACTIONS)."""
        return {"cycle_sort": self.cycle}

    def install(self, menu_bar: QMenuBar, status_bar: QStatusBar) -> None:
        """Search → Sort by (one checked), and the label beside the result count."""
        search = next((a.menu() for a in menu_bar.actions() if a.text() == "&Search"), None)
        menu = search.addMenu("Sort &by") if isinstance(search, QMenu) else menu_bar.addMenu("Sort &by")
        group = QActionGroup(self)
        for name, text in SORTS:
            action = QAction(text, self)
            action.setObjectName(f"action_sort_{name}")
            action.setCheckable(True)
            action.setChecked(name == self.controller.sort)
            action.triggered.connect(lambda _c=False, n=name: self.choose(n))
            group.addAction(action)
            menu.addAction(action)
            self.actions[name] = action
        status_bar.addPermanentWidget(self.label)

    @property
    def sort(self) -> str:
        return self.controller.sort

    def choose(self, sort: str) -> None:
        """List the results in this order (kept for this library)."""
        if sort not in NAMES:
            return
        self.controller.set_sort(sort)
        self.settings.sort = sort
        action = self.actions.get(sort)
        if action is not None:
            action.setChecked(True)
        self._show()
        if sort == RECOMMENDED:
            self._why_none()

    def cycle(self) -> None:
        """Ctrl+Shift+O: the next sort order."""
        nxt = NAMES[(NAMES.index(self.sort) + 1) % len(NAMES)] if self.sort in NAMES else NAMES[0]
        self.choose(nxt)
        self.status.emit(f"Results {sort_text(nxt, self.controller.filter)}")

    def _show(self) -> None:
        text = sort_text(self.sort, self.controller.filter)
        self.label.setText(f"· {text}")
        self.label.setAccessibleName(f"Results {text}")

    def _why_none(self) -> None:
        """Say why the recommended sort has nothing to offer (nothing starred, vectors not built)."""
        tag = recommended_tag(self.controller.filter)

        def op(lib: Library) -> str | None:
            return lib.discovery.recommend_scores(tag)[1]

        self.executor.submit(op, lambda why: self.status.emit(why) if why else None)
