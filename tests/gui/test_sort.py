"""Search → Sort by and its key (Ctrl+Shift+O), driven by keys; the list's order checked
against the library's own sorted search."""

from __future__ import annotations

from pathlib import Path

from gui_helpers import press, type_text, wait_search
from PySide6.QtCore import Qt
from test_sidebar import go_to_entry, shown_ids, wait_idle

from desk.core.library.facade import Library

Key = Qt.Key
CtrlShift = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier


def order(library_dir: Path, query: str, sort: str, **kw: object) -> list[int]:
    with Library(library_dir) as lib:
        return [h.id for h in lib.search_ids(query, limit=100, sort=sort, **kw).hits]  # type: ignore[arg-type]


def test_the_key_cycles_the_sorts_the_list_follows_and_the_library_remembers(
    open_window, library_dir: Path, qtbot
) -> None:
    with Library(library_dir) as lib:
        lib.set_starred(lib.paper_ids()[40:43], True)
    window = open_window(library_dir)
    assert window.sorting.label.text() == "· sorted by relevance"
    press(qtbot, Key.Key_O, CtrlShift)
    wait_search(qtbot, window)
    assert window.controller.sort == "collection" and window.sorting.actions["collection"].isChecked()
    assert window.sorting.label.text() == "· sorted by collection and position"
    assert shown_ids(window) == order(library_dir, "", "collection")
    press(qtbot, Key.Key_O, CtrlShift)  # recently imported
    press(qtbot, Key.Key_O, CtrlShift)  # starred first
    wait_search(qtbot, window)
    assert window.sorting.label.text() == "· starred first"
    assert shown_ids(window)[:3] == order(library_dir, "", "relevance")[40:43]
    press(qtbot, Key.Key_O, CtrlShift)  # title
    type_text(qtbot, "policy")  # the focus is in the search box: typed words, sorted by title
    wait_search(qtbot, window, "policy")
    assert shown_ids(window) == order(library_dir, "policy", "title")
    window.close()
    again = open_window(library_dir)
    assert again.controller.sort == "title" and again.sorting.actions["title"].isChecked()
    assert shown_ids(again) == order(library_dir, "policy", "title")


def test_recommended_lists_what_recommend_offers_and_per_tag_when_a_tag_is_chosen(
    open_window, library_dir: Path, qtbot
) -> None:
    with Library(library_dir) as lib:
        lib.discovery.ensure_vectors()
        rl = [h.id for h in lib.search_ids("reinforcement learning", limit=6).hits]
        lib.set_starred(rl[:3], True)
        routing = [h.id for h in lib.search_ids("vehicle routing", limit=4).hits]
        lib.tags.add(routing[:2], "routing")
        offered = [r.paper.id for r in lib.discovery.recommend(limit=10).rows]
        for_tag = [r.paper.id for r in lib.discovery.recommend(tag="routing", limit=10).rows]
    window = open_window(library_dir)
    for _ in range(5):
        press(qtbot, Key.Key_O, CtrlShift)
    wait_search(qtbot, window)
    assert window.controller.sort == "recommended"
    assert window.sorting.label.text() == "· recommended for you first"
    assert shown_ids(window)[:10] == offered
    assert not set(shown_ids(window)[:10]) & set(rl[:3])  # starred papers are not offered

    go_to_entry(qtbot, window, "1  routing")  # the tag: the papers recommended for it
    wait_search(qtbot, window)
    wait_idle(qtbot, window)
    assert window.sorting.label.text() == "· recommended for “routing”"
    assert shown_ids(window)[:10] == for_tag
    assert not set(shown_ids(window)) & set(routing[:2])  # its own papers are not listed
