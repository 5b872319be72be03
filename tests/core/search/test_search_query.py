"""The query language: tokenizer, parser, compiler; no index needed."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from desk.core.search.compiler import compile_query
from desk.core.search.query import (
    AndNode,
    Filter,
    Group,
    NotNode,
    OrNode,
    PhraseNode,
    Word,
    parse,
)
from desk.core.search.ranking import AllOf, AnyOf, Flag, Negate, PhraseTerms, Prefixes, Terms
from desk.core.search.schema import BOOSTS


def test_bare_words_are_separate_parts() -> None:
    parsed = parse("Diffusion  policies")
    assert [type(p) for p in parsed.parts] == [Word, Word]
    assert parsed.message is None
    compiled = compile_query(parsed)
    assert compiled.terms == ["diffus", "polici"]
    assert compiled.ranked
    assert len(compiled.plan.shoulds) == 2


def test_operators_are_uppercase_only() -> None:
    assert isinstance(parse("a1 OR b1").parts[0], OrNode)
    assert [type(p) for p in parse("a1 or b1").parts] == [Word, Word, Word]
    assert isinstance(parse("x1 AND y1").parts[0], AndNode)
    assert isinstance(parse("NOT x1").parts[0], NotNode)
    assert isinstance(parse("-x1").parts[0], NotNode)


def test_and_binds_tighter_than_or() -> None:
    (node,) = parse("a1 OR b1 AND c1").parts
    assert isinstance(node, OrNode)
    assert isinstance(node.children[1], AndNode)


def test_fields_filters_phrases_prefixes() -> None:
    parts = parse('title:graph note:"read later" is:starred -is:read has:note policy* short:RACER').parts
    assert parts[0] == Word("graph", "title", False, 6, 11)
    assert isinstance(parts[1], PhraseNode) and parts[1].field == "note"
    assert parts[2] == Filter("starred", True)
    assert parts[3] == NotNode(Filter("read", True))
    assert parts[4] == Filter("has_note", True)
    assert isinstance(parts[5], Word) and parts[5].prefix and parts[5].text == "policy"
    compiled = compile_query(
        parse('title:graph note:"read later" is:starred -is:read has:note policy* short:RACER')
    )
    plan = compiled.plan
    assert plan.filters == (Flag("starred", True), Flag("has_note", True))
    assert plan.negatives == (Flag("read", True),)
    assert plan.shoulds[0] == Terms((("title", "graph", BOOSTS["title"]),))
    assert isinstance(plan.shoulds[1], PhraseTerms) and plan.shoulds[1].fields == (("note", 1.0),)
    assert isinstance(plan.shoulds[2], Prefixes)
    assert compiled.prefixes == ["policy", "polici"]  # the prefix typed and its stem


def test_filters_only_list_instead_of_rank() -> None:
    compiled = compile_query(parse("is:unread -is:starred"))
    assert not compiled.ranked
    assert compiled.plan.filters == (Flag("read", False),)
    assert not compile_query(parse("")).ranked
    assert not compile_query(parse("the of")).ranked  # stop words only


def test_hyphenated_word_needs_all_parts_or_the_exact_short_name() -> None:
    plan = compile_query(parse("STAR-KV")).plan
    (node,) = plan.shoulds
    assert isinstance(node, AnyOf)
    parts = node.children[0]
    assert isinstance(parts, AllOf)
    assert [t.items[0][1] for t in parts.children if isinstance(t, Terms)] == ["star", "kv"]
    assert node.children[1] == Terms((("short_kw", "star-kv", 5.0),))


def test_quoted_phrase_checks_positions() -> None:
    (node,) = compile_query(parse('"graph neural network"')).plan.shoulds
    assert isinstance(node, PhraseTerms) and node.terms == ("graph", "neural", "network")
    assert [f for f, _ in node.fields] == ["title", "abstract", "note"]


def test_unknown_field_searches_both_words() -> None:
    parts = parse("colour:smith").parts  # author: is a field now (a rich list's authors)
    assert [p.text for p in parts if isinstance(p, Word)] == ["colour", "smith"]


def test_parenthesised_group_is_one_part() -> None:
    parts = parse("(graph OR tree) -pruning").parts
    assert isinstance(parts[0], OrNode) and isinstance(parts[1], NotNode)
    parts = parse("(graph tree) pruning").parts
    assert isinstance(parts[0], Group) and len(parts) == 2


@pytest.mark.parametrize(
    ("query", "words"),
    [
        ("(open group", ["open", "group"]),
        ("closing) extra", ["closing", "extra"]),
        ("OR lonely", ["lonely"]),
        ("lonely AND", ["lonely"]),
        ("title: empty", ["empty"]),
        ("dangling NOT", ["dangling"]),
        ("is:fancy", ["is", "fancy"]),
    ],
)
def test_broken_queries_keep_their_words_and_explain(query: str, words: list[str]) -> None:
    parsed = parse(query)
    assert parsed.message or parsed.hint  # a hint when the query is only unfinished (test_search_unfinished)
    found: list[str] = []

    def walk(node: object) -> None:
        if isinstance(node, Word):
            found.append(node.text)
        for child in getattr(node, "children", ()):
            walk(child)

    for part in parsed.parts:
        walk(part)
    assert found == words


def test_negations_are_not_highlight_terms() -> None:
    compiled = compile_query(parse("graph -tree NOT forest"))
    assert compiled.terms == ["graph"]
    assert len(compiled.plan.negatives) == 2


def test_double_negation_cancels() -> None:
    assert isinstance(parse("NOT -graph").parts[0], Word)


def test_nested_and_or_compile() -> None:
    plan = compile_query(parse("(a1 AND b1) OR NOT c1")).plan
    (node,) = plan.shoulds
    assert isinstance(node, AnyOf)
    assert isinstance(node.children[0], AllOf) and isinstance(node.children[1], Negate)


def test_long_queries_are_capped() -> None:
    parsed = parse(" ".join(f"w{i}" for i in range(500)))
    assert len(parsed.parts) == 64 and parsed.message
    deep = parse("(" * 5000 + "x" + ")" * 5000)
    assert deep.parts is not None


@settings(max_examples=500, deadline=None)
@given(st.text(max_size=300))
def test_parse_and_compile_never_raise(query: str) -> None:
    compile_query(parse(query))
