"""What a new researcher hit in the window's second pass, each driven by keys as a user does,
then the library read back through a fresh `Library`."""

from __future__ import annotations

from pathlib import Path

from gui_helpers import press, type_text, wait_search
from paper_helpers import into_list, type_unicode, wait_idle
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
        lib.tags.add([lib.paper_ids()[-1]], "older tag")  # made first: digit 1
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
        lib.tags.add([pid], '<img src="http://x/y.png">&amp;')
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


def test_the_filter_in_force_is_a_chip_and_a_typed_in_replaces_the_sidebars(
    open_window, library_dir: Path, qtbot
) -> None:
    from PySide6.QtWidgets import QApplication

    with Library(library_dir) as lib:
        per = lib.stats().collections
        chinese = {h.id for h in lib.search_ids('in:"ICML 2026 论文列表"', limit=1000).hits}
    window = open_window(library_dir)
    sidebar = window.sidebar
    qtbot.waitUntil(lambda: dict(sidebar.rows()).get("ICML 2026 Papers") is not None, timeout=10_000)
    entries = [label for label, _count in sidebar.rows()]
    press(qtbot, Key.Key_F6)
    assert QApplication.focusWidget() is sidebar
    # ↓ ×N lands N entries on (headings are no stops), Home on All papers, End on the last.
    start = entries.index(sidebar.currentItem().text(0))
    target = entries.index("ICML 2026 Papers")
    for _ in range(target - start):
        press(qtbot, Key.Key_Down)
    assert sidebar.currentItem().text(0) == "ICML 2026 Papers"
    wait_search(qtbot, window)
    assert window.controller.filter == 'in:"ICML 2026 Papers"'
    chip = window.search_bar.chip
    assert chip.isVisible() and "Collection: ICML 2026 Papers" in chip.text()  # where the search is
    press(qtbot, Key.Key_Home)
    wait_search(qtbot, window)
    assert sidebar.currentItem().text(0) == "All papers" and window.controller.filter == "all"
    assert not chip.isVisible()
    press(qtbot, Key.Key_End)
    assert sidebar.currentItem().text(0) == entries[-1]
    for _ in range(len(entries) - 1 - target):
        press(qtbot, Key.Key_Up)
    assert sidebar.currentItem().text(0) == "ICML 2026 Papers"
    press(qtbot, Key.Key_Return)  # the list has the keys; the entry stays highlighted
    wait_search(qtbot, window)
    assert window.focus.where() == "list"
    window.places.look(force=True)  # the counts come again: the entries are made anew
    wait_idle(qtbot, window)
    assert sidebar.currentItem() is not None and sidebar.currentItem().text(0) == "ICML 2026 Papers"
    assert sidebar.currentItem().isSelected()

    # A typed in: replaces the sidebar's: the other collection's papers, not none of both.
    press(qtbot, "k", Ctrl)
    type_text(qtbot, 'in:"ICML 2026 ')
    type_unicode('论文列表"')  # QTest's key table lacks these: key events carrying the text
    wait_search(qtbot, window, 'in:"ICML 2026 论文列表"')
    assert window.controller.filter == "all" and not chip.isVisible()
    assert set(window.model.ids()) == chinese and window.model.total == per["ICML 2026 论文列表"]
    assert sidebar.currentItem().text(0) == "All papers"
    press(qtbot, "S", Ctrl | Shift)  # saving it saves what is typed alone
    ask = window.places.ask
    qtbot.waitUntil(ask.isVisible)
    assert "in:" in ask.question.text() and ask.question.text().count("in:") == 1
    press(qtbot, Key.Key_Escape)

    # Backspace at the start of the box takes a chip away.
    window.show()
    press(qtbot, Key.Key_F6)
    while sidebar.currentItem().text(0) != "ICML 2026 Papers":
        press(qtbot, Key.Key_Down)
    wait_search(qtbot, window)
    press(qtbot, "k", Ctrl)
    press(qtbot, Key.Key_Backspace)  # the selected query goes first
    press(qtbot, Key.Key_Backspace)  # then the chip
    wait_search(qtbot, window)
    assert window.controller.filter == "all" and not chip.isVisible()


def test_the_sidebars_counts_follow_a_star_at_once(open_window, library_dir: Path, qtbot) -> None:
    window = open_window(library_dir)
    qtbot.waitUntil(lambda: dict(window.sidebar.rows()).get("Starred") == "0", timeout=10_000)
    into_list(qtbot, window, "policy")
    for n in (1, 2, 3):
        press(qtbot, "s")
        # At once (well under the library's two-second poll), each time.
        qtbot.waitUntil(lambda n=n: dict(window.sidebar.rows()).get("Starred") == str(n), timeout=1_000)
        press(qtbot, Key.Key_Down)
    with Library(library_dir) as lib:
        assert lib.stats().starred == 3


def test_triage_goes_through_the_unread_papers_of_the_list_on_screen(
    open_window, library_dir: Path, qtbot
) -> None:
    window = open_window(library_dir)
    type_text(qtbot, "policy gradi")  # the last word unfinished: searched as typed
    wait_search(qtbot, window, "policy gradi")
    shown = window.model.total
    press(qtbot, "t", Ctrl)
    qtbot.waitUntil(lambda: window.triaging)
    assert window.triage_view.counter.text() == f"Triage · {shown} of {shown} unread papers left"
    press(qtbot, Key.Key_Escape)


def test_the_status_bar_reads_as_one_phrase_and_sources_are_numbered_as_shown(
    open_window, library_dir: Path, qtbot, capsys
) -> None:
    from desk.cli.main import main

    window = open_window(library_dir)
    into_list(qtbot, window, "policy")
    press(qtbot, Key.Key_Down, Shift)
    words = f"{window.paper_keys.count_label.text()} {window.hits_label.text()}"
    assert words.startswith(f"2 selected of {window.model.total} papers · "), words
    pid = window.current_id
    qtbot.waitUntil(lambda: window.paper_view.paper is not None and window.paper_view.paper.id == pid)
    shown = window.paper_view.sources.text()
    window.close()
    with Library(library_dir) as lib:
        source = lib.paper(pid).sources[0]
        markdown = lib.export_markdown([pid], what="one")
    place = f"{source.file} #{source.index + 1}"  # the first abstract of a file is #1
    assert place in shown
    assert main(["--library", str(library_dir), "show", str(pid)]) == 0
    assert place in capsys.readouterr().out
    assert f"#{source.index + 1}" in markdown and f"#{source.index}\n" not in markdown
    assert main(["--library", str(library_dir), "show", str(pid), "--json"]) == 0
    import json

    assert json.loads(capsys.readouterr().out)["sources"][0]["index"] == source.index  # JSON: 0-based


def test_a_restart_highlights_the_paper_highlighted_at_close(open_window, library_dir: Path, qtbot) -> None:
    window = open_window(library_dir)
    into_list(qtbot, window, "policy")
    for _ in range(3):
        press(qtbot, Key.Key_Down)
    wait_idle(qtbot, window)
    chosen = window.current_id
    assert chosen is not None and chosen != window.model.id_at(0)
    window.close()

    again = open_window(library_dir)
    wait_idle(qtbot, again)
    assert again.search_box.text() == "policy"
    assert again.current_id == chosen  # not the best hit: the paper you were on
    assert again.model.id_at(again.results_view.currentIndex().row()) == chosen
    with Library(library_dir) as lib:
        assert lib.paper(chosen).id == chosen


def test_the_note_preview_renders_math_as_the_abstract_does(open_window, library_dir: Path, qtbot) -> None:
    window = open_window(library_dir)
    into_list(qtbot, window, "policy")
    pid = window.current_id
    press(qtbot, "n")
    qtbot.waitUntil(window.note_editor.hasFocus)
    type_text(qtbot, "an $\\epsilon$-greedy baseline, $O(n^2)$")
    press(qtbot, "p", Ctrl | Shift)  # the preview
    qtbot.waitUntil(window.note.is_preview)
    shown = window.note.preview.toPlainText()
    assert "\\epsilon" not in shown and "$" not in shown and "O(n²)" in shown
    window.close()
    with Library(library_dir) as lib:
        assert lib.paper(pid).note == "an $\\epsilon$-greedy baseline, $O(n^2)$"  # kept as written
