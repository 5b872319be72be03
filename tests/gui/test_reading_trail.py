"""Back and forward between papers read, a note's editing session as one undo step, and papers
marked read when opened: by keys only, the database read back through a fresh `Library`."""

from __future__ import annotations

from pathlib import Path

import pytest
from gui_helpers import press, type_text, wait_search
from paper_helpers import into_list, wait_idle
from PySide6.QtCore import Qt
from PySide6.QtGui import QAction

from desk.core.library.facade import Library
from desk.gui.settings import WindowSettings

Key = Qt.Key
Ctrl = Qt.KeyboardModifier.ControlModifier
Alt = Qt.KeyboardModifier.AltModifier


def wait_shown(qtbot, window) -> int:
    """The highlighted paper is on screen; its id."""
    pid = window.current_id
    qtbot.waitUntil(lambda: window.paper_view.paper is not None and window.paper_view.paper.id == pid)
    return pid


def read_ids(library_dir: Path) -> set[int]:
    with Library(library_dir) as lib:
        return {p.id for p in lib.list_papers() if p.read}


@pytest.mark.slow
def test_alt_left_and_right_go_back_and_forward_between_papers_read(
    open_window, library_dir: Path, qtbot
) -> None:
    window = open_window(library_dir)
    into_list(qtbot, window, "policy")
    a = wait_shown(qtbot, window)
    press(qtbot, "j")
    b = wait_shown(qtbot, window)
    press(qtbot, "j")
    c = wait_shown(qtbot, window)
    assert len({a, b, c}) == 3
    press(qtbot, Key.Key_Left, Alt)
    assert wait_shown(qtbot, window) == b
    press(qtbot, Key.Key_Left, Alt)
    assert wait_shown(qtbot, window) == a  # and the list highlights it
    assert window.results_view.current_id() == a
    press(qtbot, Key.Key_Right, Alt)
    assert wait_shown(qtbot, window) == b
    assert window.focus.where() == "list"  # the keys stay where they were

    # Another paper opened after going back drops the papers ahead, as a browser does.
    press(qtbot, "k", Ctrl)
    type_text(qtbot, "diffusion")
    wait_search(qtbot, window, "diffusion")
    press(qtbot, Key.Key_Down)
    d = wait_shown(qtbot, window)
    assert d not in (a, b, c)
    press(qtbot, Key.Key_Right, Alt)
    wait_idle(qtbot, window)
    assert window.current_id == d
    assert "No later paper" in window.statusBar().currentMessage()
    press(qtbot, Key.Key_Left, Alt)  # back to b, even when the list no longer holds it
    qtbot.waitUntil(lambda: window.paper_view.paper is not None and window.paper_view.paper.id == b)
    assert window.current_id == b
    window.close()


@pytest.mark.slow
def test_a_note_editing_session_is_one_undo_step_whatever_the_autosave_did(
    open_window, library_dir: Path, qtbot
) -> None:
    window = open_window(library_dir)
    into_list(qtbot, window, "policy")
    pid = wait_shown(qtbot, window)

    def note_in_database() -> str:
        with Library(library_dir) as lib:
            return lib.paper(pid).note

    press(qtbot, "n")  # note session 1
    qtbot.waitUntil(window.note_editor.hasFocus)
    type_text(qtbot, "one")
    press(qtbot, Key.Key_Escape)  # leaving saves and ends the session
    wait_idle(qtbot, window)
    assert note_in_database() == "one"

    press(qtbot, "n")  # note session 2: two bursts with an autosave between them
    qtbot.waitUntil(window.note_editor.hasFocus)
    press(qtbot, Key.Key_End, Ctrl)
    type_text(qtbot, " two")
    qtbot.waitUntil(lambda: window.note.state_text() == "Saved", timeout=5000)  # the autosave
    assert note_in_database() == "one two"
    type_text(qtbot, " three")
    qtbot.waitUntil(lambda: window.note.state_text() == "Saved", timeout=5000)
    assert note_in_database() == "one two three"
    press(qtbot, Key.Key_Escape)
    wait_idle(qtbot, window)
    assert window.focus.where() == "list"

    press(qtbot, Key.Key_Z, Ctrl)  # the whole second session
    wait_idle(qtbot, window)
    assert note_in_database() == "one"
    qtbot.waitUntil(lambda: window.note.text() == "one")  # the editor shows it too
    press(qtbot, Key.Key_Z, Ctrl)  # the first
    wait_idle(qtbot, window)
    assert note_in_database() == ""
    window.close()


@pytest.mark.slow
def test_a_paper_open_for_a_moment_is_marked_read_and_one_left_at_once_is_not(
    open_window, library_dir: Path, qtbot
) -> None:
    WindowSettings(library_dir).read_delay_ms = 300
    window = open_window(library_dir)
    type_text(qtbot, "policy")
    wait_search(qtbot, window, "policy")
    best = wait_shown(qtbot, window)
    wait_idle(qtbot, window)
    # The best hit on screen while the keys are in the box is not opened: no mark is pending.
    assert not window.read_marker.timer.isActive()
    assert read_ids(library_dir) == set()

    press(qtbot, Key.Key_Down)  # into the list: the paper there is opened
    opened = wait_shown(qtbot, window)
    assert opened != best
    qtbot.waitUntil(lambda: window.model.summary(opened).read, timeout=5000)
    assert read_ids(library_dir) == {opened}
    press(qtbot, Key.Key_Z, Ctrl)  # no undo step of its own: nothing to undo
    wait_idle(qtbot, window)
    assert read_ids(library_dir) == {opened}
    assert "Nothing to undo" in window.statusBar().currentMessage()

    # A longer delay (the menu), and papers left before it: unread.
    slow: QAction = window.findChild(QAction, "action_read_delay_3000")
    slow.trigger()
    assert WindowSettings(library_dir).read_delay_ms == 3000
    press(qtbot, "j")
    passed = wait_shown(qtbot, window)
    press(qtbot, "j")
    left = wait_shown(qtbot, window)
    press(qtbot, Key.Key_Escape)  # back to the search box: the paper on screen is no longer open
    wait_idle(qtbot, window)
    assert not window.read_marker.timer.isActive()  # the papers left before the delay: no mark pending
    assert read_ids(library_dir) == {opened}
    assert passed not in read_ids(library_dir) and left not in read_ids(library_dir)

    # Turned off in the Paper menu (and remembered): nothing is marked.
    toggle: QAction = window.findChild(QAction, "action_mark_read")
    assert toggle.isChecked()
    toggle.trigger()
    slow = window.findChild(QAction, "action_read_delay_500")
    slow.trigger()
    press(qtbot, Key.Key_Down)
    wait_shown(qtbot, window)
    wait_idle(qtbot, window)
    assert not window.read_marker.timer.isActive()  # turned off: nothing is armed
    assert read_ids(library_dir) == {opened}
    assert WindowSettings(library_dir).mark_read is False
    window.close()
