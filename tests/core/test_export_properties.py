"""Whatever text the files bring, the export stays the Markdown document desk wrote."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from desk.core.export import to_markdown
from desk.core.records.detail import PaperDetail
from desk.core.records.page import SourceInfo
from desk.core.text import derive_title, find_short_name, readable_text

markdown_it = pytest.importorskip("markdown_it")

HOSTILE = st.sampled_from(
    ["# Heading", "<script>alert(1)</script>", "```", "| a | b |", "> quote", "- item", "1. one",
     "[x](javascript:alert(1))", "<img src=http://e.com/x.png>", "**bold**", "$\\alpha$", "\\textbf{S}",
     "---", "***", "<!-- c -->", "\u202e", "&amp;", "~~~", "![i](http://e.com/i.png)", "\n\n"]
)  # fmt: skip
TEXT = st.lists(st.one_of(HOSTILE, st.text(max_size=30)), min_size=1, max_size=12).map(" ".join)


def _paper(i: int, raw: str, collection: str) -> PaperDetail:
    readable = readable_text(raw)
    short = find_short_name(readable)
    return PaperDetail(
        id=i, title=derive_title(readable, short), short_name=short, starred=True, read=False,
        has_note=False, sources=(SourceInfo(f"{collection}.txt", i, collection),),
        abstract=readable, abstract_raw=raw,
    )  # fmt: skip


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(TEXT, TEXT), min_size=1, max_size=4))
def test_file_text_never_becomes_structure_or_html(items: list[tuple[str, str]]) -> None:
    papers = [_paper(i, raw, coll) for i, (raw, coll) in enumerate(items)]
    md = to_markdown(papers, what="starred papers", when=datetime(2026, 11, 30, tzinfo=UTC))
    tokens = markdown_it.MarkdownIt("commonmark").parse(md)
    headings = [t for t in tokens if t.type == "heading_open"]
    assert [t.tag for t in headings] == ["h1"] + ["h2"] * len(papers)
    assert not [t for t in tokens if t.type in ("html_block", "fence", "code_block", "blockquote_open")]
    inline_html = [c for t in tokens if t.children for c in t.children if c.type == "html_inline"]
    assert not inline_html
    inline = [c for t in tokens if t.children for c in t.children]
    links = [c.attrs.get("href", "") for c in inline if c.type == "link_open"]
    assert all(str(h).startswith(("http://", "https://")) for h in links)
    assert not [c for c in inline if c.type == "image"]  # a viewer would fetch it


NOTE_PIECES = st.sampled_from(
    ["```", "```python", "~~~", "~~~~", "````", "<!--", "-->", "<pre>", "</pre>", "<script>", "<?", "?>",
     "<!DOCTYPE", "<![CDATA[", "]]>", "    indented", "> quote", "- item", "# heading", "text", "", "   ```"]
)  # fmt: skip
NOTE = st.lists(st.one_of(NOTE_PIECES, st.text(max_size=12)), min_size=1, max_size=8).map("\n".join)


@settings(max_examples=200, deadline=None)
@given(st.lists(NOTE, min_size=2, max_size=3))
def test_a_note_never_swallows_the_papers_after_it(notes: list[str]) -> None:
    papers = [
        replace(_paper(i, f"Abstract number {i} about learning.", "C"), note=note, has_note=True)
        for i, note in enumerate(notes)
    ]
    md = to_markdown(papers, what="starred papers", when=datetime(2026, 11, 30, tzinfo=UTC))
    tokens = markdown_it.MarkdownIt("commonmark").parse(md)
    h2 = [tokens[k + 1].content for k, t in enumerate(tokens) if t.type == "heading_open" and t.tag == "h2"]
    # Every paper's heading is there, in order: no note hid the papers after it. A note may hold
    # headings of its own (`## x`, or a line under a `-` underline): it goes out as written.
    left = iter(h2)
    assert all(any(h == p.title for h in left) for p in papers), h2


def test_an_image_in_an_abstract_is_exported_as_text_and_its_address() -> None:
    paper = _paper(1, "We beat it! ![x](https://evil.example/p.png) See ![y](http://e.example/q.png).", "C")
    md = to_markdown([paper], what="starred papers", when=datetime(2026, 11, 30, tzinfo=UTC))
    inline = [c for t in markdown_it.MarkdownIt("commonmark").parse(md) if t.children for c in t.children]
    assert not [c for c in inline if c.type == "image"]
    assert [c.attrs["href"] for c in inline if c.type == "link_open"] == [
        "https://evil.example/p.png",
        "http://e.example/q.png",
    ]
    assert "We beat it! !x (<https://evil.example/p.png>) See !y (<http://e.example/q.png>)." in md


def test_notes_go_out_as_written_unless_they_would_leak() -> None:
    from desk.core.export import contained_note

    for note in ["- a list\n- p < 0.05\n\n*emph*", "```python\nx = 1\n```\nafter", "1. one\n2. two"]:
        assert contained_note(note) == note
    assert contained_note("```python\nx = 1") == "```python\nx = 1\n```"
    assert contained_note("- ```\n  ```\n```") == "> - ```\n>   ```\n> ```"


def test_a_note_with_a_heading_of_its_own_keeps_it_and_the_next_paper() -> None:
    papers = [
        replace(_paper(i, f"Abstract number {i} about learning.", "C"), note=note, has_note=True)
        for i, note in enumerate(["```", "?>\n-"])  # hypothesis found it: `-` under a line is an h2
    ]
    md = to_markdown(papers, what="starred papers", when=datetime(2026, 11, 30, tzinfo=UTC))
    tokens = markdown_it.MarkdownIt("commonmark").parse(md)
    h2 = [tokens[k + 1].content for k, t in enumerate(tokens) if t.type == "heading_open" and t.tag == "h2"]
    assert h2 == [papers[0].title, papers[1].title, "?>"]


# -- links whose text could lie ------------------------------------------------------------------
HOST = st.sampled_from(["github.com", "evil.example", "a.b", "xn--ggle-0nda.com", "arxiv.org"])
PATH = st.text(st.sampled_from("abcXYZ019/._-~?=&#()"), max_size=12)
URL = st.builds(lambda s, h, p: f"{s}://{h}/{p}", st.sampled_from(["http", "https"]), HOST, PATH)
LABEL = st.one_of(
    URL, st.sampled_from(["the official code", "**code**", "$x^2$", "`x`", "", " a ", "1. one", "# h"]), TEXT
)
LINK = st.one_of(
    st.builds(lambda label, url: f"[{label}]({url})", LABEL, URL),
    st.builds(lambda label, url: f"![{label}]({url})", LABEL, URL),
    st.builds(lambda label, url: f"[![{label}]({url})]({url})", LABEL, URL),
    st.builds(lambda url: f"\\url{{{url}}}", URL),
    st.builds(lambda url, label: f"\\href{{{url}}}{{{label}}}", URL, LABEL),
    st.builds(lambda url: f"<{url}>", URL),
    URL,
    st.builds(lambda inner, url: f"[see <{inner}>]({url})", URL, URL),
)
ABSTRACT = st.lists(st.one_of(LINK, HOSTILE, st.text(max_size=20)), min_size=1, max_size=8).map(" ".join)


def _links(md: str) -> list[tuple[str, str]]:
    """Each link of a Markdown document as CommonMark reads it: (its address, its visible text)."""
    parser = markdown_it.MarkdownIt("commonmark")
    found: list[tuple[str, str]] = []
    for token in parser.parse(md):
        open_href: str | None = None
        shown: list[str] = []
        for child in token.children or []:
            if child.type == "link_open":
                open_href, shown = str(child.attrs["href"]), []
            elif child.type == "link_close" and open_href is not None:
                found.append((open_href, "".join(shown)))
                open_href = None
            elif open_href is not None:
                shown.append(child.content)
    return found


@settings(max_examples=200, deadline=None)
@given(st.lists(ABSTRACT, min_size=1, max_size=3))
@example(["We study [the official code](http://evil.example/x), ![x](https://e.example/i.png)."])
@example(
    ["Code: \\href{http://evil.example}{https://github.com/x/y} and [https://a.b/](http://evil.example)"]
)
@pytest.mark.slow
def test_every_link_of_an_abstract_shows_its_own_address(abstracts: list[str]) -> None:
    papers = [_paper(i, raw, "C") for i, raw in enumerate(abstracts)]
    md = to_markdown(papers, what="starred papers", when=datetime(2026, 11, 30, tzinfo=UTC))
    parser = markdown_it.MarkdownIt("commonmark")
    tokens = parser.parse(md)
    inline = [c for t in tokens if t.children for c in t.children]
    assert not [c for c in inline if c.type in ("image", "html_inline")]
    assert not [t for t in tokens if t.type == "html_block"]
    for href, shown in _links(md):
        # What the reader sees is where the link goes (markdown-it shows an address decoded,
        # its punycode as Unicode: normalizeLink gives back the address it links to).
        assert parser.normalizeLink(shown) == href, (href, shown, md)


@settings(max_examples=200, deadline=None)
@given(ABSTRACT)
@example(
    "We study [the official code](http://evil.example/x) and [https://github.com/x](http://evil.example)"
)
def test_the_reading_pane_shows_a_links_real_address(raw: str) -> None:
    import html
    import re

    from desk.core.text import parse_spans, spans_to_html

    out = spans_to_html(parse_spans(raw), {"github", "code"})
    for href, body in re.findall(r'<a href="([^"]*)">(.*?)</a>', out):
        assert html.unescape(re.sub(r"<[^>]*>", "", body)) == html.unescape(href), out
