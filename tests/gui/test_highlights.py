"""Highlights as the window draws them.

Offsets in the unit Qt counts (UTF-16), with 𝕀/𝒪, combining marks and emoji before a match;
phrase queries mark the phrase only; titles and short names are marked in the list and the
reading pane; a short abstract's snippet shows its match.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from gui_helpers import type_text, wait_search
from PySide6.QtGui import QFont, QFontMetricsF, QTextCharFormat, QTextLayout

from desk.core.library.facade import Library
from desk.gui.search.marks import cut_to_first_mark, format_ranges, utf16_length, utf16_spans
from desk.gui.search.model import Roles


def drawn(text: str, spans: tuple[tuple[int, int], ...]) -> list[str]:
    """The text of each range as Qt will format it (UTF-16 units)."""
    units = text.encode("utf-16-le")
    ranges = format_ranges(text, spans, QTextCharFormat())
    return [units[2 * r.start : 2 * (r.start + r.length)].decode("utf-16-le") for r in ranges]


@pytest.mark.parametrize(
    "before",
    [
        "𝕀(y ≥ 1) ≤ y, 𝒪(n log n), 𝔼[X] ",  # mathematical alphanumerics: two UTF-16 units each
        "cafe\u0301 nai\u0308ve re\u0301sume\u0301 ",  # combining marks: one unit each, no shift
        "👩‍👩‍👧 🎉 results 🚀 ",  # emoji, one a ZWJ sequence
        "",
    ],
)
def test_marks_land_on_the_word_in_utf16(before: str) -> None:
    text = f"{before}to reclaim this otherwise “wasted” evidence."
    start = text.index("wasted")
    spans = ((start, start + 6), (text.index("evidence"), text.index("evidence") + 8))
    assert drawn(text, spans) == ["wasted", "evidence"]
    assert utf16_length(text) == len(text.encode("utf-16-le")) // 2


def test_qt_lays_the_mark_where_the_word_is(qapp) -> None:
    """Where the layout puts the mark's start is where the text before the word ends."""
    font = QFont()
    text = "𝕀(y ≥ 1) ≤ y - (y-1)₊, 𝒪(n) 👩‍👩‍👧 wasted evidence"
    start = text.index("wasted")
    layout = QTextLayout(text, font)
    layout.beginLayout()
    line = layout.createLine()
    line.setLineWidth(10_000)
    layout.endLayout()
    ((u_start, _),) = utf16_spans(text, ((start, start + 6),))
    x_mark = line.cursorToX(u_start)[0]
    assert abs(x_mark - QFontMetricsF(font).horizontalAdvance(text[:start])) < 1.0
    wrong = line.cursorToX(start)[0]  # code points used as UTF-16 units: short of the word
    assert wrong < x_mark - 1.0


def test_a_short_snippet_is_cut_so_its_match_shows() -> None:
    text = "We study " + "a very long preamble of words " * 6 + "and the wasted evidence at the end."
    start = text.index("wasted")
    cut, spans = cut_to_first_mark(text, ((start, start + 6),), shown=80)
    assert cut.startswith("…") and spans[0][0] < 40
    assert cut[spans[0][0] : spans[0][1]] == "wasted"
    assert cut_to_first_mark(text, ((5, 9),), shown=80) == (text, ((5, 9),))  # already shown


def hits_for(window, qtbot, query: str) -> list[int]:
    window.search_box.selectAll()
    type_text(qtbot, query)
    wait_search(qtbot, window, query)
    return window.model.ids()


def row(window, pid: int):
    return window.model.index(window.model.row_of(pid))


def test_list_highlights_after_astral_characters(open_window, library_dir: Path, qtbot) -> None:
    """The seed paper SCORE: "𝕀(y ≥ 1) … “wasted” evidence" marks exactly the two words."""
    window = open_window(library_dir)
    ids = hits_for(window, qtbot, "wasted evidence")
    score = next(i for i in ids if window.model.summary(i) and window.model.summary(i).short_name == "SCORE")
    index = row(window, score)
    snippet, spans = index.data(Roles.Snippet), index.data(Roles.Highlights)
    assert "𝕀" in snippet
    assert drawn(snippet, spans) == ["wasted", "evidence"]


def test_a_phrase_query_marks_the_phrase_only(open_window, library_dir: Path, qtbot) -> None:
    window = open_window(library_dir)
    ids = hits_for(window, qtbot, '"large language"')
    assert len(ids) > 5
    for pid in ids:
        index = row(window, pid)
        words = [w.lower() for w in drawn(index.data(Roles.Snippet), index.data(Roles.Highlights))]
        assert words and words == ["large", "language"] * (len(words) // 2), words
    # In the reading pane too: a paper whose abstract says "language" alone as well.
    with Library(library_dir) as lib:
        lone = next(
            pid
            for pid in ids
            if len(re.findall(r"(?i)\blanguage\b", lib.paper(pid).abstract))
            > len(re.findall(r"(?i)\blarge language\b", lib.paper(pid).abstract))
        )
    window.show_paper(lone, select=True)
    qtbot.waitUntil(lambda: window.paper_view.paper is not None and window.paper_view.paper.id == lone)
    html = window.abstract_view.toHtml()
    marked = re.findall(r"<span[^>]*background-color[^>]*>([^<]*)</span>", html)
    assert marked and [m.lower() for m in marked] == ["large", "language"] * (len(marked) // 2), marked


def test_title_and_short_name_matches_are_marked(open_window, library_dir: Path, qtbot) -> None:
    window = open_window(library_dir)
    ids = hits_for(window, qtbot, "title:policy")
    assert ids
    for pid in ids[:5]:
        index = row(window, pid)
        qtbot.waitUntil(lambda i=index: i.data(Roles.Loaded))
        title = window.model.summary(pid).title
        marks = window.model.index(window.model.row_of(pid)).data(Roles.TitleHighlights)
        assert marks and all(title[s:e].lower().startswith("polic") for s, e in marks), (title, marks)
    window.show_paper(ids[0], select=True)
    qtbot.waitUntil(lambda: window.paper_view.paper is not None and window.paper_view.paper.id == ids[0])
    assert re.search(r"background-color[^>]*>[Pp]olic", window.paper_view.title.text())
    # A short name typed as a word: its badge is marked.
    ids = hits_for(window, qtbot, "SCORE")
    score = next(i for i in ids if window.model.summary(i) and window.model.summary(i).short_name == "SCORE")
    assert row(window, score).data(Roles.ShortNameHighlights) == ((0, 5),)
