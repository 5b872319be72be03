"""Smaller window details: state per library, the sheet, the note preview,
sources from 1, related papers, appearance, the reading measure and the first run."""

from __future__ import annotations

import shutil
from pathlib import Path

from gui_helpers import SEEDS, press, type_text, wait_ready, wait_search
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from desk.gui import theme
from desk.gui.dialogs.shortcut_sheet import ShortcutSheet
from desk.gui.keymap import ACTIONS

Key = Qt.Key


def test_two_libraries_keep_their_own_last_query(
    open_window, library_dir: Path, tmp_path: Path, qtbot
) -> None:
    other = tmp_path / "other-library"
    shutil.copytree(library_dir, other)
    for directory, query in ((library_dir, "policy"), (other, "diffusion")):
        window = open_window(directory)
        type_text(qtbot, query)
        wait_search(qtbot, window, query)
        window.close()
    assert open_window(library_dir).search_box.text() == "policy"
    assert open_window(other).search_box.text() == "diffusion"
    fresh = tmp_path / "fresh-library"
    shutil.copytree(library_dir, fresh)
    window = open_window(fresh)  # a library never opened: no other library's query
    assert window.search_box.text() == ""
    assert window.suggestion_label.text() == ""


def test_the_sheet_writes_single_keys_in_lowercase_and_shows_them_whole(
    open_window, library_dir: Path, qtbot
) -> None:
    window = open_window(library_dir)
    press(qtbot, Key.Key_F1)
    sheet = window.findChild(ShortcutSheet, "shortcutSheet")
    qtbot.waitUntil(lambda: sheet is not None and sheet.isVisible())
    entries = dict(sheet.entries())
    star = next(s for s in ACTIONS if s.name == "star").text.replace("&", "")
    assert entries[star] == "s"
    assert entries["Merge, keeping the right paper"] == "Shift+M"
    assert not [keys for keys in entries.values() if len(keys) == 1 and keys.isupper()]
    tree = sheet.tree
    metrics = tree.fontMetrics()
    for column in (0, 1):  # every cell fits its column: nothing is cut with "…"
        widest = max(metrics.horizontalAdvance(text[column]) for text in sheet.entries())
        assert tree.columnWidth(column) >= widest


def test_the_note_preview_is_for_the_paper_in_view(open_window, library_dir: Path, qtbot) -> None:
    window = open_window(library_dir)
    qtbot.waitUntil(lambda: window.note.paper_id is not None)
    window.reading.toggle_preview()
    assert window.note.is_preview()
    assert "(no note yet)" not in window.note.preview.toPlainText()
    assert not window.note.preview.document().firstBlock().charFormat().font().bold()
    window.results_view.setFocus()
    first = window.current_id
    press(qtbot, Key.Key_Down)
    qtbot.waitUntil(lambda: window.note.paper_id not in (None, first))
    assert not window.note.is_preview()


def test_sources_are_counted_from_one_in_the_window(open_window, library_dir: Path, qtbot) -> None:
    from desk.core.library.facade import Library

    window = open_window(library_dir)
    qtbot.waitUntil(lambda: window.paper_view.paper is not None)
    paper = window.paper_view.paper
    shown = window.paper_view.sources.text()
    assert all(f"{s.file} #{s.index + 1}" in shown for s in paper.sources)
    with Library(library_dir) as lib:  # the core (and the CLI) keep the file's 0-based index
        assert [s.index for s in lib.paper(paper.id).sources] == [s.index for s in paper.sources]


def test_related_papers_have_a_snippet_and_no_repeated_short_name(
    open_window, library_dir: Path, qtbot
) -> None:
    window = open_window(library_dir)
    press(qtbot, "r", Ctrl := Qt.KeyboardModifier.ControlModifier)
    del Ctrl
    qtbot.waitUntil(lambda: window.related.list.count() > 0)
    for i in range(window.related.list.count()):
        title, _, snippet = window.related.list.item(i).text().partition("\n")
        assert snippet.strip(), title
        assert "[" not in title


def test_appearance_is_chosen_in_the_window_and_kept(open_window, library_dir: Path, qtbot) -> None:
    app = QApplication.instance()
    window = open_window(library_dir)
    try:
        window.appearance["dark"].trigger()
        assert theme.is_dark(app.palette())
        window.close()
        window = open_window(library_dir)
        assert window.appearance["dark"].isChecked() and theme.is_dark(app.palette())
        window.appearance["light"].trigger()
        assert not theme.is_dark(app.palette())
    finally:
        window.set_scheme("system")


def test_the_abstract_keeps_a_reading_measure(open_window, library_dir: Path, qtbot) -> None:
    window = open_window(library_dir)
    window.resize(1600, 800)
    window.main_splitter.setSizes([300, 1300])
    qtbot.waitUntil(lambda: window.paper_view.paper is not None)
    wide = window.paper_view.measure_px() + 100
    qtbot.waitUntil(lambda: window.paper_view.width() > wide + 100)
    chars = (
        window.abstract_view.lineWrapColumnOrWidth() / window.abstract_view.fontMetrics().averageCharWidth()
    )
    assert 80 <= chars <= 100
    # a pane wider than the measure holds the paper as one centred column: title, details, abstract
    box = window.abstract_view.geometry()
    left, right = box.left(), window.paper_view.width() - box.right()
    assert left > 40 and abs(left - right) <= 4, (left, right)
    assert window.paper_view.title.geometry().left() == left
    window.main_splitter.setSizes([1800, 600])  # narrower than the measure: the pane's width
    qtbot.waitUntil(lambda: window.abstract_view.viewport().width() < wide - 100)
    assert window.abstract_view.lineWrapColumnOrWidth() < window.abstract_view.viewport().width(), (
        window.abstract_view.lineWrapColumnOrWidth(),
        window.abstract_view.viewport().width(),
    )


def test_the_first_run_says_these_are_sample_lists(open_window, tmp_path: Path, qtbot) -> None:
    window = open_window(tmp_path / "new-library", seeds=SEEDS, wait=False)
    wait_ready(qtbot, window)
    qtbot.waitUntil(window.welcome.isVisible)
    text = window.welcome.text()
    assert "sample lists" in text and "Ctrl+I" in text and "desk import" in text and "drop" in text
    window.welcome.linkActivated.emit("hide")
    assert not window.welcome.isVisible()
    window.close()
    again = open_window(tmp_path / "new-library")
    assert not again.welcome.isVisible()


def test_an_ordinary_library_has_no_first_run_note(open_window, library_dir: Path) -> None:
    assert not open_window(library_dir).welcome.isVisible()
