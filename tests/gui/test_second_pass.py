"""What a new researcher hit in the window's second pass, each driven by keys as a user does,
then the library read back through a fresh `Library`."""

from __future__ import annotations

from pathlib import Path

from gui_helpers import press, type_text, wait_search
from paper_helpers import into_list, wait_idle
from PySide6.QtCore import Qt

from desk.core.library.facade import Library

Key = Qt.Key
Ctrl = Qt.KeyboardModifier.ControlModifier
Shift = Qt.KeyboardModifier.ShiftModifier


def test_ctrl_z_after_esc_esc_undoes_the_star_not_the_query(open_window, library_dir: Path, qtbot) -> None:
    window = open_window(library_dir)
    into_list(qtbot, window, "policy")
    pid = window.current_id
    press(qtbot, "s")
    wait_idle(qtbot, window)
    with Library(library_dir) as lib:
        assert lib.paper(pid).starred
        title = lib.paper(pid).title
    press(qtbot, Key.Key_Escape)  # the list → the search box, the query kept
    assert window.focus.where() == "search"
    press(qtbot, Key.Key_Z, Ctrl)
    wait_idle(qtbot, window)
    assert window.search_box.text() == "policy"  # the query is not taken back
    with Library(library_dir) as lib:
        assert not lib.paper(pid).starred  # the star is
    # The status line names the paper by its title, not its id.
    message = window.statusBar().currentMessage()
    assert message.startswith("Undid: unstar") or message.startswith("Undid: star"), message
    assert title[:20] in message and f"paper {pid}" not in message
    # Ctrl+Shift+Z does it again, from the box too.
    press(qtbot, Key.Key_Z, Ctrl | Shift)
    wait_idle(qtbot, window)
    assert window.search_box.text() == "policy"
    with Library(library_dir) as lib:
        assert lib.paper(pid).starred


def test_ctrl_z_after_a_note_and_esc_esc_undoes_the_note(open_window, library_dir: Path, qtbot) -> None:
    window = open_window(library_dir)
    into_list(qtbot, window, "policy")
    pid = window.current_id
    press(qtbot, "n")
    qtbot.waitUntil(window.note_editor.hasFocus)
    type_text(qtbot, "compare with RACER")
    press(qtbot, Key.Key_Escape)  # note → list (saved on the way out)
    press(qtbot, Key.Key_Escape)  # list → box
    wait_idle(qtbot, window)
    with Library(library_dir) as lib:
        assert lib.paper(pid).note == "compare with RACER"
    press(qtbot, Key.Key_Z, Ctrl)
    wait_idle(qtbot, window)
    assert window.search_box.text() == "policy"
    with Library(library_dir) as lib:
        assert lib.paper(pid).note == ""


def test_ctrl_z_in_the_box_just_typed_in_undoes_the_typing(open_window, library_dir: Path, qtbot) -> None:
    window = open_window(library_dir)
    into_list(qtbot, window, "policy")
    pid = window.current_id
    press(qtbot, "s")
    wait_idle(qtbot, window)
    press(qtbot, Key.Key_Escape)
    type_text(qtbot, " gradient")  # typed since the box got the keys: Ctrl+Z is the text's
    wait_search(qtbot, window, "policy gradient")
    press(qtbot, Key.Key_Z, Ctrl)
    wait_idle(qtbot, window)
    assert window.search_box.text() != "policy gradient"
    with Library(library_dir) as lib:
        assert lib.paper(pid).starred  # the star stays


def test_the_sheet_says_the_ctrl_z_rule_and_the_trash_keys(open_window, library_dir: Path, qtbot) -> None:
    from desk.gui.dialogs.shortcut_sheet import ShortcutSheet

    window = open_window(library_dir)
    press(qtbot, Key.Key_F1)
    sheet = window.findChild(ShortcutSheet, "shortcutSheet")
    keys = {what: k for what, k in sheet.entries()}
    rule = next(what for what in keys if what.startswith("Undo / redo the library"))
    assert "typed in" in rule and "Ctrl+Z" in keys[rule]
    trash = next(what for what in keys if what.startswith("In the trash"))
    assert "Shift+Delete" in keys[trash] and "Enter" in keys[trash]
    sheet.close()


def test_e_in_the_reading_pane_marks_done_and_moves_on_so_s_stars_the_next(
    open_window, library_dir: Path, qtbot
) -> None:
    window = open_window(library_dir)
    into_list(qtbot, window, "policy")
    row = window.results_view.currentIndex().row()
    first, second = window.model.id_at(row), window.model.id_at(row + 1)
    press(qtbot, Key.Key_Return)  # read it
    qtbot.waitUntil(window.abstract_view.hasFocus)
    press(qtbot, "e")  # done with it: the next one, at once
    press(qtbot, "s")  # typed straight after: stars the next paper, not the one finished
    wait_idle(qtbot, window)
    assert window.current_id == second
    assert window.abstract_view.hasFocus()  # the keys stay in the reading pane
    qtbot.waitUntil(lambda: window.paper_view.paper is not None and window.paper_view.paper.id == second)
    with Library(library_dir) as lib:
        done, following = lib.papers([first, second])
    assert done.read and not done.starred
    assert following.starred


def test_e_in_the_list_moves_on_before_the_write_lands(open_window, library_dir: Path, qtbot) -> None:
    window = open_window(library_dir)
    into_list(qtbot, window, "policy")
    row = window.results_view.currentIndex().row()
    first, second = window.model.id_at(row), window.model.id_at(row + 1)
    press(qtbot, "e")
    press(qtbot, "s")
    wait_idle(qtbot, window)
    with Library(library_dir) as lib:
        done, following = lib.papers([first, second])
    assert done.read and not done.starred and following.starred


def test_a_tag_shows_as_a_chip_on_its_row_and_in_the_reading_pane_with_its_digit(
    open_window, library_dir: Path, qtbot
) -> None:
    from desk.gui.search.model import Roles

    with Library(library_dir) as lib:
        lib.tag([lib.paper_ids()[-1]], "older tag")  # made first: digit 1
    window = open_window(library_dir)
    into_list(qtbot, window, "policy")
    pid = window.current_id
    press(qtbot, "t")
    type_text(qtbot, "reading group")
    press(qtbot, Key.Key_Return)
    wait_idle(qtbot, window)
    row = window.model.index(window.model.row_of(pid))
    qtbot.waitUntil(lambda: window.model.data(row, Roles.TagChips) == ("2 reading group",))
    press(qtbot, "1")  # the first tag's digit: a second chip
    wait_idle(qtbot, window)
    qtbot.waitUntil(lambda: window.model.data(row, Roles.TagChips) == ("1 older tag", "2 reading group"))
    qtbot.waitUntil(lambda: window.paper_view.chips() == ("1 older tag", "2 reading group"))
    assert window.paper_view.tags.isVisible()
    assert "reading group" in window.paper_view.tags.text()
    with Library(library_dir) as lib:
        assert lib.paper(pid).tags == ("older tag", "reading group")


def test_a_tag_name_is_shown_as_text_never_as_markup(open_window, library_dir: Path, qtbot) -> None:
    with Library(library_dir) as lib:
        pid = lib.paper_ids()[0]
        lib.tag([pid], '<img src="http://x/y.png">&amp;')
    window = open_window(library_dir)
    window.show_paper(pid)
    qtbot.waitUntil(lambda: window.paper_view.chips() == ('1 <img src="http://x/y.png">&amp;',))
    assert "&lt;img" in window.paper_view.tags.text() and "<img" not in window.paper_view.tags.text()
    assert "&amp;amp;" in window.paper_view.tags.text()


def test_a_half_typed_field_word_shows_its_completions_as_it_is_typed(
    open_window, library_dir: Path, qtbot
) -> None:
    window = open_window(library_dir)
    type_text(qtbot, "title:gra")
    wait_search(qtbot, window, "title:gra")
    assert window.model.total > 0  # not "No paper matches"
    with Library(library_dir) as lib:
        titles = [lib.paper(window.model.id_at(r)).title.lower() for r in range(window.model.rowCount())]
    assert all(any(w.startswith("gra") for w in t.replace("-", " ").split()) for t in titles), titles
