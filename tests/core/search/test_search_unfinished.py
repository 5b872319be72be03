"""Queries being typed and hostile queries.

An unfinished end -- an open quote, a trailing ``field:``, operator or ``-`` -- is one short
hint, not a problem; what is complete is searched, an open quote as the start of a phrase;
field names, operators and the word being typed are never spell-corrected.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from desk.cli.main import main
from desk.core.search import IndexDoc, SearchIndex
from desk.core.search.compiler import compile_query
from desk.core.search.query import NotNode, PhraseNode, Word, parse
from desk.core.search.ranking import PhraseTerms, Prefixes
from desk.core.search.schema import BOOSTS
from desk.core.search.spelling import MAX_LENGTH, Lexicon

# ---- the parser --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("query", "hint", "empty"),
    [
        ('"large lang', "“large lang…”", False),
        ("title:", "“title:” needs a word after it.", True),
        ("title:   ", "“title:” needs a word after it.", True),
        ("Title:", "“Title:” needs a word after it.", True),
        ("diffusion title:", "“title:” needs a word after it.", False),
        ('title:"', "A quote is open", True),
        ('"', "A quote is open", True),
        ('"l', "A quote is open", True),
        ("diffusion AND", "“AND” needs a word after it.", False),
        ("diffusion OR ", "“OR” needs a word after it.", False),
        ("OR", "“OR” needs a word after it.", True),
        ("NOT", "“NOT” needs a word after it.", True),
        ("diffusion NOT ", "“NOT” needs a word after it.", False),
        ("diffusion -", "“-” needs a word after it.", False),
        ("-", "“-” needs a word after it.", True),
        ("is:sta", "Finish the filter: is:starred.", True),
        ("has:", "Finish the filter: has:note", True),
        ("has:t", "Finish the filter: has:tag.", True),
        ("(graph OR tree", "parenthesis is open", False),
        ('(graph "neural net', "“neural net…”", False),
        ('diffusion tag:"two wo', "the tag “two wo…” counts", False),
        ('tag:"two wo', "the tag “two wo…” counts", True),
    ],
)
def test_an_unfinished_end_is_one_hint_not_a_problem(query: str, hint: str, empty: bool) -> None:
    parsed = parse(query, typing=True)
    assert parsed.message is None  # nothing is wrong, it is only not finished
    assert parsed.hint is not None and hint in parsed.hint
    assert parsed.hint.count(".") == 1 or parsed.hint.endswith(".")  # one short sentence
    assert "one by one" not in parsed.hint and "last complete" not in parsed.hint
    assert compile_query(parsed).empty is empty


def test_finished_queries_have_no_hint() -> None:
    for query in ('"large language"', "title:graph", "a1 AND b1", "NOT x1", "-x1", "is:starred", "(a1 b1)"):
        assert parse(query, typing=True).hint is None, query


def test_a_problem_in_the_middle_is_still_a_problem() -> None:
    parsed = parse("title: graph OR AND tree")
    assert parsed.message and "title:" in parsed.message and "OR" in parsed.message
    assert parsed.hint is None


TEXT_BOOSTS = (("title", BOOSTS["title"]), ("abstract", 1.0), ("note", 1.0))


def test_open_quote_is_a_phrase_whose_last_word_is_a_prefix() -> None:
    parsed = parse('"large lang')
    assert parsed.parts == [PhraseNode("large lang", None, 1, 11, prefix=True)]
    compiled = compile_query(parsed)
    (plan,) = compiled.plan.shoulds
    assert plan == PhraseTerms(TEXT_BOOSTS, ("larg",), ("lang",))
    assert compiled.terms == ["larg"] and compiled.prefixes == ["lang"]
    assert compiled.spell_words == []  # an open quote is typed word for word: none is corrected
    # One word typed: a prefix; a space after the last word: the whole phrase.
    (one,) = compile_query(parse('"langu')).plan.shoulds
    assert one == Prefixes(TEXT_BOOSTS, ("langu",))
    (whole,) = compile_query(parse('"large language ')).plan.shoulds
    assert whole == PhraseTerms(TEXT_BOOSTS, ("larg", "languag"))
    (field,) = compile_query(parse('title:"large lang')).plan.shoulds
    assert isinstance(field, PhraseTerms) and field.fields == (("title", BOOSTS["title"]),)


def test_the_word_being_typed_is_not_offered_for_correction() -> None:
    typed = compile_query(parse("diffusion polic", typing=True)).spell_words
    assert [w.text for w in typed] == ["diffusion"]
    finished = compile_query(parse("diffusion polic")).spell_words  # the command line: a finished query
    assert [w.text for w in finished] == ["diffusion", "polic"]
    spaced = compile_query(parse("diffusion polic ", typing=True)).spell_words
    assert [w.text for w in spaced] == ["diffusion", "polic"]


def test_field_names_are_not_offered_for_correction() -> None:
    parts = parse("titel:graph").parts
    assert parts == [Word("titel", None, False, 0, 5, spell=False), Word("graph", None, False, 6, 11)]
    assert [w.text for w in compile_query(parse("titel:graph")).spell_words] == ["graph"]


def test_a_thousand_nots_are_one_negation_or_none() -> None:
    assert parse("NOT " * 1000 + "policy").parts == [Word("policy", None, False, 4000, 4006)]
    (node,) = parse("NOT " * 1001 + "policy").parts
    assert isinstance(node, NotNode) and node.child == Word("policy", None, False, 4004, 4010)
    assert parse("NOT " * 1000).hint == "“NOT” needs a word after it."
    assert parse("- NOT " * 800 + "x1").parts == [Word("x1", None, False, 4800, 4802)]
    compile_query(parse("(NOT " * 500 + "x1"))


# Pieces a person types; every prefix of a sequence of them is a query as it is being typed.
PIECES = st.sampled_from(
    [
        "large", "language", "polic*", "title:", "note:", "is:", "is:starred", "has:note", "short:",
        "AND", "OR", "NOT", "-", '"', "(", ")", " ", "  ", "*", "titel:", "α", "\udcff", "x" * 45,
    ]
)  # fmt: skip


@pytest.mark.slow
@settings(max_examples=250, deadline=None)
@given(st.lists(PIECES, max_size=14).map("".join), st.booleans())
def test_every_prefix_of_a_typed_query_parses(query: str, typing: bool) -> None:
    for end in range(len(query) + 1):
        typed = query[:end]
        parsed = parse(typed, typing=typing)
        compiled = compile_query(parsed)
        assert parsed.hint is None or parsed.hint.endswith(".")
        for w in compiled.spell_words:
            assert typed[w.end : w.end + 1] != ":"  # a field name is never corrected
            if typing:
                assert w.end < len(typed)  # nor the word being typed


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=400), st.booleans())
def test_any_text_parses(query: str, typing: bool) -> None:
    compile_query(parse(query, typing=typing))


def test_long_words_are_not_spell_corrected() -> None:
    lexicon = Lexicon()
    long_word = "a" * (MAX_LENGTH + 1)
    lexicon.add([long_word, "policy"])
    assert lexicon.correct("policz", lambda _: False) == "policy"
    assert lexicon.correct("a" * MAX_LENGTH + "b", lambda _: False) is None  # one edit away, but too long


# ---- searching ------------------------------------------------------------------------------

DOCS = [
    (1, "Scaling laws", "Large language models follow scaling laws."),
    (2, "Sampling", "Large langevin steps sample the posterior of long chains."),
    (3, "Apart", "A large model of language, not the phrase."),
    (4, "Large Language Agents", "Agents that plan with a title of their own."),
    (5, "Long horizons", "Long horizon tasks are long."),
    (6, "Policy search", "A policy, two policies, and policing."),
]


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> SearchIndex:
    ix = SearchIndex(tmp_path_factory.mktemp("unfinished") / "index")
    docs = [IndexDoc(i, 1, t, "", a, "", False, False, ("Test",)) for i, t, a in DOCS]
    ix.rebuild(docs, len(docs))
    return ix


def ids(index: SearchIndex, query: str, typing: bool = True) -> set[int]:
    return {h.id for h in index.search(query, typing=typing).hits}


def test_an_open_quote_finds_the_phrase_started(index: SearchIndex) -> None:
    result = index.search('"large lang', typing=True)
    assert {h.id for h in result.hits} == {1, 2, 4}  # not 3: its words are apart
    assert result.suggestion is None and result.message is None
    assert result.hint and "“large lang…”" in result.hint and not result.no_new_query
    assert ids(index, '"large langu') == {1, 4}
    assert ids(index, 'title:"large lang') == {4}
    assert ids(index, '"large language models') == {1}
    assert ids(index, '"large language models"') == {1}
    assert ids(index, '"large lang', typing=False) == {1, 2, 4}  # the command line does the same


def test_nothing_complete_means_no_new_query(index: SearchIndex) -> None:
    for query in ("title:", "title:  ", '"', 'title:"', "NOT", "OR", "-", "is:sta", "(", '"l'):
        result = index.search(query, typing=True)
        assert result.no_new_query, query
        assert result.hits == () and result.total == 0 and result.suggestion is None
        assert result.hint
    finished = index.search("large AND", typing=True)
    assert not finished.no_new_query and {h.id for h in finished.hits} == {1, 2, 3, 4}
    assert not index.search("").no_new_query  # an empty box lists everything, as before


def test_the_word_being_typed_gets_no_did_you_mean(index: SearchIndex) -> None:
    # A finished query: the start of a word the library has is completed, not made another word.
    assert index.search("large lang", typing=False).suggestion == "large language"
    typed = index.search("large lang", typing=True)
    assert typed.suggestion is None and not typed.corrected
    assert index.search("lareg lang", typing=True).suggestion == "large lang"  # earlier words are


def test_field_names_and_operators_are_never_corrected(index: SearchIndex) -> None:
    for query in ("titel:large", "title:", "large AND", "large ANDD", "large OR polic"):
        suggestion = index.search(query, typing=True).suggestion
        assert suggestion is None or suggestion.split()[0] == query.split()[0], query
    assert index.search("titel:large").suggestion is None  # "titel" is a field name typed wrong


def test_undecodable_bytes_in_a_query_are_left_out(index: SearchIndex) -> None:
    broken = index.search("polic\udcff*")
    assert {h.id for h in broken.hits} == ids(index, "polic*") == {6}
    assert broken.message is None  # not "the search index could not be read"
    assert index.search("\udcff\udcfe").hits == index.search("").hits


def test_a_huge_word_is_searched_and_not_corrected(index: SearchIndex) -> None:
    result = index.search("policy " + "a" * 15000)
    assert result.suggestion is None and {h.id for h in result.hits} == {6}
    assert index.search("NOT " * 1000 + "policy").total == 1


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(PIECES, max_size=10).map("".join))
def test_every_prefix_searches(index: SearchIndex, query: str) -> None:
    for end in range(0, len(query) + 1, 3):
        result = index.search(query[:end], typing=True, limit=5)
        assert result.message is None or "could not be read" not in result.message
        if result.no_new_query:
            assert result.hint and not result.hits


def test_cli_searches_an_open_quote(capsys: pytest.CaptureFixture[str], seeded_dir: Path) -> None:
    code = main(["--library", str(seeded_dir), "search", '"large lang', "--json"])
    out, err = capsys.readouterr()
    assert code == 0 and err == ""
    assert '"suggestion": null' in out and '"total": 0' not in out
    code = main(["--library", str(seeded_dir), "search", '"large lang'])
    out, err = capsys.readouterr()
    assert code == 0 and "“large lang…”" in err and "Did you mean" not in out
    code = main(["--library", str(seeded_dir), "search", "title:"])
    out, err = capsys.readouterr()
    assert code == 0 and "“title:” needs a word after it." in err and "0 hit" in out
    code = main(["--library", str(seeded_dir), "search", "polic\udcff*"])
    out, err = capsys.readouterr()
    assert code == 0 and "could not be read" not in err and "polic" not in err
    code = main(["--library", str(seeded_dir), "export", "--query", "NOT " * 1000 + "policy"])
    out, err = capsys.readouterr()
    assert code == 0 and "Recursion" not in err and out.count("\n## ") > 3
