"""The tags' order (the order they were made, `Library.tags()`), which is the digits' order:
read again on the worker only when the library changed since it was read."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QWidget

from desk.gui.workers import LibraryExecutor

if TYPE_CHECKING:  # desk.core.library.facade loads Whoosh: only the worker thread imports it
    from desk.core.library.facade import Library


def add_digit_keys(window: QWidget, toggle: Callable[[int], object]) -> None:
    """The keys 1-9 on ``window``: ``toggle(n)`` the n-th tag (in the digits' order) of the selection."""
    for n in range(1, 10):
        digit = QAction(f"Toggle tag {n}", window)
        digit.setObjectName(f"action_tag_{n}")
        digit.setShortcut(QKeySequence(str(n)))
        digit.triggered.connect(lambda _c=False, k=n: toggle(k))
        window.addAction(digit)


class TagNumbers(QObject):
    """The tags in the order made; `changed(dict name → 1-based number)` when it changes."""

    changed = Signal(object)

    def __init__(self, executor: LibraryExecutor, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.executor = executor
        self.numbers: dict[str, int] = {}
        self._seen: int | None = None
        self._asking = False

    def look(self) -> None:
        """Read the order again if the library changed since it was read (a cheap PRAGMA else)."""
        if self._asking:
            return
        self._asking = True
        seen = self._seen

        def op(lib: Library) -> tuple[int, list[str]] | None:
            version = lib.data_version()
            return None if version == seen else (version, [t.name for t in lib.tags.counts()])

        self.executor.submit(op, self._loaded, lambda _exc: self._done())

    def _loaded(self, value: tuple[int, list[str]] | None) -> None:
        self._done()
        if value is None:
            return
        self._seen, names = value
        numbers = {name: n for n, name in enumerate(names, start=1)}
        if numbers != self.numbers:
            self.numbers = numbers
            self.changed.emit(numbers)

    def _done(self) -> None:
        self._asking = False
