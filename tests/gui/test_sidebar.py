"""The sidebar, driven by keys: where you are in the library, with counts that follow it.

Each test presses keys where the focus is, as a user does, then reads the list or the database.
"""

from __future__ import annotations

from pathlib import Path

from gui_helpers import press, type_text, wait_search
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from desk.core.library.facade import Library

Key = Qt.Key
Ctrl = Qt.KeyboardModifier.ControlModifier


def wait_idle(qtbot, window) -> None:
    """Every job the keys queued has run (a marker job queued last has come back)."""
    done: list[bool] = []
    window.executor.submit(lambda _lib: None, lambda _r: done.append(True))
    qtbot.waitUntil(lambda: bool(done) and not window.controller.pending(), timeout=30_000)


def count_of(window, label: str) -> str | None:
    return dict(window.sidebar.rows()).get(label)


def shown_ids(window) -> list[int]:
    return list(window.model.ids())


def go_to_entry(qtbot, window, label: str) -> None:
    """F6 into the sidebar, then ↓ until the entry `label` is highlighted."""
    qtbot.waitUntil(lambda: count_of(window, label) is not None, timeout=10_000)  # its counts are in
    press(qtbot, Key.Key_F6)
    assert QApplication.focusWidget() is window.sidebar
    for _ in range(60):
        item = window.sidebar.currentItem()
        if item is not None and item.text(0) == label:
            return
        press(qtbot, Key.Key_Down)
    raise AssertionError(f"no sidebar entry {label!r}: {window.sidebar.rows()}")


def test_counts_entries_and_searching_inside_a_collection(open_window, library_dir: Path, qtbot) -> None:
    with Library(library_dir) as lib:
        first, second = lib.paper_ids()[:2]
        lib.tags.add([first, second], "reading group")
        per = lib.stats().collections
        english = {h.id for h in lib.search_ids('in:"ICML 2026 Papers"', limit=1000).hits}
    window = open_window(library_dir)
    qtbot.waitUntil(lambda: count_of(window, "1  reading group") == "2")
    assert count_of(window, "All papers") == "94" and count_of(window, "Unread") == "94"
    assert count_of(window, "Starred") == "0" and count_of(window, "With notes") == "0"
    assert count_of(window, "ICML 2026 Papers") == str(per["ICML 2026 Papers"])
    assert count_of(window, "ICML 2026 论文列表") == str(per["ICML 2026 论文列表"])

    go_to_entry(qtbot, window, "ICML 2026 Papers")
    wait_search(qtbot, window)
    assert window.model.total == per["ICML 2026 Papers"]
    assert not any(b.isChecked() for b in window.filter_buttons.values())  # not one of theirs
    type_text(qtbot, "policy")  # letters typed in the sidebar go to the search box
    assert QApplication.focusWidget() is window.search_box
    wait_search(qtbot, window, "policy")
    inside = shown_ids(window)
    assert inside and set(inside) <= english
    assert window.sidebar.currentItem().text(0) == "ICML 2026 Papers"  # still where you are

    press(qtbot, Key.Key_2, Ctrl)  # the bar's Starred: the sidebar follows (one filter in force)
    wait_search(qtbot, window)
    assert window.sidebar.currentItem().text(0) == "Starred"
    assert window.filter_buttons["starred"].isChecked()


def test_a_tag_entry_filters_and_the_counts_follow_star_and_tag_keys(
    open_window, library_dir: Path, qtbot
) -> None:
    with Library(library_dir) as lib:
        tagged = lib.paper_ids()[5]
        lib.tags.add([tagged], "later")
    window = open_window(library_dir)
    qtbot.waitUntil(lambda: count_of(window, "1  later") == "1")
    press(qtbot, Key.Key_Down)  # into the list, on the first hit
    wait_idle(qtbot, window)
    pid = window.current_id
    assert pid is not None and pid != tagged
    press(qtbot, "s")
    qtbot.waitUntil(lambda: count_of(window, "Starred") == "1", timeout=10_000)
    press(qtbot, "1")  # the digit toggles the first tag: its count follows
    qtbot.waitUntil(lambda: count_of(window, "1  later") == "2", timeout=10_000)
    press(qtbot, Key.Key_Z, Ctrl)  # undo the tag
    qtbot.waitUntil(lambda: count_of(window, "1  later") == "1", timeout=10_000)

    go_to_entry(qtbot, window, "1  later")
    wait_search(qtbot, window)
    assert shown_ids(window) == [tagged]
    press(qtbot, Key.Key_Return)  # Enter: the keys go to the list
    assert QApplication.focusWidget() is window.results_view
    press(qtbot, Key.Key_F6)
    press(qtbot, Key.Key_Escape)  # Esc from the sidebar: back to the list
    assert QApplication.focusWidget() is window.results_view


def test_ctrl_b_hides_and_shows_the_sidebar_and_the_window_remembers(
    open_window, library_dir: Path, qtbot
) -> None:
    window = open_window(library_dir)
    assert window.places.shown
    press(qtbot, Key.Key_F6)
    press(qtbot, Key.Key_B, Ctrl)
    assert not window.places.shown
    assert QApplication.focusWidget() is window.results_view  # the keys were in it: to the list
    go_to_entry(qtbot, window, "Unread")  # F6 shows it again and goes into it
    assert window.places.shown
    wait_search(qtbot, window)
    press(qtbot, Key.Key_B, Ctrl)
    window.close()
    again = open_window(library_dir)
    assert not again.places.shown
    assert again.controller.filter == "unread" and again.filter_buttons["unread"].isChecked()


def test_triage_from_the_sidebar_goes_through_the_unread_papers_of_the_entry_in_view(
    open_window, library_dir: Path, qtbot
) -> None:
    with Library(library_dir) as lib:
        ids = lib.paper_ids()[10:14]
        lib.tags.add(ids, "later")
        lib.set_read(ids[:1], True)  # read already: not in the queue
    window = open_window(library_dir)
    go_to_entry(qtbot, window, "1  later")
    wait_search(qtbot, window)
    press(qtbot, Key.Key_T, Ctrl)  # the keys are in the sidebar: Ctrl+T triages what it shows
    qtbot.waitUntil(lambda: window.triaging and window.triage_view.current_id is not None)
    assert sorted(window.triage_view.queue) == sorted(ids[1:])
    assert not window.places.dock.isVisible()  # the paper fills the window
    press(qtbot, "e")
    press(qtbot, Key.Key_Escape)
    qtbot.waitUntil(lambda: not window.triaging)
    assert window.places.dock.isVisible()  # back beside the list
    qtbot.waitUntil(lambda: count_of(window, "Unread") == "92", timeout=10_000)
    qtbot.mouseClick(window.places.triage_button, Qt.MouseButton.LeftButton)  # its button too
    qtbot.waitUntil(lambda: window.triaging and window.triage_view.current_id is not None)
    assert sorted(window.triage_view.queue) == sorted(ids[2:])
