"""Notice what other processes wrote to the library (a `desk import`, `desk star`, another window).

The window searches the shared database and index again whenever it runs a search, so a new
query always sees other processes' writes.  What is already on screen is refreshed when the
window is activated again (back from the terminal) and the database changed since the last
look: `Library.data_version()` (SQLite's `PRAGMA data_version` on a connection of its own),
which changes whenever any other connection committed.  The window's own writes count too,
so coming back after starring a paper re-runs the search once; the paper in view and the note
being typed are kept.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QWidget

from desk.gui.workers import LibraryExecutor

if TYPE_CHECKING:  # desk.core.library.facade loads Whoosh: only the worker thread imports it
    from desk.core.library.facade import Library


def _data_version(lib: Library) -> int:
    """On the worker: the library's data version (a job fails with LibraryNotOpen while it is not open)."""
    return lib.data_version()


class ExternalChanges(QObject):
    """Calls `refresh` when the window comes back to the front after someone else wrote."""

    def __init__(self, executor: LibraryExecutor, window: QWidget, refresh: Callable[[], None]) -> None:
        super().__init__(window)
        self.executor = executor
        self.refresh = refresh
        self._seen: int | None = None
        self._asking = False
        window.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.WindowActivate:
            self.check()
        return False

    def check(self) -> None:
        """Ask (on the worker) whether another process committed since the last look."""
        if self._asking:
            return
        self._asking = True
        self.executor.submit(_data_version, self._answered, lambda _exc: self._answered(None))

    def _answered(self, version: int | None) -> None:
        self._asking = False
        if version is None:
            return  # the library is not open (yet), or the question failed: nothing to compare
        before, self._seen = self._seen, version
        if before is not None and version != before:
            self.refresh()
