"""A note's inline math, rendered for its preview as the abstracts render theirs."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from desk.core.text.latex import convert_math
from desk.core.text.note_math import render_note_math


def test_inline_math_becomes_unicode_and_the_rest_stays() -> None:
    note = "An $\\epsilon$-greedy policy in $O(n^2)$ time over $\\mathbb{R}^d$."
    assert render_note_math(note) == (
        f"An {convert_math(chr(92) + 'epsilon')}-greedy policy in O(n²) time over ℝᵈ."
    )


def test_money_code_and_fences_are_not_math() -> None:
    assert render_note_math("costs $5 and $10 a month") == "costs $5 and $10 a month"
    assert render_note_math("write `$\\alpha$` for alpha") == "write `$\\alpha$` for alpha"
    fenced = "```\n$\\alpha$\n```\nthen $\\alpha$"
    assert render_note_math(fenced) == "```\n$\\alpha$\n```\nthen α"
    assert render_note_math("no math here") == "no math here"


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab $\\`{}^_\n*")), max_size=80))
def test_any_note_renders_in_bounded_time_and_keeps_text_without_dollars(text: str) -> None:
    out = render_note_math(text)
    if "$" not in text:
        assert out == text
    assert isinstance(out, str)
