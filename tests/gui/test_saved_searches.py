"""Saved searches from the window, by keys: Ctrl+Shift+S names the search in view, the sidebar
lists it with a count that follows the library, Delete on it asks (inline) and deletes it."""

from __future__ import annotations

from pathlib import Path

from gui_helpers import press, type_text, wait_search
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication
from test_sidebar import count_of, go_to_entry, shown_ids, wait_idle

from desk.core.library.facade import Library

Key = Qt.Key
Ctrl = Qt.KeyboardModifier.ControlModifier
CtrlShift = Ctrl | Qt.KeyboardModifier.ShiftModifier


def saved(library_dir: Path) -> dict[str, str]:
    with Library(library_dir) as lib:
        return {s.name: s.query for s in lib.saved_searches.all()}


def test_save_the_search_in_view_then_it_follows_the_library_and_delete_asks(
    open_window, library_dir: Path, qtbot
) -> None:
    window = open_window(library_dir)
    type_text(qtbot, "policy")
    press(qtbot, Key.Key_3, Ctrl)  # unread papers only
    wait_search(qtbot, window, "policy")
    found = window.model.total
    press(qtbot, Key.Key_S, CtrlShift)
    qtbot.waitUntil(lambda: window.places.ask.asking)
    assert QApplication.focusWidget() is window.places.ask.name  # the name is typed inline
    type_text(qtbot, "to read")
    press(qtbot, Key.Key_Return)
    qtbot.waitUntil(lambda: count_of(window, "to read") == str(found), timeout=10_000)
    assert saved(library_dir) == {"to read": "is:unread policy"}
    assert not window.places.ask.asking

    press(qtbot, Key.Key_Down)  # into the list: mark the first hit read, the saved search follows
    wait_idle(qtbot, window)
    press(qtbot, "r")
    qtbot.waitUntil(lambda: count_of(window, "to read") == str(found - 1), timeout=10_000)

    go_to_entry(qtbot, window, "to read")  # choosing it lists its papers
    wait_search(qtbot, window)
    with Library(library_dir) as lib:
        expected = {h.id for h in lib.search_ids("is:unread policy", limit=200, sort="title").hits}
    assert set(shown_ids(window)) == expected and len(expected) == found - 1

    press(qtbot, Key.Key_Delete)  # asks first; Esc keeps it
    qtbot.waitUntil(lambda: window.places.ask.asking)
    assert "to read" in window.places.ask.question.text()
    press(qtbot, Key.Key_Escape)
    assert not window.places.ask.asking and saved(library_dir) == {"to read": "is:unread policy"}
    assert QApplication.focusWidget() is window.sidebar  # the keys are back where they were
    press(qtbot, Key.Key_Delete)
    qtbot.waitUntil(lambda: window.places.ask.asking)
    press(qtbot, Key.Key_Return)
    qtbot.waitUntil(lambda: count_of(window, "to read") is None, timeout=10_000)
    assert saved(library_dir) == {}
    assert window.controller.filter == "all"  # it was in view: the list shows everything again
    press(qtbot, Key.Key_Z, Ctrl)  # undo brings it back
    qtbot.waitUntil(lambda: count_of(window, "to read") == str(found - 1), timeout=10_000)


def test_nothing_to_save_is_said_and_asks_nothing(open_window, library_dir: Path, qtbot) -> None:
    window = open_window(library_dir)
    press(qtbot, Key.Key_S, CtrlShift)
    assert not window.places.ask.asking
    assert "Type a search first" in window.statusBar().currentMessage()


def test_a_saved_search_that_finds_nothing_says_so_not_that_the_library_is_empty(
    open_window, library_dir: Path, qtbot
) -> None:
    with Library(library_dir) as lib:
        lib.saved_searches.save("starred ones", "is:starred")
    window = open_window(library_dir)
    go_to_entry(qtbot, window, "starred ones")
    wait_search(qtbot, window)
    assert window.model.total == 0
    said = window.paper_view.title.text()
    assert 'saved:"starred ones"' in said and "library is empty" not in said
