"""The hint under the search box: it never takes width or moves the list."""

from __future__ import annotations

from pathlib import Path

from gui_helpers import type_text, wait_search


def test_a_hint_neither_narrows_the_box_nor_moves_the_list(open_window, library_dir: Path, qtbot) -> None:
    window = open_window(library_dir)
    type_text(qtbot, "policy")
    wait_search(qtbot, window, "policy")
    assert not window.query_message.isVisible()
    box, results = (
        window.search_box.geometry(),
        window.results_view.mapTo(window, window.results_view.rect().topLeft()),
    )
    for text in (' "large lang', " title:", " (NOT"):
        window.search_box.selectAll()
        type_text(qtbot, "policy" + text)
        wait_search(qtbot, window, "policy" + text)
        assert window.query_message.isVisible() and window.query_message.text()
        assert window.search_box.geometry() == box
        assert window.results_view.mapTo(window, window.results_view.rect().topLeft()) == results
        assert window.suggestion_label.text() == ""  # no "did you mean" for what is being typed
        assert window.model.rowCount() > 0
