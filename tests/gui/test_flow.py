"""A researcher at the keyboard: search, move, star, write a note, go back, search again."""

from __future__ import annotations

from pathlib import Path

from gui_helpers import press, type_text, wait_search
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from desk.core.library.facade import Library

Key = Qt.Key
Ctrl = Qt.KeyboardModifier.ControlModifier


def test_main_widgets_have_their_names(open_window, library_dir: Path) -> None:
    from PySide6.QtWidgets import QLineEdit, QListView, QPlainTextEdit, QStatusBar, QTextBrowser

    window = open_window(library_dir)
    assert isinstance(window.findChild(QLineEdit, "searchBox"), QLineEdit)
    assert isinstance(window.findChild(QListView, "resultsView"), QListView)
    assert isinstance(window.findChild(QTextBrowser, "abstractView"), QTextBrowser)
    assert isinstance(window.findChild(QPlainTextEdit, "noteEditor"), QPlainTextEdit)
    assert isinstance(window.findChild(QStatusBar, "statusBar"), QStatusBar)
    assert window.search_box.hasFocus()
    # The first list's count, the library's folder, then the application's name once (Qt adds
    # " — desk" to no other title).
    assert window.windowTitle() == f"{window.model.total} papers — {library_dir.name} — desk"


def test_the_title_says_what_the_list_holds_once_a_search_lands(
    open_window, library_dir: Path, qtbot
) -> None:
    """A window switcher (and a script on a real display) reads what the window lists."""
    window = open_window(library_dir)
    type_text(qtbot, "policy")
    wait_search(qtbot, window, "policy")
    total = window.model.total
    assert 1 < total < 94
    assert window.windowTitle() == f"policy · {total} papers — {library_dir.name} — desk"
    type_text(qtbot, " diffusion")  # the next search: the title follows it
    wait_search(qtbot, window, "policy diffusion")
    assert window.model.total != total
    shown = window.model.total
    assert window.windowTitle() == f"policy diffusion · {shown} papers — {library_dir.name} — desk"


def test_a_long_query_is_cut_in_the_title_and_one_paper_is_one() -> None:
    from desk.gui.main.result_flow import TITLE_QUERY_CHARS, counted_title

    assert counted_title("lib — desk", "  graph   neural ", 1) == "graph neural · 1 paper — lib — desk"
    assert counted_title("desk", "", 12345) == "12,345 papers — desk"
    long = counted_title("desk", "word " * 30, 2)
    shown = long.split(" · ")[0]
    assert len(shown) == TITLE_QUERY_CHARS and shown.endswith("…")


def test_keyboard_flow_reaches_the_library(open_window, library_dir: Path, qtbot) -> None:
    window = open_window(library_dir)
    type_text(qtbot, "policy")
    wait_search(qtbot, window, "policy")
    assert window.model.rowCount() > 3
    assert "paper" in window.hits_label.text() and "ms" in window.hits_label.text()

    # ↓ from the search box moves the highlight and the keys into the list.
    assert window.results_view.currentIndex().row() == 0
    press(qtbot, Key.Key_Down)
    assert window.results_view.hasFocus()
    press(qtbot, Key.Key_Down)
    assert window.results_view.currentIndex().row() == 2
    press(qtbot, Key.Key_Up)
    assert window.results_view.currentIndex().row() == 1
    assert window.search_box.text() == "policy"

    # Enter opens the paper; j/k move outside text fields.
    press(qtbot, Key.Key_Return)
    qtbot.waitUntil(window.abstract_view.hasFocus)
    press(qtbot, "j")
    press(qtbot, "j")
    assert window.results_view.currentIndex().row() == 3
    press(qtbot, "k")
    assert window.results_view.currentIndex().row() == 2
    starred_id = window.model.id_at(2)
    qtbot.waitUntil(lambda: window.paper_view.paper is not None and window.paper_view.paper.id == starred_id)

    # s stars it.
    press(qtbot, "s")
    qtbot.waitUntil(lambda: window.model.summary(starred_id).starred)

    # n goes to the note; letters are typed, not taken as shortcuts.
    press(qtbot, "n")
    qtbot.waitUntil(window.note_editor.hasFocus)
    note = "Read for the group: compare with *RACER*. jks"
    type_text(qtbot, note)
    assert window.note_editor.toPlainText() == note
    qtbot.waitUntil(lambda: window.note.state_text() == "Saved", timeout=5000)
    qtbot.waitUntil(lambda: window.model.summary(starred_id).has_note)

    # Esc steps back: note → list → search box; a new query, then back to the first one.
    press(qtbot, Key.Key_Escape)
    assert window.results_view.hasFocus()
    press(qtbot, Key.Key_Escape)
    assert window.search_box.hasFocus()
    assert window.search_box.text() == "policy" and not window.search_box.hasSelectedText()
    press(qtbot, "k", Ctrl)  # Ctrl+K selects the query: typing replaces it
    type_text(qtbot, "diffusion")
    wait_search(qtbot, window, "diffusion")
    assert window.search_box.text() == "diffusion"
    assert window.controller.shown_text == "diffusion"  # answers to "d", "di", … were dropped or replaced
    press(qtbot, "k", Ctrl)
    type_text(qtbot, "policy")
    wait_search(qtbot, window, "policy")
    assert window.model.row_of(starred_id) is not None
    qtbot.waitUntil(lambda: window.model.summary(starred_id) is not None)
    summary = window.model.summary(starred_id)
    assert summary.starred and summary.has_note

    window.close()
    with Library(library_dir) as lib:
        paper = lib.paper(starred_id)
        assert paper.starred
        assert paper.note == note
        assert lib.stats().starred == 1


def test_read_toggle_and_filters(open_window, library_dir: Path, qtbot) -> None:
    window = open_window(library_dir)
    total = window.model.total
    press(qtbot, Key.Key_Return)
    qtbot.waitUntil(window.abstract_view.hasFocus)
    pid = window.current_id
    press(qtbot, "r")
    qtbot.waitUntil(lambda: window.model.summary(pid).read)
    press(qtbot, "3", Ctrl)  # Unread
    qtbot.waitUntil(lambda: not window.controller.pending() and window.model.total == total - 1)
    assert window.model.row_of(pid) is None
    press(qtbot, "2", Ctrl)  # Starred: none yet
    qtbot.waitUntil(lambda: not window.controller.pending() and window.model.total == 0)
    press(qtbot, "1", Ctrl)
    qtbot.waitUntil(lambda: not window.controller.pending() and window.model.total == total)
    assert window.model.row_of(pid) is not None
    window.close()
    with Library(library_dir) as lib:
        assert lib.paper(pid).read
        assert lib.stats().read == 1


def test_note_saved_on_paper_change_and_on_close(open_window, library_dir: Path, qtbot) -> None:
    window = open_window(library_dir)
    first = window.current_id
    press(qtbot, Key.Key_Return, Ctrl)  # from the search box straight to the note
    qtbot.waitUntil(window.note_editor.hasFocus)
    type_text(qtbot, "first note")
    press(qtbot, Key.Key_Escape)  # leaves the note for the list; moving on saves it right away
    press(qtbot, Key.Key_Down)
    qtbot.waitUntil(lambda: window.current_id != first)
    second = window.current_id
    qtbot.waitUntil(lambda: window.note.paper_id == second)
    press(qtbot, Key.Key_Return, Ctrl)
    qtbot.waitUntil(window.note_editor.hasFocus)
    type_text(qtbot, "second note, closed at once")
    window.close()  # before the autosave timer fires
    with Library(library_dir) as lib:
        assert lib.paper(first).note == "first note"
        assert lib.paper(second).note == "second note, closed at once"


def test_rename_with_f2_in_place(open_window, library_dir: Path, qtbot) -> None:
    window = open_window(library_dir)
    pid = window.current_id
    qtbot.waitUntil(lambda: window.paper_view.paper is not None)
    press(qtbot, Key.Key_F2)  # the title becomes a line to edit, in place: no dialog
    edit = window.paper_view.title_edit
    qtbot.waitUntil(lambda: QApplication.focusWidget() is edit)
    assert QApplication.activeModalWidget() is None
    press(qtbot, Key.Key_Escape)  # Esc leaves it as it was, and the keys go back
    assert not edit.isVisible() and window.search_box.hasFocus()
    press(qtbot, Key.Key_F2)
    qtbot.waitUntil(lambda: QApplication.focusWidget() is edit)
    type_text(qtbot, "A better title")  # the old title was selected: typing replaces it
    press(qtbot, Key.Key_Return)
    assert not edit.isVisible() and window.search_box.hasFocus()
    qtbot.waitUntil(lambda: window.model.summary(pid).title == "A better title")
    qtbot.waitUntil(lambda: window.paper_view.title.text() == "A better title")
    window.close()
    with Library(library_dir) as lib:
        assert lib.paper(pid).title == "A better title"


def test_related_panel_opens_a_paper_with_enter(open_window, library_dir: Path, qtbot) -> None:
    window = open_window(library_dir)
    first = window.current_id
    press(qtbot, "r", Ctrl)
    qtbot.waitUntil(lambda: window.related.list.count() > 0)
    assert window.related.list.hasFocus()
    target = window.related.list.currentItem().data(Qt.ItemDataRole.UserRole + 1)
    assert target != first
    press(qtbot, Key.Key_Return)
    qtbot.waitUntil(lambda: window.paper_view.paper is not None and window.paper_view.paper.id == target)
    assert window.abstract_view.hasFocus()


def test_suggestion_is_offered_and_taken(open_window, library_dir: Path, qtbot) -> None:
    window = open_window(library_dir)
    type_text(qtbot, "reinforcment lerning")
    wait_search(qtbot, window, "reinforcment lerning")
    assert "reinforcement" in window.suggestion_label.text()
    press(qtbot, "d", Ctrl)
    qtbot.waitUntil(lambda: "reinforcement" in window.search_box.text())
    wait_search(qtbot, window)
    assert window.model.rowCount() > 0


def test_a_query_that_does_not_parse_keeps_the_results(open_window, library_dir: Path, qtbot) -> None:
    window = open_window(library_dir)
    type_text(qtbot, "policy")
    wait_search(qtbot, window, "policy")
    before = window.model.ids()
    type_text(qtbot, " (")
    wait_search(qtbot, window, "policy (")
    type_text(qtbot, "NOT")
    wait_search(qtbot, window, "policy (NOT")
    assert window.query_message.isVisible() and "NOT" in window.query_message.text()
    assert window.model.ids() == before  # "policy" is what is complete


def test_an_open_quote_searches_the_phrase_started(open_window, library_dir: Path, qtbot) -> None:
    window = open_window(library_dir)
    type_text(qtbot, "policy")
    wait_search(qtbot, window, "policy")
    window.search_box.selectAll()
    type_text(qtbot, '"large lang')
    wait_search(qtbot, window, '"large lang')
    assert window.query_message.isVisible() and "“large lang…”" in window.query_message.text()
    assert window.suggestion_label.text() == ""
    ids = window.model.ids()
    assert ids
    with Library(library_dir) as lib:
        for paper_id in ids:
            assert "large lang" in " ".join(lib.paper(paper_id).abstract.lower().split())
    shown = list(ids)
    QApplication.clipboard().setText("title:")  # pasted over the query: no search for "titl" between
    window.search_box.selectAll()
    press(qtbot, "v", Ctrl)
    wait_search(qtbot, window, "title:")
    assert window.model.ids() == shown  # nothing new to search: the list stays
    assert "“title:” needs a word after it." in window.query_message.text()
    assert window.suggestion_label.text() == ""


def test_enter_right_after_typing_opens_the_best_hit(open_window, library_dir: Path, qtbot) -> None:
    window = open_window(library_dir)
    type_text(qtbot, "diffusion")
    press(qtbot, Key.Key_Return)  # before the debounce has run the search
    qtbot.waitUntil(window.abstract_view.hasFocus)
    assert window.controller.shown_text == "diffusion"
    assert window.current_id == window.model.id_at(0)
    qtbot.waitUntil(
        lambda: window.paper_view.paper is not None and window.paper_view.paper.id == window.current_id
    )
