"""Ctrl+C / Ctrl+Shift+C copy the selected papers, Ctrl+E exports them: by keys, read back."""

from __future__ import annotations

from pathlib import Path

from gui_helpers import press, type_text, wait_search
from paper_helpers import into_list, shown_ids, wait_idle
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QFileDialog

from desk.core.library.facade import Library

Key = Qt.Key
Ctrl = Qt.KeyboardModifier.ControlModifier
Shift = Qt.KeyboardModifier.ShiftModifier


def test_ctrl_c_copies_the_selected_papers_as_markdown_and_ctrl_shift_c_their_titles(
    open_window, library_dir: Path, qtbot
) -> None:
    window = open_window(library_dir)
    clipboard = QApplication.clipboard()
    clipboard.setText("before")
    into_list(qtbot, window, "policy")
    two = shown_ids(window, 2)
    press(qtbot, Key.Key_Down, Shift)
    press(qtbot, Key.Key_C, Ctrl)
    qtbot.waitUntil(lambda: clipboard.text() != "before", timeout=10_000)
    text = clipboard.text()
    with Library(library_dir) as lib:
        papers = lib.papers(two)
    assert text.count("\n## ") + text.startswith("## ") == 2  # one heading a paper, in the list's order
    assert text.index(papers[0].title[:30]) < text.index(papers[1].title[:30])
    for paper in papers:
        assert paper.abstract.split()[-1].rstrip(".") in text  # each abstract, to its end
        assert paper.note == "" and "**Note**" not in text
    press(qtbot, Key.Key_C, Ctrl | Shift)
    qtbot.waitUntil(lambda: clipboard.text() != text, timeout=10_000)
    assert clipboard.text() == f"{papers[0].title}\n{papers[1].title}\n"

    press(qtbot, "k", Ctrl)  # in the search box Ctrl+C copies its text, not papers
    press(qtbot, Key.Key_C, Ctrl)
    assert clipboard.text() == "policy"
    window.close()


def test_ctrl_c_escapes_file_text_as_the_export_does(open_window, library_dir: Path, qtbot) -> None:
    """A title with Markdown's characters goes out escaped: pasted, it cannot become a link or emphasis."""
    with Library(library_dir) as lib:
        pid = lib.paper_ids()[0]
        # A word no seed paper holds: "starred" is stemmed "star" (the seeds have STAR-KV).
        lib.set_title(pid, "A *quokka* [link](http://x) # not a heading")
    window = open_window(library_dir)
    type_text(qtbot, "title:quokka")
    wait_search(qtbot, window, "title:quokka")
    press(qtbot, Key.Key_Down)
    wait_idle(qtbot, window)
    assert window.current_id == pid
    clipboard = QApplication.clipboard()
    clipboard.setText("before")
    press(qtbot, Key.Key_C, Ctrl)
    qtbot.waitUntil(lambda: clipboard.text() != "before", timeout=10_000)
    heading = clipboard.text().splitlines()[0]
    assert heading.startswith("## A \\*quokka\\* \\[link\\]")
    window.close()


def test_ctrl_e_with_several_selected_exports_them(
    open_window, library_dir: Path, tmp_path: Path, qtbot, monkeypatch
) -> None:
    from desk.gui.dialogs.export import ExportDialog

    out = tmp_path / "picked.md"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(lambda *a, **k: (str(out), "")))
    window = open_window(library_dir)
    into_list(qtbot, window, "learning")
    three = shown_ids(window, 3)
    press(qtbot, Key.Key_Down, Shift)
    press(qtbot, Key.Key_Down, Shift)
    wait_idle(qtbot, window)
    press(qtbot, Key.Key_E, Ctrl)
    qtbot.waitUntil(lambda: window.findChild(ExportDialog) is not None)
    dialog = window.findChild(ExportDialog)
    assert dialog.selected.isChecked() and "(3 papers)" in dialog.selected.text()
    press(qtbot, Key.Key_Return)  # the dialog's default button
    qtbot.waitUntil(out.exists, timeout=10_000)
    text = out.read_text(encoding="utf-8")
    with Library(library_dir) as lib:
        expected = lib.export_markdown(three, what="selected papers")
    assert text.splitlines()[1:] == expected.splitlines()[1:]
    assert "selected papers — 3 papers" in text.splitlines()[0]
    window.close()
