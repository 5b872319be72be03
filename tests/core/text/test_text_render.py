"""HTML and Markdown rendering: untrusted text escaped, emphasis and links rendered, highlighting."""

from __future__ import annotations

import re

import pytest

from desk.core.text import Span, escape_markdown, parse_spans, spans_to_html, spans_to_markdown, stem_word

NASTY = '<script>alert(1)</script> <img src=http://evil.example/x.png onerror="x"> & <b>bold</b>'


def _md_html(md: str) -> str:
    """CommonMark rendering of `md` (markdown-it-py is in the dev venv but not a declared dependency)."""
    markdown_it = pytest.importorskip("markdown_it")
    return markdown_it.MarkdownIt("commonmark").render(md)


def test_html_escapes_all_text() -> None:
    out = spans_to_html(parse_spans(NASTY))
    assert "<script" not in out and "<img" not in out and "<b>bold" not in out
    assert "&lt;script&gt;" in out
    assert "&amp;" in out


def test_html_renders_kinds() -> None:
    spans = parse_spans(r"**B** *i* `c<d>` \textbf{T} see https://a.b/c?x=1&y=2.")
    out = spans_to_html(spans)
    assert "<b>B</b>" in out and "<i>i</i>" in out and "<code>c&lt;d&gt;</code>" in out and "<b>T</b>" in out
    assert '<a href="https://a.b/c?x=1&amp;y=2">https://a.b/c?x=1&amp;y=2</a>.' in out


def test_html_never_links_unsafe_urls() -> None:
    spans = (Span("click", "link", "javascript:alert(1)"), Span("x", "link", 'https://a.b/"onmouseover="x'))
    out = spans_to_html(spans)
    assert "<a" not in out and "click" in out
    assert "href" not in spans_to_html(parse_spans("[click](javascript:alert(1))"))


def test_html_attribute_escaping() -> None:
    out = spans_to_html((Span("t", "link", "https://a.b/?q='x'&r=<y>"),))
    assert "<a" not in out  # quotes and angle brackets are refused outright
    out = spans_to_html((Span("t", "link", "https://a.b/?q=1&r=2"),))
    assert out == 't (<a href="https://a.b/?q=1&amp;r=2">https://a.b/?q=1&amp;r=2</a>)'


def test_html_highlight_by_stem() -> None:
    spans = parse_spans("Policies and a *policy*; POLICY-gradient, impolicy.")
    out = spans_to_html(spans, {stem_word("policy")})
    assert out.count('<span class="hl">') == 3
    assert '<span class="hl">Policies</span>' in out
    assert '<i><span class="hl">policy</span></i>' in out
    assert "impolicy" in out and '<span class="hl">impolicy' not in out


def test_html_highlight_escapes_around_words() -> None:
    out = spans_to_html(parse_spans("<b>policy</b>"), {stem_word("policy")})
    assert out == '&lt;b&gt;<span class="hl">policy</span>&lt;/b&gt;'


def test_markdown_escapes_file_text() -> None:
    md = spans_to_markdown(parse_spans(NASTY))
    html = _md_html(md)
    assert "<script" not in html and "<img" not in html and "<b>" not in html
    assert md.count("\n") == 0


@pytest.mark.parametrize(
    "text",
    [
        "# Heading",
        "> quote",
        "- item",
        "+ item",
        "1. item",
        "3) item",
        "| a | b |",
        "*not em*",
        "__not strong__",
        "[not](https://link.example)",
        "![img](https://x.example/i.png)",
        "`not code`",
        "~~not struck~~",
        "<div>raw</div>",
        "&amp; entity",
        "a\\*b",
        "$x$ math",
        "#tag",
        "    indented",
    ],
)
def test_escape_markdown_is_literal(text: str) -> None:
    md = escape_markdown(text)
    html = _md_html(md)
    assert html.startswith("<p>") and html.count("<p>") == 1, html
    inner = html[3:-5]
    assert not re.search(r"<(?!/?p>)", inner), html  # no tag but the paragraph
    assert "\n" not in md


def test_escape_markdown_strings() -> None:
    assert escape_markdown("# A <b> | *x* [y]") == r"\# A \<b\> \| \*x\* \[y\]"
    assert escape_markdown("1. first") == r"1\. first"
    assert escape_markdown("- item") == r"\- item"
    assert escape_markdown("  two\nlines  ") == "two lines"
    assert escape_markdown("&amp; and AT&T") == r"\&amp; and AT&T"
    assert escape_markdown("snake_case $5") == r"snake\_case \$5"


def test_escape_markdown_round_trips_text() -> None:
    text = "Title: *A* [b] <c> #d |e| `f` ~g~ $h$ & done"
    html = _md_html(escape_markdown(text))
    assert html == "<p>Title: *A* [b] &lt;c&gt; #d |e| `f` ~g~ $h$ &amp; done</p>\n"


def test_markdown_renders_kinds() -> None:
    raw = r"**OGPO** uses *stochastic interventions*, `a``b` and \url{https://a.b/c}}. See [site](https://s.t/u_(v))."
    md = spans_to_markdown(parse_spans(raw))
    assert md.startswith("**OGPO** uses *stochastic interventions*, ")
    assert "<https://a.b/c>." in md
    html = _md_html(md)
    assert "<strong>OGPO</strong>" in html
    assert "<em>stochastic interventions</em>" in html
    assert '<a href="https://a.b/c">https://a.b/c</a>' in html
    assert 'See site (<a href="https://s.t/u_(v)">https://s.t/u_(v)</a>).' in html


def test_markdown_code_fence_longer_than_content_runs() -> None:
    md = spans_to_markdown((Span("x``y", "code"),))
    assert md == "```x``y```"
    assert _md_html(md) == "<p><code>x``y</code></p>\n"
    assert _md_html(spans_to_markdown((Span("`a", "code"),))) == "<p><code>`a</code></p>\n"


def test_markdown_emphasis_keeps_spaces_outside() -> None:
    md = spans_to_markdown((Span("a", "text"), Span(" b ", "bold"), Span("c", "text")))
    assert md == "a **b** c"


def test_markdown_of_unsafe_link_is_plain_text() -> None:
    md = spans_to_markdown((Span("click", "link", "javascript:alert(1)"),))
    assert md == "click"
    assert "href" not in _md_html(md)


def test_markdown_block_markers_escaped_after_blank_spans() -> None:
    spans = (Span("  ", "text"), Span("- not a list", "text"), Span(" 1. nor this", "italic"))
    md = spans_to_markdown(spans)
    assert md.startswith("\\- not a list")
    assert "<li>" not in _md_html(md)
