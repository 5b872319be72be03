"""Math in titles and abstracts: no lost text, relations spaced, real scripts.

Plain text shows a sub/superscript in Unicode's letters where each character has one (ℝᵈ, Hᵢ,ₜ)
and after its mark otherwise (CVaR_α); the reading pane shows <sub>/<sup>.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from desk.core.text import derive_title, find_short_name, parse_spans, readable_text, spans_to_html
from desk.core.text.latex import convert_math, latex_to_unicode, math_parts
from desk.core.text.scripts import MARKS, SUBSCRIPT, SUPERSCRIPT, plain_script

SETTINGS = settings(max_examples=200, deadline=None)


@pytest.mark.parametrize(
    ("math", "plain"),
    [
        (r"\alpha \in (0,1)", "α ∈ (0,1)"),
        (r"\alpha\in(0,1)", "α ∈ (0,1)"),
        (r"y \geq 0", "y ≥ 0"),
        (r"y\ge0", "y ≥ 0"),
        (r"k=1", "k = 1"),
        (r"p \to 0", "p → 0"),
        (r"\mathbb{R}^d", "ℝᵈ"),
        (r"\mathbb{R}^{d \times k}", "ℝ^(d×k)"),
        (r"H_{i,t}", "Hᵢ,ₜ"),
        (r"\mathrm{CVaR}_\alpha", "CVaR_α"),
        (r"\mathrm{CVaR}_{\alpha}", "CVaR_α"),
        (r"e^{-\lambda t}", "e^(-λt)"),
        (r"\sum_{i=1}^{n} x_i", "∑ᵢ₌₁ⁿ xᵢ"),
        (r"O(n^2)", "O(n²)"),
        (r"W^\top x", "Wᵀ x"),
        (r"90^\circ", "90°"),
        (r"\frac{a^2}{b_1}", "a²/b₁"),
        (r"x^q", "x^q"),  # Unicode has no superscript q
        (r"\geq", "≥"),
        (r"a_", "a"),
    ],
)
def test_math_reads_as_typeset(math: str, plain: str) -> None:
    assert convert_math(math) == plain
    assert latex_to_unicode(f"${math}$") == plain


def test_titles_keep_math_and_its_spacing() -> None:
    raw = r"We derive generalization bounds with $\alpha \in (0,1)$ and $\beta^2$-mixing sequences."
    readable = readable_text(raw)
    assert derive_title(readable, find_short_name(readable)) == (
        "Generalization bounds with α ∈ (0,1) and β²-mixing sequences"
    )
    raw = (
        r"We study losses $y \geq 0$ on $\mathbb{R}^d$ with heads $H_{i,t}$ and $\mathrm{CVaR}_\alpha$ risk."
    )
    readable = readable_text(raw)
    assert derive_title(readable, None) == "Losses y ≥ 0 on ℝᵈ with heads Hᵢ,ₜ and CVaR_α risk"
    # Asides in words still go: acronyms, examples, enumerations, years.
    plain = "We propose a new method (1) for graphs (GNN) with (e.g., 20) samples (2023) here."
    assert derive_title(plain, None) == "A new method for graphs with samples here"


def test_reading_pane_has_real_scripts_and_escapes_them() -> None:
    html = spans_to_html(
        parse_spans(r"on $\mathbb{R}^d$ and $H_{i,t}$, **$x^2$**, $x_{<b>}$ & $\mathrm{CVaR}_\alpha$")
    )
    assert "ℝ<sup>d</sup>" in html and "H<sub>i,t</sub>" in html and "<b>x</b><b><sup>2</sup></b>" in html
    assert "x<sub>&lt;b&gt;</sub>" in html and "&amp;" in html and "CVaR<sub>α</sub>" in html
    assert readable_text(r"on $\mathbb{R}^d$ and $H_{i,t}$") == "on ℝᵈ and Hᵢ,ₜ"


def test_highlighting_reaches_into_scripts() -> None:
    html = spans_to_html(parse_spans(r"the $x^{\mathrm{policy}}$ here"), {"polici"})
    assert '<sup><span class="hl">policy</span></sup>' in html


# ---- properties ---------------------------------------------------------------------------------

SCRIPTABLE = st.text(alphabet=sorted(set(SUPERSCRIPT) & set(SUBSCRIPT) - set("'′*")), min_size=1, max_size=6)


@SETTINGS
@given(SCRIPTABLE, st.sampled_from(["sup", "sub"]))
def test_a_script_of_letters_unicode_has_round_trips(body: str, script: str) -> None:
    table = SUPERSCRIPT if script == "sup" else SUBSCRIPT
    back = {v: k for k, v in table.items() if k not in "−"}
    plain = plain_script(body, script)  # type: ignore[arg-type]
    assert "".join(back[c] for c in plain) == body.replace("−", "-")


@SETTINGS
@given(st.text(min_size=1, max_size=6), st.sampled_from(["sup", "sub"]))
def test_a_script_is_unicode_letters_or_marked(body: str, script: str) -> None:
    plain = plain_script(body, script)  # type: ignore[arg-type]
    table = SUPERSCRIPT if script == "sup" else SUBSCRIPT
    squeezed = "".join(body.split())
    if not squeezed:
        assert plain == ""
    elif plain[:1] in "^_":
        assert plain in (f"{plain[0]}{squeezed}", f"{plain[0]}({squeezed})")
    else:
        assert all(c in table.values() or c == "," for c in plain)


BASES = st.sampled_from(["x", "y", r"\alpha", r"\mathbb{R}", "H", r"\mathrm{CVaR}", "(a+b)", "2", r"\sum"])
SCRIPT_BODIES = st.sampled_from(
    ["2", "d", "{i,t}", r"\alpha", "{-\\lambda t}", "{n+1}", "q", "{x^2}", "", "{"]
)
RELATIONS = st.sampled_from([r"\in", r"\geq", "=", r"\le", r"\to", r"\neq", r"\subseteq"])
SPACES = st.sampled_from(["", " ", "  "])


@st.composite
def math_sources(draw: st.DrawFn) -> str:
    pieces = []
    for _ in range(draw(st.integers(1, 4))):
        pieces.append(draw(BASES))
        if draw(st.booleans()):
            pieces.append(draw(st.sampled_from("^_")) + draw(SCRIPT_BODIES))
        if draw(st.booleans()):
            pieces.append(draw(SPACES) + draw(RELATIONS) + draw(SPACES))
    return "".join(pieces)


@SETTINGS
@given(math_sources())
@example(r"\alpha\in(0,1)")
@example("x^{" + "{" * 50)
@example("x" + "^" * 30)
def test_math_parts_are_whole_and_clean(src: str) -> None:
    parts = math_parts(src)
    plain = convert_math(src)
    assert plain == "".join(p.text for p in parts)
    assert not any(m in plain for m in MARKS)
    assert plain == plain.strip() and "  " not in plain
    for part in parts:
        assert part.text
        assert (part.script is None) == (part.raised == "")
    offset = 0
    for part in parts:  # a relation of the base text, not at either end, has a space each side
        if part.script is None:
            for m in re.finditer("[∈≥=≤→≠⊆]", part.text):
                at = offset + m.start()
                if 0 < at < len(plain) - 1:
                    assert plain[at - 1] == " " and plain[at + 1] == " ", plain
        offset += len(part.text)


@SETTINGS
@given(st.text(alphabet=list("$^_{}\\ax1 ,") + list(MARKS), max_size=60))
def test_no_mark_leaks_whatever_the_text(text: str) -> None:
    readable = readable_text(text)
    html = spans_to_html(parse_spans(text))
    assert not any(m in readable or m in html for m in MARKS)
    assert readable == "".join(s.text for s in parse_spans(text))
    title = derive_title(readable, None)
    assert not any(m in title for m in MARKS)


@SETTINGS
@given(
    st.sampled_from([r"\alpha", r"\beta", "x", r"\epsilon"]),
    st.sampled_from([r"\in", r"\geq", "=", r"\le"]),
    st.sampled_from(["(0,1)", "(0, 1)", "(-1,1)", r"(\epsilon, \delta)"]),
    SPACES,
)
def test_derived_titles_keep_an_operand_in_parentheses(var: str, rel: str, interval: str, space: str) -> None:
    raw = f"We derive generalization bounds with ${var}{space}{rel}{space}{interval}$ and more data sets."
    readable = readable_text(raw)
    title = derive_title(readable, None)
    shown = latex_to_unicode(f"${interval}$")
    assert shown in title and f" {latex_to_unicode(f'${rel}$')} {shown}" in title
