"""Duplicate keys and the stemmer: equal across cosmetic variation, different across papers."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from desk.core.search.schema import stem_analyzer
from desk.core.text import dedup_key, readable_text, stem_word

SEEDS = Path(__file__).resolve().parents[3] / "seeds"


def seed_paragraphs() -> list[str]:
    """Every abstract of the bundled seeds: header line skipped, paragraphs split on blank lines."""
    out: list[str] = []
    for path in sorted(SEEDS.glob("*.txt")):
        body = path.read_text(encoding="utf-8").split("\n", 1)[1]
        out += [p.strip() for p in re.split(r"\n\s*\n", body) if p.strip()]
    return out


BASE = 'We propose RACER, a router for "LLM" sets - it is 20x faster - see https://a.b/c.'


@pytest.mark.parametrize(
    "variant",
    [
        'We  propose\tRACER,\na router for "LLM" sets - it is 20x faster - see https://a.b/c.',
        'WE PROPOSE racer, A ROUTER FOR "llm" SETS - IT IS 20X FASTER - SEE HTTPS://A.B/C.',
        "We propose RACER, a router for “LLM” sets – it is 20x faster – see https://a.b/c.",
        "We propose RACER, a router for ``LLM'' sets -- it is 20x faster --- see https://a.b/c.",
        'We propose **RACER**, a router for "LLM" sets - it is 20x faster - see https://a.b/c.',
        r'We propose \textbf{RACER}, a router for "LLM" sets - it is 20x faster - see \url{https://a.b/c}.',
        'We propose *RACER*, a router for "LLM" sets - it is 20x faster - see https://a.b/c.',
        "We propose RACER, a router for &quot;LLM&quot; sets - it is 20x faster - see https://a.b/c.",
        'We pro\u200bpose RACER,\u00a0a router for "LLM" sets - it is 20x faster - see https://a.b/c.',
        'We propose RACER, a router for "LLM" sets — it is 20x faster — see https://a.b/c',
    ],
)
def test_key_equal_across_cosmetic_variants(variant: str) -> None:
    assert dedup_key(variant) == dedup_key(BASE)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        (r"the $\alpha$-VOR problem", "the α-VOR problem"),
        (r"up to 20$\times$ faster and $\geq 3$", "up to 20× faster and ≥ 3"),
        (r"a \textbf{S}equential method", "a Sequential method"),
        ("the ﬁnal ﬂow", "the final flow"),
        ("AT&amp;T", "AT&T"),
        ("AT&amp;amp;T", "AT&T"),
        ("it’s the ‘best’", "it's the 'best'"),
        (r"D$^2$TR", "D²TR"),
        (r"$O(n^2)$", "O(n²)"),
        ("Ａｂｃ", "abc"),
    ],
)
def test_key_equal_latex_unicode_entities(a: str, b: str) -> None:
    assert dedup_key(a) == dedup_key(b)


def test_key_differs_for_different_text() -> None:
    assert dedup_key("We propose RACER.") != dedup_key("We propose RACE.")
    assert dedup_key("policy gradient") != dedup_key("policy gradients")


def test_seed_keys_distinct_except_the_shared_abstract() -> None:
    paragraphs = seed_paragraphs()
    assert len(paragraphs) == 95
    keys = [dedup_key(p) for p in paragraphs]
    assert len(set(keys)) == 94
    assert len(set(paragraphs)) == 94  # the one repeated abstract is the only collision


def test_key_is_words_only() -> None:
    key = dedup_key(r"**Hello**, World! $\alpha$ 3.5")
    assert key == "hello world α 3 5"
    assert dedup_key("") == ""
    assert dedup_key("$$ ** \\ {}") == ""


def test_key_of_readable_matches_raw_on_seeds() -> None:
    for raw in seed_paragraphs():
        assert dedup_key(readable_text(raw)) == dedup_key(raw)


@pytest.mark.parametrize(
    "word", ["policies", "Policy", "running", "generalization", "LLMs", "diffusion", "über"]
)
def test_stem_word_matches_the_search_index_analyzer(word: str) -> None:
    # The reading pane highlights by stem_word: it must stem as the index does.
    assert [t.text for t in stem_analyzer()(word)] == [stem_word(word)]


def test_stem_word_groups_inflections() -> None:
    assert stem_word("policies") == stem_word("policy") == stem_word("Policy")
    assert stem_word("Routing") == stem_word("routes")
    # Porter2, not Whoosh's Porter (which stems "running" "runn" and "calibrating" "calibrat",
    # apart from "calibration"), and "generation" stays apart from "general".
    assert stem_word("running") == stem_word("run")
    assert stem_word("calibrating") == stem_word("calibration") == stem_word("calibrated")
    assert stem_word("weakly") == stem_word("weak")
    assert stem_word("generation") != stem_word("general")
