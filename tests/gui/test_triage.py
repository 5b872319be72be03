"""Triage mode, the 1–9 tag keys and undo/redo, driven by keys only.

Each test presses keys where the focus is, as a user does, then reads the database.
"""

from __future__ import annotations

from pathlib import Path

from gui_helpers import press, type_text, wait_search
from PySide6.QtCore import Qt

from desk.core.library.facade import Library

Key = Qt.Key
Ctrl = Qt.KeyboardModifier.ControlModifier


def state(library_dir: Path) -> tuple[set[int], set[int]]:
    """(starred ids, read ids) as the database holds them."""
    with Library(library_dir) as lib:
        papers = lib.list_papers()
    return {p.id for p in papers if p.starred}, {p.id for p in papers if p.read}


def wait_idle(qtbot, window) -> None:
    """Every job the keys queued has run (a marker job queued last has come back)."""
    done: list[bool] = []
    window.executor.submit(lambda _lib: None, lambda _r: done.append(True))
    qtbot.waitUntil(lambda: bool(done) and not window.controller.pending(), timeout=30_000)


def test_ten_keys_triage_ten_unread_papers_and_u_and_ctrl_z_take_four_back(
    open_window, library_dir: Path, qtbot
) -> None:
    window = open_window(library_dir)
    press(qtbot, Key.Key_T, Ctrl)
    qtbot.waitUntil(lambda: window.triaging and window.triage_view.current_id is not None)
    queue = list(window.triage_view.queue)
    assert len(queue) == 94  # every seed paper is unread
    assert window.triage_view.hasFocus()
    keys = ["s", "e", "x", "e", "s", "e", "e", "s", "e", "e"]
    for key in keys:
        press(qtbot, key)
    wait_idle(qtbot, window)
    starred, read = state(library_dir)
    assert starred == {queue[i] for i, k in enumerate(keys) if k == "s"}
    assert read == set(queue[:10])
    assert window.triage_view.remaining() == 84
    assert "84 of 94 unread papers left" in window.triage_view.counter.text()

    press(qtbot, "u")  # back to the tenth paper, its "done" undone
    press(qtbot, "u")  # and the ninth
    wait_idle(qtbot, window)
    assert window.triage_view.current_id == queue[8]
    assert state(library_dir)[1] == set(queue[:8])

    press(qtbot, Key.Key_Escape)
    qtbot.waitUntil(lambda: not window.triaging)
    wait_idle(qtbot, window)
    press(qtbot, Key.Key_Z, Ctrl)  # the eighth decision (star and done) in one step
    press(qtbot, Key.Key_Z, Ctrl)
    wait_idle(qtbot, window)
    starred, read = state(library_dir)
    assert read == set(queue[:6])
    assert starred == {queue[0], queue[4]}
    press(qtbot, Key.Key_Z, Ctrl | Qt.KeyboardModifier.ShiftModifier)  # redo the seventh
    wait_idle(qtbot, window)
    assert state(library_dir)[1] == set(queue[:7])
    window.close()


def test_a_digit_toggles_the_tag_of_that_number_on_the_paper_in_view(
    open_window, library_dir: Path, qtbot
) -> None:
    with Library(library_dir) as lib:
        some = lib.paper_ids()[:2]
        lib.tags.add([some[0]], "to read")
        lib.tags.add([some[1]], "rl ✓ théorie")  # any Unicode name
    window = open_window(library_dir)
    type_text(qtbot, "policy")
    wait_search(qtbot, window, "policy")
    press(qtbot, Key.Key_Down)  # into the list, on the first hit
    wait_idle(qtbot, window)
    first = window.current_id
    press(qtbot, "2")  # the second tag made: "rl ✓ théorie"
    press(qtbot, "j")
    wait_idle(qtbot, window)
    second = window.current_id
    assert first is not None and second is not None and second != first
    press(qtbot, "1")  # the first: "to read"
    press(qtbot, "2")
    wait_idle(qtbot, window)
    assert window.search_box.text() == "policy"  # no key went into the query
    with Library(library_dir) as lib:
        assert set(lib.tags.papers("rl ✓ théorie")) == {some[1], first, second}
        assert set(lib.tags.papers("to read")) == {some[0], second}
    press(qtbot, "2")  # again: off
    wait_idle(qtbot, window)
    with Library(library_dir) as lib:
        assert set(lib.tags.papers("rl ✓ théorie")) == {some[1], first}
    window.close()
