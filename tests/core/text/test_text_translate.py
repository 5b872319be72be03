"""Translator is str.translate, faster: the same output for every table desk uses, on any text."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from desk.core.dedup import shingles
from desk.core.text import markup, normalize
from desk.core.text.translate import Translator

TABLES = {
    "near-duplicate symbols": shingles._FIRST_TABLE,
    "near-duplicate cleanup": shingles._LAST_TABLE,
    "key folding": normalize._FOLD,
    "key markup": normalize._MARKUP,
    "invisible characters": markup._CLEAN_TABLE,
}
TRANSLATORS = {name: Translator(table) for name, table in TABLES.items()}
# Text with the characters the tables hold, not only what st.text() happens to draw.
interesting = st.sampled_from(
    [chr(k) for table in TABLES.values() for k in list(table)[:: max(1, len(table) // 300)]]
    + list("aZ09 _-*$\\{}`'\"\t\n—–−αβ²³×√ϵℓ𝒪ﬁ\u200b\u0301İß")
)
texts = st.one_of(st.text(max_size=200), st.lists(interesting, max_size=120).map("".join))


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(TABLES))
@settings(max_examples=300, deadline=None)
@given(text=texts)
def test_same_as_str_translate(name: str, text: str) -> None:
    assert TRANSLATORS[name](text) == text.translate(TABLES[name])


def test_a_table_whose_two_passes_would_disagree_is_refused() -> None:
    with pytest.raises(ValueError, match="ASCII pass"):
        Translator({ord("α"): "a-b", ord("-"): " "})
