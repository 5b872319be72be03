"""Where the keys go: typing, ↓, Enter, single letters, Esc, the focus mark.

Each test types as a user does — every key goes to whatever has the focus — and checks the
database afterwards, not only the screen.
"""

from __future__ import annotations

from pathlib import Path

from gui_helpers import press, type_text, wait_search
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QDialog

from desk.core.library.facade import Library

Key = Qt.Key
Ctrl = Qt.KeyboardModifier.ControlModifier


def starred_in_library(library_dir: Path) -> set[int]:
    with Library(library_dir) as lib:
        return set(lib.paper_ids(starred=True))


def third_hit_after(window, qtbot, keys: list[Key | str]) -> int:
    """Type "policy", wait for its hits, press `keys`; the id of the third hit."""
    type_text(qtbot, "policy")
    wait_search(qtbot, window, "policy")
    third = window.model.id_at(2)
    assert third is not None
    for key in keys:
        press(qtbot, key)
    return third


def test_down_down_s_stars_the_third_hit_and_leaves_the_query(open_window, library_dir: Path, qtbot) -> None:
    window = open_window(library_dir)
    assert starred_in_library(library_dir) == set()
    third = third_hit_after(window, qtbot, [Key.Key_Down, Key.Key_Down, "s"])
    qtbot.waitUntil(lambda: window.model.summary(third) is not None and window.model.summary(third).starred)
    assert window.search_box.text() == "policy"
    assert window.controller.shown_text == "policy"
    assert window.results_view.currentIndex().row() == 2
    window.close()
    assert starred_in_library(library_dir) == {third}


def test_down_down_enter_s_stars_the_third_hit(open_window, library_dir: Path, qtbot) -> None:
    window = open_window(library_dir)
    third = third_hit_after(window, qtbot, [Key.Key_Down, Key.Key_Down, Key.Key_Return])
    qtbot.waitUntil(window.abstract_view.hasFocus)
    press(qtbot, "s")
    qtbot.waitUntil(lambda: window.model.summary(third) is not None and window.model.summary(third).starred)
    assert window.search_box.text() == "policy"
    window.close()
    assert starred_in_library(library_dir) == {third}


def test_keys_typed_before_the_search_lands_act_on_its_hits(open_window, library_dir: Path, qtbot) -> None:
    """ "policy ↓ ↓ s" typed in one go: the star goes to the third hit for "policy"."""
    window = open_window(library_dir)
    landed: list[list[int]] = []  # the hits for "policy" as the keys found them
    window.controller.searched.connect(
        lambda outcome: outcome.query == "policy" and not landed and landed.append(window.model.ids())
    )
    type_text(qtbot, "policy")
    press(qtbot, Key.Key_Down)  # no wait: the search for "policy" is still on its way
    press(qtbot, Key.Key_Down)
    press(qtbot, "s")
    wait_search(qtbot, window, "policy")
    qtbot.waitUntil(lambda: bool(landed) and len(starred_in_library(library_dir)) == 1, timeout=10_000)
    third = landed[0][2]
    assert window.search_box.text() == "policy"
    window.close()
    assert starred_in_library(library_dir) == {third}


def test_a_character_typed_in_the_list_goes_to_the_search_box(open_window, library_dir: Path, qtbot) -> None:
    window = open_window(library_dir)
    type_text(qtbot, "policy")
    wait_search(qtbot, window, "policy")
    press(qtbot, Key.Key_Down)
    assert window.results_view.hasFocus()
    for char in " gradient":  # each key to whatever has the focus: after the space, the box
        press(qtbot, char)
    assert window.search_box.hasFocus()
    assert window.search_box.text() == "policy gradient"
    wait_search(qtbot, window, "policy gradient")
    press(qtbot, Key.Key_Down)
    press(qtbot, Key.Key_Backspace)  # Backspace too
    assert window.search_box.hasFocus() and window.search_box.text() == "policy gradien"
    press(qtbot, Key.Key_Down)
    press(qtbot, "x")  # a letter that is no shortcut: typed after the query
    assert window.search_box.hasFocus() and window.search_box.text() == "policy gradienx"
    window.close()
    assert starred_in_library(library_dir) == set()


def test_slash_and_ctrl_k_from_the_list_select_the_query(open_window, library_dir: Path, qtbot) -> None:
    window = open_window(library_dir)
    type_text(qtbot, "policy")
    wait_search(qtbot, window, "policy")
    for key, modifier in (("/", Qt.KeyboardModifier.NoModifier), ("k", Ctrl)):
        press(qtbot, Key.Key_Down)
        assert window.results_view.hasFocus()
        press(qtbot, key, modifier)
        assert window.search_box.hasFocus()
        assert window.search_box.selectedText() == "policy"
        assert window.search_box.text() == "policy"


def test_up_on_the_first_hit_goes_back_to_the_search_box(open_window, library_dir: Path, qtbot) -> None:
    window = open_window(library_dir)
    press(qtbot, Key.Key_Down)
    assert window.results_view.hasFocus() and window.results_view.currentIndex().row() == 1
    press(qtbot, Key.Key_Up)
    assert window.results_view.hasFocus() and window.results_view.currentIndex().row() == 0
    press(qtbot, Key.Key_Up)
    assert window.search_box.hasFocus()


def test_esc_steps_back_and_then_question_mark_opens_the_sheet(open_window, library_dir: Path, qtbot) -> None:
    window = open_window(library_dir)
    type_text(qtbot, "policy")
    wait_search(qtbot, window, "policy")
    press(qtbot, Key.Key_Return)
    qtbot.waitUntil(window.abstract_view.hasFocus)
    press(qtbot, Key.Key_Escape)  # reading → list
    assert window.results_view.hasFocus()
    press(qtbot, "?")
    sheet = window.findChild(QDialog, "shortcutSheet")
    qtbot.waitUntil(lambda: sheet is not None and sheet.isVisible())
    assert window.search_box.text() == "policy"
    sheet.close()
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    window.results_view.setFocus()
    press(qtbot, "n")  # the note, then Esc back to the list, Esc to the box
    qtbot.waitUntil(window.note_editor.hasFocus)
    press(qtbot, Key.Key_Escape)
    assert window.results_view.hasFocus()
    press(qtbot, Key.Key_Escape)
    assert window.search_box.hasFocus()
    assert window.search_box.text() == "policy" and not window.search_box.hasSelectedText()


def test_the_pane_with_the_keys_is_marked(open_window, library_dir: Path, qtbot) -> None:
    """The frame of the focused pane is drawn in the highlight colour; the others' are not."""
    window = open_window(library_dir)

    def frame_colour(widget) -> str:
        image = widget.grab().toImage()
        return image.pixelColor(1, image.height() // 2).name()

    accent = window.palette().color(window.palette().ColorRole.Highlight).name()
    assert window.search_box.hasFocus()
    assert frame_colour(window.search_box) == accent
    assert frame_colour(window.results_view) != accent
    press(qtbot, Key.Key_Down)
    assert QApplication.focusWidget() is window.results_view
    assert frame_colour(window.results_view) == accent
    assert frame_colour(window.search_box) != accent
