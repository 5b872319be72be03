"""Acting on papers by keys only: the tag picker, multi-select and bulk, delete with notes asked.

Each test presses keys where the focus is, as a user does, then reads the database through a
fresh `Library`.
"""

from __future__ import annotations

from pathlib import Path

from gui_helpers import press, type_text, wait_search
from paper_helpers import into_list, shown_ids, type_unicode, wait_idle
from PySide6.QtCore import Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QApplication, QMenu, QMessageBox

from desk.core.library.facade import Library

Key = Qt.Key
Ctrl = Qt.KeyboardModifier.ControlModifier
Shift = Qt.KeyboardModifier.ShiftModifier


def tagged(library_dir: Path, name: str) -> set[int]:
    with Library(library_dir) as lib:
        return set(lib.tags.papers(name))


def test_t_opens_the_tag_picker_again_and_again_and_enter_toggles_the_chosen_tag(
    open_window, library_dir: Path, qtbot
) -> None:
    with Library(library_dir) as lib:
        first_paper = lib.paper_ids()[0]
        lib.tags.add([first_paper], "to read")
        lib.tags.add([first_paper], "reading group")
    window = open_window(library_dir)
    picker = window.paper_keys.picker
    into_list(qtbot, window, "policy")
    pid = window.current_id
    assert pid is not None and pid != first_paper

    # 1. A new name, typed right after t (before the tags are loaded), creates the tag.
    press(qtbot, "t")
    assert picker.isVisible() and QApplication.focusWidget() is picker.edit
    type_unicode("méthodes ✓")
    press(qtbot, Key.Key_Return)
    wait_idle(qtbot, window)
    assert not picker.isVisible()
    assert window.focus.where() == "list"  # the keys are back where they were
    assert tagged(library_dir, "méthodes ✓") == {pid}

    # 2. Typing filters: "read" finds "reading group" first (a name starting so), Enter adds it.
    press(qtbot, "t")
    qtbot.waitUntil(lambda: picker.list.count() >= 3)  # the three tags, loaded
    type_text(qtbot, "read")
    assert picker.choice() == "reading group"
    press(qtbot, Key.Key_Down)  # ↓: the next match, "to read" (it holds the word)
    assert picker.choice() == "to read"
    press(qtbot, Key.Key_Return)
    wait_idle(qtbot, window)
    assert tagged(library_dir, "to read") == {first_paper, pid}

    # 3. Esc closes without a change; nothing typed went into the search box.
    press(qtbot, "t")
    type_text(qtbot, "to read")
    press(qtbot, Key.Key_Escape)
    wait_idle(qtbot, window)
    assert not picker.isVisible() and window.focus.where() == "list"
    assert tagged(library_dir, "to read") == {first_paper, pid}
    assert window.search_box.text() == "policy"

    # 4. A tag the paper has is marked ✓ and Enter takes it off.
    press(qtbot, "t")
    rows = picker.list
    qtbot.waitUntil(lambda: any("✓ to read" in rows.item(r).text() for r in range(rows.count())))
    type_text(qtbot, "TO READ")  # case does not count
    press(qtbot, Key.Key_Return)
    wait_idle(qtbot, window)
    assert tagged(library_dir, "to read") == {first_paper}
    window.close()


def test_t_in_triage_tags_the_paper_on_screen(open_window, library_dir: Path, qtbot) -> None:
    window = open_window(library_dir)
    press(qtbot, Key.Key_T, Ctrl)
    qtbot.waitUntil(lambda: window.triaging and window.triage_view.current_id is not None)
    queue = list(window.triage_view.queue)
    press(qtbot, "t")
    type_text(qtbot, "later")
    press(qtbot, Key.Key_Return)
    wait_idle(qtbot, window)
    assert window.triage_view.hasFocus()  # back in triage: the next key is a decision
    press(qtbot, "e")
    press(qtbot, "t")
    type_text(qtbot, "lat")
    press(qtbot, Key.Key_Return)
    wait_idle(qtbot, window)
    assert tagged(library_dir, "later") == {queue[0], queue[1]}
    press(qtbot, "1")  # a digit in triage: the paper on screen, not the list's
    wait_idle(qtbot, window)
    assert tagged(library_dir, "later") == {queue[0]}
    window.close()


def test_shift_down_selects_five_and_s_stars_them_as_one_undo_step(
    open_window, library_dir: Path, qtbot
) -> None:
    window = open_window(library_dir)
    into_list(qtbot, window, "learning")
    five = shown_ids(window, 5)
    for _ in range(4):
        press(qtbot, Key.Key_Down, Shift)
    wait_idle(qtbot, window)
    assert window.paper_keys.selection.selected_ids() == five
    assert window.paper_keys.count_label.text() == "5 selected of"  # "… of 43 papers · 3 ms" beside it
    assert window.current_id == five[-1]  # the reading pane shows the row the cursor is on
    press(qtbot, "s")
    wait_idle(qtbot, window)
    with Library(library_dir) as lib:
        assert set(lib.paper_ids(starred=True)) == set(five)
    press(qtbot, Key.Key_Z, Ctrl)  # all five at once
    wait_idle(qtbot, window)
    with Library(library_dir) as lib:
        assert lib.paper_ids(starred=True) == []
    press(qtbot, Key.Key_Up, Shift)  # the range shrinks from its start
    wait_idle(qtbot, window)
    assert window.paper_keys.selection.selected_ids() == five[:4]
    window.close()


def test_a_mixed_selection_is_made_alike_and_digits_and_e_act_on_all(
    open_window, library_dir: Path, qtbot
) -> None:
    with Library(library_dir) as lib:
        lib.tags.add([lib.paper_ids()[-1]], "first tag")
    window = open_window(library_dir)
    into_list(qtbot, window, "learning")
    three = shown_ids(window, 3)
    press(qtbot, "j")
    press(qtbot, "s")  # the second alone is starred
    press(qtbot, "k")
    press(qtbot, Key.Key_Down, Shift)
    press(qtbot, Key.Key_Down, Shift)
    wait_idle(qtbot, window)
    press(qtbot, "s")  # any unstarred: star all
    wait_idle(qtbot, window)
    with Library(library_dir) as lib:
        assert set(lib.paper_ids(starred=True)) == set(three)
    press(qtbot, "s")  # all starred: unstar all
    press(qtbot, "1")  # the first tag on all three
    press(qtbot, "e")  # done: all three read, the highlight after them
    wait_idle(qtbot, window)
    with Library(library_dir) as lib:
        assert lib.paper_ids(starred=True) == []
        assert set(lib.tags.papers("first tag")) >= set(three)
        read = {p.id for p in lib.list_papers() if p.read}
        assert read == set(three)
    assert window.current_id == window.model.id_at(window.model.row_of(three[-1]) + 1)
    press(qtbot, Key.Key_Z, Ctrl)  # undo "done" on three: one step
    wait_idle(qtbot, window)
    with Library(library_dir) as lib:
        assert not any(p.read for p in lib.list_papers())
    window.close()


def test_ctrl_a_selects_every_result_in_the_list_and_the_text_in_the_box(
    open_window, library_dir: Path, qtbot
) -> None:
    window = open_window(library_dir)
    type_text(qtbot, "learning")
    wait_search(qtbot, window, "learning")
    press(qtbot, Key.Key_A, Ctrl)  # in the box: its text
    assert window.search_box.selectedText() == "learning"
    press(qtbot, Key.Key_Down)
    press(qtbot, Key.Key_A, Ctrl)  # in the list: every hit
    wait_idle(qtbot, window)
    total = window.model.total
    assert total > 5
    assert window.paper_keys.count_label.text() == f"{total} selected of"
    press(qtbot, "r")
    wait_idle(qtbot, window)
    with Library(library_dir) as lib:
        hits = {h.id for h in lib.search_ids("learning", limit=1000, typing=True).hits}
        read = {p.id for p in lib.list_papers() if p.read}
    assert read == hits and len(read) == total
    window.close()


def test_delete_asks_when_notes_would_go_and_ctrl_z_brings_them_back(
    open_window, library_dir: Path, qtbot
) -> None:
    window = open_window(library_dir)
    into_list(qtbot, window, "learning")
    three = shown_ids(window, 3)
    with Library(library_dir) as lib:
        lib.set_note(three[0], "keep this")
        lib.set_note(three[2], "and this")
    for _ in range(2):
        press(qtbot, Key.Key_Down, Shift)
    press(qtbot, Key.Key_Delete)
    qtbot.waitUntil(lambda: window.paper_keys.deleter.box is not None)
    box = window.paper_keys.deleter.box
    assert box.text() == "2 of these papers have notes. Move to the trash anyway?"
    press(qtbot, Key.Key_Escape)  # keep them
    wait_idle(qtbot, window)
    with Library(library_dir) as lib:
        assert lib.trash.papers() == []

    press(qtbot, Key.Key_Delete)  # asked again; Enter moves them
    qtbot.waitUntil(lambda: window.paper_keys.deleter.box is not None)
    assert isinstance(window.paper_keys.deleter.box, QMessageBox)
    press(qtbot, Key.Key_Return)
    wait_idle(qtbot, window)
    with Library(library_dir) as lib:
        assert {t.paper.id for t in lib.trash.papers()} == set(three)
        assert not set(three) & set(lib.paper_ids())
    assert not set(three) & set(window.model.ids())  # the list shows they are gone
    press(qtbot, Key.Key_Z, Ctrl)
    wait_idle(qtbot, window)
    with Library(library_dir) as lib:
        assert lib.trash.papers() == []
        assert lib.paper(three[2]).note == "and this"
    window.close()


def test_delete_without_notes_is_not_asked_and_delete_in_the_box_edits_the_text(
    open_window, library_dir: Path, qtbot
) -> None:
    window = open_window(library_dir)
    into_list(qtbot, window, "learning")
    pid = window.current_id
    press(qtbot, Key.Key_Delete)
    wait_idle(qtbot, window)
    assert window.paper_keys.deleter.box is None
    with Library(library_dir) as lib:
        assert [t.paper.id for t in lib.trash.papers()] == [pid]
    press(qtbot, "k", Ctrl)
    press(qtbot, Key.Key_Home)
    press(qtbot, Key.Key_Delete)  # in the search box Delete deletes a character
    assert window.search_box.text() == "earning"
    wait_idle(qtbot, window)
    with Library(library_dir) as lib:
        assert len(lib.trash.papers()) == 1
    window.close()


def test_every_new_action_is_in_a_menu_with_its_keys_and_on_the_sheet(
    open_window, library_dir: Path, qtbot
) -> None:
    from desk.gui.dialogs.shortcut_sheet import ShortcutSheet

    window = open_window(library_dir)
    names = ("done", "tag", "delete", "paper_back", "paper_forward", "copy", "copy_titles", "select_all")
    for name in names:
        action = window.named_actions[name]
        menus = [m for m in action.associatedObjects() if isinstance(m, QMenu)]
        assert menus, name
        assert not action.shortcut().isEmpty(), name  # a menu writes it beside the text
    toggle = window.findChild(QAction, "action_mark_read")
    assert any(isinstance(m, QMenu) and m.title() == "&Paper" for m in toggle.associatedObjects())
    press(qtbot, Key.Key_F1)
    sheet = window.findChild(ShortcutSheet, "shortcutSheet")
    qtbot.waitUntil(lambda: sheet is not None and sheet.isVisible())
    entries = dict(sheet.entries())
    assert entries["Tag"] == "t"
    assert entries["Mark done (read) and go on"] == "e"
    assert entries["Move to the trash"] == "Del"
    assert entries["Paper read before"] == "Alt+Left"
    assert entries["Paper read after (forward)"] == "Alt+Right"
    assert entries["Copy the selected papers as Markdown"] == "Ctrl+C"
    assert entries["Select all results"] == "Ctrl+A"
    assert "Shift+↓" in entries["Select a range of results / more results"]
    window.close()


def test_ctrl_click_adds_a_row_and_shift_click_a_range(open_window, library_dir: Path, qtbot) -> None:
    window = open_window(library_dir)
    into_list(qtbot, window, "learning")
    view = window.results_view
    rows = [window.model.id_at(r) for r in range(6)]

    def click(row: int, modifier: Qt.KeyboardModifier = Qt.KeyboardModifier.NoModifier) -> None:
        centre = view.visualRect(window.model.index(row)).center()
        qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, modifier, centre)

    click(0)
    click(2, Ctrl)
    assert window.paper_keys.selection.selected_ids() == [rows[0], rows[2]]
    click(5, Shift)
    assert window.paper_keys.selection.selected_ids() == [rows[0], *rows[2:6]]
    press(qtbot, "s")
    wait_idle(qtbot, window)
    with Library(library_dir) as lib:
        assert set(lib.paper_ids(starred=True)) == {rows[0], *rows[2:6]}
    window.close()
