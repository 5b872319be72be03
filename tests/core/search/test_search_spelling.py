"""Spelling: which corrections are chosen, when a word is left alone, and the results they give."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from desk.core.search import IndexDoc, SearchIndex
from desk.core.search.spelling import Lexicon, _one_edit


def _lexicon(counts: dict[str, int]) -> Lexicon:
    lex = Lexicon()
    lex.add_counts(counts)
    return lex


def _never(_: str) -> bool:
    return False


COUNTS = {
    "shape": 50,
    "shapes": 30,
    "shapley": 5,
    "value": 40,
    "progressive": 40,
    "progresive": 1,  # one abstract's typo
    "transformer": 60,
    "learning": 90,
    "model": 500,
    "modal": 10,
    "mode": 4,
    "segmentation": 70,
}


@pytest.mark.parametrize(
    ("typed", "fix"),
    [
        ("shapely", "shapley"),  # a swap; "shape" (two edits, far commoner) does not win
        ("progresive", "progressive"),  # a missing letter; the typo is in one paper, the word in 40
        ("progrressive", "progressive"),  # a doubled letter
        ("trasnformer", "transformer"),  # a swap
        ("lerning", "learning"),
        ("modle", "model"),  # the swap "model" beats the one-edit but rarer "mode"
        ("segmantation", "segmentation"),
    ],
)
def test_corrections_prefer_close_words_the_library_uses_often(typed: str, fix: str) -> None:
    assert _lexicon(COUNTS).correct(typed, _never) == fix


@pytest.mark.parametrize("word", ["modal", "mode", "shapley", "value"])
def test_a_word_the_library_uses_is_never_corrected(word: str) -> None:
    """ "modal" is one edit from "model", fifty times as common: it is still the library's word."""
    assert _lexicon(COUNTS).correct(word, _never) is None


def test_a_rare_word_gives_way_only_to_a_far_commoner_one() -> None:
    lex = _lexicon({"shapely": 1, "shapley": 5, "progresive": 1, "progressive": 40})
    assert lex.correct("shapely", _never) is None  # Shapley is not twenty times as common
    assert lex.correct("progresive", _never) == "progressive"


def test_a_form_of_a_word_the_library_has_is_corrected_by_one_slip_only() -> None:
    """ "signing" is no paper's word but its stem "sign" is: not two edits into "skinning"."""
    lex = _lexicon({"sign": 30, "signs": 12, "skinning": 40, "shape": 50, "shapley": 5})
    indexed = {"sign", "shape", "skin", "shapley"}.__contains__
    assert lex.correct("signing", _never) == "skinning"  # a stem the library lacks: two edits allowed
    assert lex.correct("signing", indexed) is None
    assert lex.correct("shapely", indexed) == "shapley"  # one swap still is a slip


def test_signing_avatars_finds_the_sign_language_paper(tmp_path: Path) -> None:
    papers = [_doc(1, "Avatars that sign: we reconstruct sign language avatars from video.")]
    papers += [_doc(10 + i, f"Linear blend skinning of avatars, part {i}, from video.") for i in range(5)]
    ix = SearchIndex(tmp_path / "index")
    ix.rebuild(papers, len(papers))
    result = ix.search("reconstructing signing avatars video")
    assert result.suggestion is None
    assert result.hits[0].id == 1


def test_a_name_typed_with_capitals_is_left_as_typed(index: SearchIndex) -> None:
    """ "SHAPELY" and "ShapeLy" are written as a name is: no "did you mean"; "Shapely" still is corrected."""
    assert index.search("SHAPELY value").suggestion is None
    assert index.search("ShapeLy value").suggestion is None
    assert index.search("Shapely value").suggestion == "shapley value"


@given(st.text(alphabet="abc", max_size=6), st.text(alphabet="abc", max_size=6))
def test_one_edit_agrees_with_levenshtein(a: str, b: str) -> None:
    row = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        prev, row[0] = row[0], i
        for j, cb in enumerate(b, 1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (ca != cb))
    assert _one_edit(a, b) == (row[-1] <= 1)


def _doc(i: int, abstract: str) -> IndexDoc:
    return IndexDoc(i, 1, f"Paper {i}", "", abstract, "", False, False, ("Test",))


@pytest.fixture()
def index(tmp_path: Path) -> SearchIndex:
    papers = [
        _doc(1, "We attribute predictions with the Shapley value of each feature."),
        _doc(2, "Shapley values explain a classifier; we approximate the Shapley value fast."),
        _doc(3, "A progressive growing scheme trains generators from coarse to fine."),
        _doc(4, "Domain generalisation learns from several source domains."),
        _doc(5, "Domain generalization with style mixing of source domains."),
        _doc(6, "Colour constancy estimates the illuminant of a scene."),
        _doc(7, "Modelling long videos with memory."),
        _doc(8, "Modeling long videos with state spaces."),
    ]
    papers += [_doc(10 + i, f"The shape of object {i} and its value for shape matching.") for i in range(6)]
    ix = SearchIndex(tmp_path / "index")
    ix.rebuild(papers, len(papers))
    return ix


def test_a_misspelt_word_whose_stem_is_another_word_is_searched_as_its_correction(index: SearchIndex) -> None:
    """ "shapely" stems to "shape", found in six papers; the Shapley papers are what was meant."""
    result = index.search("shapely value")
    assert result.suggestion == "shapley value"
    assert [h.id for h in result.hits[:2]] == [2, 1]
    assert all(h.parts == 1 for h in result.hits if h.id >= 10)  # their "value" only: not "shape"


def test_results_come_from_the_correction_when_the_typed_word_finds_nothing(index: SearchIndex) -> None:
    result = index.search("progresive")
    assert result.suggestion == "progressive"
    assert result.corrected
    assert [h.id for h in result.hits] == [3]


def test_british_and_american_spellings_find_each_other(index: SearchIndex) -> None:
    assert {h.id for h in index.search("domain generalization").hits} >= {4, 5}
    assert {h.id for h in index.search("domain generalisation").hits} >= {4, 5}
    assert {h.id for h in index.search("color constancy").hits} == {6}
    assert {h.id for h in index.search("modeling long videos").hits} >= {7, 8}


_SPELLING_WORDS = [
    "generalisation",
    "generalization",
    "organise",
    "organised",
    "organizers",
    "analyse",
    "analyzed",
    "paralysing",
    "colour",
    "colours",
    "colouring",
    "behavioral",
    "honour",
    "labelling",
    "labeled",
    "modelling",
    "modeling",
    "model",
    "travellers",
    "centre",
    "centres",
    "theatre",
    "metre",
    "tre",
    "or",
    "our",
    "is",
    "iz",
    "ys",
    "yz",
    "el",
    "ell",
    "diffusion",
    "isation",
    "ization",
]


@given(st.one_of(st.sampled_from(_SPELLING_WORDS), st.text(alphabet="abeilnorstuyzcdg", max_size=14)))
def test_other_spellings_are_every_rules_result_though_rules_are_compiled_only_for_their_letters(
    word: str,
) -> None:
    """A rule is compiled only for a word holding its letters (a `desk search` process compiled all
    eleven, ~3 ms of look-behinds, for any query): what the rules make of a word is as before."""
    import re

    from desk.core.search.spelling import _SPELLINGS, other_spellings

    every = {re.compile(pattern).sub(repl, word, count=1) for pattern, repl, _ in _SPELLINGS} - {word}
    assert other_spellings(word) == every
    for pattern, _, needs in _SPELLINGS:
        if re.search(pattern, word):
            assert needs in word, (pattern, word)


def test_a_search_for_words_without_a_rules_letters_compiles_no_spelling_rule() -> None:
    from desk.core.search.spelling import _SPELLINGS, _spelling_rule, other_spellings

    _spelling_rule.cache_clear()
    assert other_spellings("diffusion") == set() and _spelling_rule.cache_info().currsize == 0
    assert other_spellings("modelling") == {"modeling"} and _spelling_rule.cache_info().currsize == 2
    assert len(_SPELLINGS) == 11
