"""Spans: emphasis, code, links and URL trimming, unsafe schemes, input clean-up."""

from __future__ import annotations

import logging

import pytest

from desk.core.text import Span, parse_spans, readable_text


def _links(raw: str) -> list[str | None]:
    return [s.url for s in parse_spans(raw) if s.kind == "link"]


def _kinds(raw: str) -> list[tuple[str, str]]:
    return [(s.kind, s.text) for s in parse_spans(raw) if s.kind != "text"]


@pytest.mark.parametrize(
    ("raw", "url"),
    [
        ("Code: https://github.com/x/y.", "https://github.com/x/y"),
        ("Code: https://github.com/x/y", "https://github.com/x/y"),
        (r"Code at \url{https://a.b/c}}.", "https://a.b/c"),
        ("(see https://a.b/c)", "https://a.b/c"),
        ("see https://a.b/wiki/X_(y) for more", "https://a.b/wiki/X_(y)"),
        ("(see https://a.b/wiki/X_(y)).", "https://a.b/wiki/X_(y)"),
        ("at https://a.b/c, and", "https://a.b/c"),
        ("at https://a.b/c; and", "https://a.b/c"),
        ("at https://a.b/c: and", "https://a.b/c"),
        ("[https://a.b/c]", "https://a.b/c"),
        ("{https://a.b/c}", "https://a.b/c"),
        ("Page: https://x.github.io/p/.", "https://x.github.io/p/"),
        ("<https://a.b/auto>", "https://a.b/auto"),
        ("HTTPS://A.B/UP.", "HTTPS://A.B/UP"),
    ],
)
def test_url_trimming(raw: str, url: str) -> None:
    assert _links(raw) == [url]
    text = readable_text(raw)
    assert url in text


def test_url_keeps_trailing_text_punctuation() -> None:
    spans = parse_spans("Code: https://github.com/x/y.")
    assert spans[-1] == Span(".", "text")
    assert readable_text(r"Code at \url{https://a.b/c}}.") == "Code at https://a.b/c."


def test_markdown_link_uses_its_label() -> None:
    spans = parse_spans("Project can be found at [df-expense.github.io](https://df-expense.github.io).")
    assert Span("df-expense.github.io", "link", "https://df-expense.github.io") in spans
    assert readable_text("see [the site](https://a.b).") == "see the site."


def test_href_macro() -> None:
    assert _links(r"see \href{https://a.b/x}{our page}") == ["https://a.b/x"]
    assert readable_text(r"see \href{https://a.b/x}{our page}") == "see our page"


@pytest.mark.parametrize(
    "raw",
    [
        "click javascript:alert(1) now",
        "[click](javascript:alert(1))",
        "<javascript:alert(1)>",
        r"\url{javascript:alert(1)}",
        r"\href{javascript:alert(1)}{click}",
        "[x](data:text/html;base64,PHNjcmlwdD4=)",
        "[x](file:///etc/passwd)",
        "[x](ftp://a.b/c)",
        "[x](//evil.example/x)",
        "see www.example.com today",
        "xhttps://a.b/c glued to a word",
    ],
)
def test_only_http_links(raw: str) -> None:
    for url in _links(raw):
        assert url is not None and url.lower().startswith(("http://", "https://"))
    assert not any("javascript" in (u or "") or "data:" in (u or "") for u in _links(raw))


def test_no_links_for_unsafe_schemes() -> None:
    assert _links("[click](javascript:alert(1)) javascript:x <javascript:y>") == []
    assert _links(r"\href{javascript:alert(1)}{click}") == []
    assert "click" in readable_text(r"\href{javascript:alert(1)}{click}")


def test_emphasis_kinds() -> None:
    raw = r"**OGPO** uses *stochastic interventions*, `code`, \textbf{S}, \emph{e} and \textit{i}."
    assert _kinds(raw) == [
        ("bold", "OGPO"),
        ("italic", "stochastic interventions"),
        ("code", "code"),
        ("bold", "S"),
        ("italic", "e"),
        ("italic", "i"),
    ]
    assert readable_text(raw) == "OGPO uses stochastic interventions, code, S, e and i."


def test_emphasis_edge_cases() -> None:
    assert readable_text("A* search and 2 * 3 * 4") == "A* search and 2 * 3 * 4"
    assert readable_text("snake_case_name stays") == "snake_case_name stays"
    assert _kinds("an _underscored phrase_ here") == [("italic", "underscored phrase")]
    assert _kinds("***both***") == [("bold", "both")]
    assert readable_text("**unclosed bold") == "unclosed bold"
    assert _kinds("**Distribution-Matching VAE** (**DMVAE**)") == [
        ("bold", "Distribution-Matching VAE"),
        ("bold", "DMVAE"),
    ]


def test_bold_letters_inside_words_join() -> None:
    raw = r"\textbf{Pa}rtition Fun\textbf{c}tion-Guid\textbf{ed} \textbf{RL} (PACED-RL)"
    assert readable_text(raw) == "Partition Function-Guided RL (PACED-RL)"
    assert readable_text(r"$\underline{\textbf{S}}$parse $(\textbf{SAG})$") == "Sparse (SAG)"


def test_code_spans_and_latex_quotes() -> None:
    assert _kinds("run `pip install x` now") == [("code", "pip install x")]
    assert _kinds("text `` a`b `` more") == [("code", "a`b")]
    assert readable_text("allowing users to ``see the emotion'' directly") == (
        "allowing users to “see the emotion” directly"
    )
    assert readable_text("a `single' quote") == "a ‘single' quote"


def test_math_is_converted_inside_spans() -> None:
    spans = parse_spans(r"we get **$O(n^2)$ time** and $\textbf{Krause}$")
    # The superscript is a span of its own (rich text in the reading pane), bold like its base.
    assert [s for s in spans if s.kind == "bold"][:3] == [
        Span("O(n", "bold"),
        Span("²", "bold", script="sup", raised="2"),
        Span(") time", "bold"),
    ]
    assert "".join(s.text for s in spans if s.kind == "bold").startswith("O(n²) time")
    assert Span("Krause", "bold") in spans


def test_input_clean_up() -> None:
    raw = "The ﬁnal ﬂow\u200b is &amp; was   here\u00ad. \u202eevil"
    assert readable_text(raw) == "The final flow is & was here. evil"
    assert readable_text("  \n\t ") == ""
    assert parse_spans("") == ()


def test_spans_have_no_empty_text_and_collapse_space() -> None:
    spans = parse_spans("a  **b**   *c*   `d`  https://e.f/g  ")
    assert all(s.text for s in spans)
    assert "".join(s.text for s in spans) == "a b c d https://e.f/g"


def test_html_in_input_stays_text() -> None:
    raw = "<script>alert(1)</script> <img src=x onerror=alert(1)>"
    assert readable_text(raw) == raw
    assert all(s.kind == "text" for s in parse_spans(raw))


def test_readable_text_on_seed_markup() -> None:
    raw = (
        r"we propose $\textit{S}$-SPPO, a framework comprising: i) $\textit{Supervision Calibration}$ "
        r"and \texttt{BAR-RAG} with 52.19\% win rate"
    )
    assert readable_text(raw) == (
        "we propose S-SPPO, a framework comprising: i) Supervision Calibration "
        "and BAR-RAG with 52.19% win rate"
    )


def test_a_failure_inside_the_markup_parser_is_logged_and_gives_plain_text(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    from desk.core.text import markup

    def broken(*args: object) -> None:
        raise ValueError("a bug in the scanner")

    monkeypatch.setattr(markup._Scanner, "parse", broken)
    raw = r"An odd one: $\alpha$ and **bold** text, seen once in this test."
    with caplog.at_level(logging.WARNING, logger=markup.__name__):
        assert parse_spans(raw) == (Span("An odd one: α and bold text, seen once in this test.", "text"),)
    assert len(caplog.records) == 1 and caplog.records[0].exc_info is not None
    assert "An odd one" in caplog.records[0].getMessage()
