"""From a paper to its authors' papers: a click on a name in the reading pane, `a` on the paper in view."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from gui_helpers import press, type_text, wait_search
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QTextDocumentFragment
from PySide6.QtWidgets import QApplication, QMenu

from desk.core.library.facade import Library
from desk.gui.search.by_author import author_query, linked_author, linked_authors

RECORDS = [
    {"title": "Sparse Wombat Routing", "authors": ["Ann Lee", "Bo Chen", "Jürgen <b>Schmid</b>"],
     "abstract": "We route wombat tokens to sparse experts and cut the cost of mixtures of experts."},
    {"title": "Dense Quokka Retrieval", "authors": ["Bo Chen", "Carla Díaz"],
     "abstract": "Quokka retrieval with dense passage vectors beats sparse lexical baselines."},
    {"title": "Platypus Kernels", "authors": ["Ann Lee"],
     "abstract": "Kernel methods for platypus migration data with two-sample tests."},
    {"title": "Schmid Alone", "authors": ["Jürgen <b>Schmid</b>"],
     "abstract": "A numbat survey written alone, about nothing the others study."},
]  # fmt: skip


@pytest.fixture
def authored_library(tmp_path: Path) -> Path:
    listed = tmp_path / "papers.json"
    listed.write_text(json.dumps(RECORDS), encoding="utf-8")
    bare = tmp_path / "bare.txt"
    bare.write_text("Bare 2026\n\nA bare abstract about echidna migration, with no author at all.\n")
    with Library(tmp_path / "lib") as lib:
        assert lib.import_paths([listed, bare]).added == 5
    return tmp_path / "lib"


def _listed_titles(window) -> set[str]:
    return {window.model.summary(window.model.id_at(r)).title for r in range(window.model.rowCount())}


def _into_list(qtbot, window, query: str) -> None:
    """Type a query, then ↓ into the list: the first hit highlighted, the keys in the list."""
    window.search_box.setFocus()
    window.search_box.selectAll()
    type_text(qtbot, query)
    wait_search(qtbot, window, query)
    press(qtbot, Qt.Key.Key_Down)
    qtbot.waitUntil(lambda: window.focus.where() == "list" and window.current_id is not None)
    shown = window.paper_view
    qtbot.waitUntil(lambda: shown.paper is not None and shown.paper.id == window.current_id)


def _searched(qtbot, window, query: str, titles: set[str]) -> None:
    qtbot.waitUntil(lambda: window.search_box.text() == query and not window.controller.pending())
    qtbot.waitUntil(lambda: _listed_titles(window) == titles)


def test_author_query_quotes_the_name() -> None:
    assert author_query("Bernhard Schölkopf") == 'author:"Bernhard Schölkopf"'
    assert author_query('Ann "the" Lee ') == 'author:"Ann the Lee"'  # no quote can end it early


def test_pane_links_are_escaped_and_name_their_author() -> None:
    authors = ("Ann Lee", "Jürgen <b>Schmid</b>", "A & B")
    html_text = linked_authors(authors)
    assert "<b>" not in html_text and "&lt;b&gt;" in html_text and "&amp; B" in html_text
    assert QTextDocumentFragment.fromHtml(html_text).toPlainText() == "Ann Lee, Jürgen <b>Schmid</b>, A & B"
    assert linked_author("author:1", authors) == "Jürgen <b>Schmid</b>"
    for foreign in ("author:3", "author:-1", "author:x", "https://example.org", "author:"):
        assert linked_author(foreign, authors) is None


def test_a_on_a_single_author_paper_searches_that_author(open_window, authored_library: Path, qtbot) -> None:
    window = open_window(authored_library)
    _into_list(qtbot, window, "platypus")
    press(qtbot, "a")
    _searched(qtbot, window, 'author:"Ann Lee"', {"Platypus Kernels", "Sparse Wombat Routing"})
    assert "Papers by Ann Lee" in window.statusBar().currentMessage()
    assert window.focus.where() == "list"  # the keys stay in the list: j/k, Enter go on from there


def test_a_offers_the_authors_and_enter_takes_one(open_window, authored_library: Path, qtbot) -> None:
    window = open_window(authored_library)
    _into_list(qtbot, window, "wombat")
    press(qtbot, "a")
    qtbot.waitUntil(lambda: isinstance(QApplication.activePopupWidget(), QMenu))
    menu = QApplication.activePopupWidget()
    assert [a.text() for a in menu.actions()] == ["Ann Lee", "Bo Chen", "Jürgen <b>Schmid</b>"]
    assert menu.activeAction() is menu.actions()[0]  # Enter would take the first author
    qtbot.keyClick(menu, Qt.Key.Key_Down)
    qtbot.keyClick(menu, Qt.Key.Key_Return)
    _searched(qtbot, window, 'author:"Bo Chen"', {"Sparse Wombat Routing", "Dense Quokka Retrieval"})
    # Again from the new list's first row; Esc leaves the menu and the search as it was.
    press(qtbot, Qt.Key.Key_Down)
    qtbot.waitUntil(lambda: window.focus.where() == "list" and window.current_id is not None)
    press(qtbot, "a")
    qtbot.waitUntil(lambda: isinstance(QApplication.activePopupWidget(), QMenu))
    qtbot.keyClick(QApplication.activePopupWidget(), Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: QApplication.activePopupWidget() is None)
    assert window.search_box.text() == 'author:"Bo Chen"'
    # A name with markup in it is searched as the text it is.
    _into_list(qtbot, window, "numbat")
    press(qtbot, "a")
    _searched(qtbot, window, 'author:"Jürgen <b>Schmid</b>"', {"Sparse Wombat Routing", "Schmid Alone"})


def test_a_on_a_paper_without_authors_says_so(open_window, authored_library: Path, qtbot) -> None:
    window = open_window(authored_library)
    _into_list(qtbot, window, "echidna")
    press(qtbot, "a")
    qtbot.waitUntil(lambda: "No authors" in window.statusBar().currentMessage())
    assert window.search_box.text() == "echidna"


def test_a_click_on_a_name_in_the_pane_searches_it(open_window, authored_library: Path, qtbot) -> None:
    window = open_window(authored_library)
    _into_list(qtbot, window, "quokka")
    label = window.paper_view.authors
    assert QTextDocumentFragment.fromHtml(label.text()).toPlainText() == "Bo Chen, Carla Díaz"
    # Click on the second name, where the label draws it.
    target = _point_of(label, "Carla")
    qtbot.mouseClick(label, Qt.MouseButton.LeftButton, pos=target)
    _searched(qtbot, window, 'author:"Carla Díaz"', {"Dense Quokka Retrieval"})
    _into_list(qtbot, window, "quokka")
    qtbot.mouseClick(label, Qt.MouseButton.LeftButton, pos=_point_of(label, "Bo"))
    _searched(qtbot, window, 'author:"Bo Chen"', {"Sparse Wombat Routing", "Dense Quokka Retrieval"})


def _point_of(label, word: str) -> QPoint:
    """Where ``word`` of the label's (one-line) text is drawn: its middle, in the label's coordinates."""
    plain = QTextDocumentFragment.fromHtml(label.text()).toPlainText()
    metrics = label.fontMetrics()
    at = plain.index(word)
    x = metrics.horizontalAdvance(plain[:at]) + metrics.horizontalAdvance(word) // 2
    margin = label.contentsRect().left() + label.margin()
    return QPoint(margin + x, label.contentsRect().top() + metrics.height() // 2)


def test_a_in_the_reading_pane_offers_the_authors_there(open_window, authored_library: Path, qtbot) -> None:
    window = open_window(authored_library)
    _into_list(qtbot, window, "wombat")
    press(qtbot, Qt.Key.Key_Return)  # read it: the keys go to the abstract
    qtbot.waitUntil(lambda: window.focus.where() != "list")
    press(qtbot, "a")
    qtbot.waitUntil(lambda: isinstance(QApplication.activePopupWidget(), QMenu))
    menu = QApplication.activePopupWidget()
    label = window.paper_view.authors
    assert menu.pos().y() >= label.mapToGlobal(label.rect().topLeft()).y()  # under the names, not the list
    qtbot.keyClick(menu, Qt.Key.Key_Return)  # the first author
    _searched(qtbot, window, 'author:"Ann Lee"', {"Platypus Kernels", "Sparse Wombat Routing"})
