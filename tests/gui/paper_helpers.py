"""Helpers for the tests that act on papers: waiting for the jobs keys queued, rows of the list."""

from __future__ import annotations

from gui_helpers import press, type_text, wait_search
from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QApplication


def type_unicode(text: str) -> None:
    """Characters QTest's key table lacks (✓, é): key events carrying the text, as an input method sends."""
    for char in text:
        for kind in (QEvent.Type.KeyPress, QEvent.Type.KeyRelease):
            target = QApplication.focusWidget()
            assert target is not None
            QApplication.sendEvent(target, QKeyEvent(kind, 0, Qt.KeyboardModifier.NoModifier, char))


def wait_idle(qtbot, window) -> None:
    """Every job the keys queued has run, and the jobs their answers queued (a marker job queued
    last has come back, twice)."""
    done: list[int] = []
    for round_ in (1, 2):
        window.executor.submit(lambda _lib: None, lambda _r, n=round_: done.append(n))
        qtbot.waitUntil(lambda n=round_: n in done and not window.controller.pending(), timeout=30_000)


def into_list(qtbot, window, query: str) -> None:
    type_text(qtbot, query)
    wait_search(qtbot, window, query)
    press(qtbot, Qt.Key.Key_Down)  # into the list, on the first hit
    wait_idle(qtbot, window)
    assert window.focus.where() == "list"


def shown_ids(window, n: int) -> list[int]:
    """The ids of n rows of the list from the highlighted one down."""
    start = window.results_view.currentIndex().row()
    return [window.model.id_at(r) for r in range(start, start + n)]
