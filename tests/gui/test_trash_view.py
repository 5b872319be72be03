"""Removing a list from the sidebar and the trash, by keys: Delete on a collection asks (inline)
and trashes its papers; the trash entry lists them; Enter restores; Shift+Delete empties (asked);
the removed file can be imported again."""

from __future__ import annotations

from pathlib import Path

from gui_helpers import SEEDS, press
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication
from test_sidebar import count_of, go_to_entry, wait_idle

from desk.core.library.facade import Library

Key = Qt.Key
Shift = Qt.KeyboardModifier.ShiftModifier
CHINESE = "ICML 2026 论文列表"


def state(library_dir: Path) -> tuple[int, list[int]]:
    """(papers in the library, ids in the trash)."""
    with Library(library_dir) as lib:
        return lib.count(), [t.paper.id for t in lib.trash.papers()]


def test_remove_a_list_restore_from_the_trash_empty_it_and_import_the_file_again(
    open_window, library_dir: Path, qtbot
) -> None:
    with Library(library_dir) as lib:
        plan = lib.trash.list_removal(CHINESE)
    assert plan.trashed and plan.kept  # one abstract is in both lists: it stays
    window = open_window(library_dir)
    go_to_entry(qtbot, window, CHINESE)
    press(qtbot, Key.Key_Delete)
    qtbot.waitUntil(lambda: window.places.ask.asking)
    question = window.places.ask.question.text()
    assert f"{len(plan.trashed)} papers go to the trash" in question and "stay" in question
    press(qtbot, Key.Key_Return)
    qtbot.waitUntil(lambda: count_of(window, CHINESE) is None, timeout=10_000)
    papers, trashed = state(library_dir)
    assert papers == 94 - len(plan.trashed) and sorted(trashed) == sorted(plan.trashed)
    assert window.controller.filter == "all"  # the list in view went: all papers
    qtbot.waitUntil(lambda: count_of(window, "Removed papers") == str(len(plan.trashed)))

    go_to_entry(qtbot, window, "Removed papers")  # the trash in place of the list
    qtbot.waitUntil(lambda: window.places.removal.view.list.count() == len(plan.trashed))
    assert window.places.removal.showing and not window.search_bar.isEnabled()
    press(qtbot, Key.Key_Return)  # Enter: the keys into the trash
    assert QApplication.focusWidget() is window.places.removal.view.list
    first = window.places.removal.view.ids()[0]
    press(qtbot, Key.Key_Return)  # restore the highlighted paper
    qtbot.waitUntil(lambda: window.places.removal.view.list.count() == len(plan.trashed) - 1, timeout=10_000)
    papers, trashed = state(library_dir)
    assert first not in trashed and papers == 94 - len(plan.trashed) + 1

    press(qtbot, Key.Key_Delete, Shift)  # empty the trash: asked first, Esc keeps it
    qtbot.waitUntil(lambda: window.places.removal.view.ask.asking)
    press(qtbot, Key.Key_Escape)
    assert len(state(library_dir)[1]) == len(plan.trashed) - 1
    press(qtbot, Key.Key_Delete, Shift)
    qtbot.waitUntil(lambda: window.places.removal.view.ask.asking)
    press(qtbot, Key.Key_Return)
    qtbot.waitUntil(lambda: window.places.removal.view.list.count() == 0, timeout=10_000)
    assert state(library_dir)[1] == []

    press(qtbot, Key.Key_Escape)  # back to the list
    assert not window.places.removal.showing and window.search_bar.isEnabled()
    assert QApplication.focusWidget() is window.results_view
    wait_idle(qtbot, window)
    window.close()
    with Library(library_dir) as lib:  # the removed files can be imported again
        files = [SEEDS / f for f in plan.files]
        report = lib.import_paths(files)
        assert report.added == len(plan.trashed) - 1 and not report.errors
        assert lib.check() == []
