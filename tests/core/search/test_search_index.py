"""Searching a real index built from the bundled seeds plus a few crafted papers."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from desk.core.search import IndexDoc, SearchIndex, SearchResult
from desk.core.search.snippets import stem_word

SEEDS = Path(__file__).resolve().parents[3] / "seeds"

CRAFTED = [
    # id, title, short name, abstract
    (
        901,
        "Kangaroo routing with learned graphs",
        "",
        "We study routing for a kangaroo sanctuary with learned graphs.",
    ),
    (
        902,
        "Marsupial movement statistics",
        "",
        "Kangaroo herds are counted across seasons, and kangaroo tracks are modelled from camera traps.",
    ),
    (
        903,
        "Tracking wombat burrows",
        "WOMBAT-X",
        "A single policy tracks wombat burrows from drone images of wombat colonies.",
    ),
    (
        904,
        "Wombat colony census",
        "",
        "Drone images of wombat burrows give a census of wombat colonies across seasons.",
    ),
    (
        905,
        "Learning safe offline",
        "",
        "Reinforcement of safe habits while learning offline, without any simulator.",
    ),
    (906, "Diffusion of ideas", "", "The diffusion of wombat research across colonies of scholars."),
]


def seed_abstracts() -> list[str]:
    out: list[str] = []
    for path in sorted(SEEDS.glob("*.txt")):
        paragraphs = [p.strip() for p in path.read_text(encoding="utf-8").split("\n\n")]
        out.extend(p for p in paragraphs[1:] if p)
    return out


def make_docs() -> list[IndexDoc]:
    docs = [
        IndexDoc(i, 1, " ".join(a.split()[:10]), "", a, "", False, False, ("ICML 2026 Papers",))
        for i, a in enumerate(seed_abstracts(), start=1)
    ]
    docs += [IndexDoc(i, 1, t, s, a, "", False, False, ("Zoo Workshop",)) for i, t, s, a in CRAFTED]
    return docs


@pytest.fixture(scope="module")
def docs() -> list[IndexDoc]:
    return make_docs()


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory, docs: list[IndexDoc]) -> SearchIndex:
    ix = SearchIndex(tmp_path_factory.mktemp("search") / "index")
    ix.rebuild(docs, len(docs))
    return ix


def ids(result: SearchResult) -> list[int]:
    return [h.id for h in result.hits]


def by_id(docs: list[IndexDoc]) -> dict[int, IndexDoc]:
    return {d.id: d for d in docs}


def test_seeds_are_all_indexed(index: SearchIndex, docs: list[IndexDoc]) -> None:
    assert len(docs) > 90
    assert index.search("").total == len(docs)


def test_stemming_finds_other_forms(index: SearchIndex) -> None:
    # 903 says "policy" only; the query says "policies".
    assert 903 in ids(index.search("policies", limit=200))
    assert 903 in ids(index.search("POLICIES", limit=200))


def test_phrase_needs_adjacent_words(index: SearchIndex, docs: list[IndexDoc]) -> None:
    phrase = index.search('"safe offline reinforcement learning"', limit=200)
    loose = index.search("safe offline reinforcement learning", limit=200)
    assert phrase.hits and 905 not in ids(phrase)
    assert 905 in ids(loose)
    for hit in phrase.hits:
        assert "safe offline reinforcement learning" in by_id(docs)[hit.id].abstract.lower()


def test_prefix_query(index: SearchIndex) -> None:
    result = index.search("diffus*", limit=200)
    assert 906 in ids(result)
    assert "diffus" in result.terms
    # "policy*" must reach the stem "polici" too.
    assert 903 in ids(index.search("policy*", limit=200))


@pytest.mark.parametrize(
    ("query", "present", "absent"),
    [
        ("title:kangaroo", {901}, {902}),
        ("abstract:kangaroo", {901, 902}, set()),
        ("short:wombat-x", {903}, {904}),
        ("name:WOMBAT-X", {903}, {904}),
        ("collection:zoo", {901, 906}, {1, 2}),
        ('collection:"zoo workshop"', {901}, {1}),
    ],
)
def test_field_queries(index: SearchIndex, query: str, present: set[int], absent: set[int]) -> None:
    found = set(ids(index.search(query, limit=500)))
    assert present <= found
    assert not absent & found


def test_unknown_field_is_searched_literally(index: SearchIndex) -> None:
    assert 903 in ids(index.search("foo:wombat"))


def test_not_and_minus_exclude(index: SearchIndex) -> None:
    for query in ("wombat -drone", "wombat NOT drone", "wombat NOT DRONE"):
        assert set(ids(index.search(query))) == {906}


def test_or_is_a_union(index: SearchIndex) -> None:
    union = set(ids(index.search("kangaroo OR wombat", limit=100)))
    assert union == set(ids(index.search("kangaroo"))) | set(ids(index.search("wombat")))


def test_and_requires_both(index: SearchIndex) -> None:
    assert set(ids(index.search("wombat AND census"))) == {904}


def test_coordination_ranks_more_words_first_and_tolerates_unknown_words(index: SearchIndex) -> None:
    result = index.search("wombat census seasons", limit=10)
    assert ids(result)[0] == 904
    assert {903, 906} <= set(ids(result))  # they miss two of the words and are still found
    odd = index.search("kangaroo zzqxwv")
    assert set(ids(odd)) == {901, 902}


def test_a_title_counts_less_than_a_second_abstract_occurrence(index: SearchIndex) -> None:
    # 902 says kangaroo twice in its abstract; 901 once, and once in its title, which weighs a
    # quarter of an abstract occurrence (schema.BOOSTS): a title's words are its abstract's already.
    assert ids(index.search("kangaroo"))[:2] == [902, 901]
    assert ids(index.search("title:kangaroo")) == [901]


def test_acronym_and_paraphrased_title(index: SearchIndex) -> None:
    assert ids(index.search("wombat-x"))[0] == 903
    assert ids(index.search("burrow tracking of wombats"))[0] == 903


def test_empty_and_filter_only_queries_list_in_id_order(index: SearchIndex, docs: list[IndexDoc]) -> None:
    result = index.search("", limit=500)
    assert ids(result) == sorted(d.id for d in docs)
    page = index.search("", limit=5, offset=5)
    assert ids(page) == ids(result)[5:10]
    assert page.total == len(docs)


def test_pages_follow_the_ranking(index: SearchIndex) -> None:
    full = index.search("reinforcement learning", limit=40)
    page = index.search("reinforcement learning", limit=10, offset=10)
    assert ids(page) == ids(full)[10:20]
    assert page.total == full.total >= 40


def test_snippet_highlights_point_at_matched_words(index: SearchIndex) -> None:
    result = index.search("policies wombats")
    assert result.hits
    for hit in result.hits:
        assert hit.highlights
        for start, end in hit.highlights:
            assert stem_word(hit.snippet[start:end]) in result.terms
    long_hit = index.search('"normalizing flows"').hits[0]
    assert long_hit.snippet.startswith("…") or long_hit.snippet.endswith("…")
    assert len(long_hit.snippet) <= 260


def test_suggestion_and_correction(index: SearchIndex) -> None:
    typo = index.search("reinforcment lerning")
    assert typo.suggestion == "reinforcement learning"
    assert not typo.corrected  # "reinforcment" still stems to reinforc and finds papers
    lost = index.search("lerning")
    assert lost.suggestion == "learning"
    assert lost.corrected and lost.total > 3
    assert "learn" in lost.terms
    assert index.search("reinforcement learning").suggestion is None
    assert index.search("kangaroo").suggestion is None


def test_related_excludes_itself_and_finds_neighbours(index: SearchIndex) -> None:
    result = index.search("")
    assert result.total
    related = index.related(904, limit=5)
    assert 904 not in ids(related)
    assert ids(related)[0] == 903
    assert 906 in ids(related)
    assert index.related(123456).hits == ()


def test_parse_problems_still_search_and_explain(index: SearchIndex) -> None:
    result = index.search('"wombat burrows')
    assert result.hint and "Quote open" in result.hint  # being typed: a hint, not a problem
    assert 903 in ids(result)
    assert index.search("title: wombat").message
    assert index.search("wombat").message is None


@pytest.mark.slow
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.one_of(
        st.text(max_size=200),
        st.text(alphabet='"()*-+:ORANDNT isstarredhasnote\x00\x1b\n\t title', max_size=60),
        st.sampled_from(
            ["*", "**", '"', "NOT", "OR OR", "AND", "-", "((((", "title:", "is:", "a*", "-is:starred"]
        ),
        st.text(min_size=5000, max_size=20000, alphabet='abc ()"*-'),
    )
)
def test_no_query_raises(index: SearchIndex, query: str) -> None:
    result = index.search(query, limit=7)
    assert result.message is None or "could not be read" not in result.message  # no internal error
    assert result.total >= len(result.hits)
    assert len(result.hits) <= 7


class TestWrites:
    """Writes go to a private copy of the index."""

    @pytest.fixture()
    def ix(self, tmp_path: Path) -> SearchIndex:
        ix = SearchIndex(tmp_path / "index")
        ix.rebuild(make_docs(), 0)
        return ix

    def test_note_words_are_searchable_after_update(self, ix: SearchIndex) -> None:
        doc = by_id(make_docs())[1]
        assert not ix.search("note:platypus").hits
        ix.update([replace(doc, rev=2, note="Compare with the *platypus* paper.")])
        assert ids(ix.search("note:platypus")) == [1]
        assert ids(ix.search("platypus")) == [1]
        assert 1 in ids(ix.search("has:note"))
        hit = ix.search("platypus").hits[0]
        assert "platypus" in hit.snippet  # the note matched, so the snippet comes from it
        assert ix.search("platypuss").suggestion == "platypus"

    @pytest.mark.slow
    def test_flags_after_update(self, ix: SearchIndex) -> None:
        docs = by_id(make_docs())
        ix.update([replace(docs[903], starred=True, read=True), replace(docs[904], rev=5)])
        assert ids(ix.search("is:starred")) == [903]
        assert ids(ix.search("wombat is:starred")) == [903]
        assert 903 not in ids(ix.search("wombat -is:starred"))
        assert ids(ix.search("wombat is:read")) == [903]
        assert 903 not in ids(ix.search("wombat is:unread"))
        assert ix.revisions()[904] == 5
        assert ix.search("").total == len(docs)  # replaced, not added

    def test_delete(self, ix: SearchIndex) -> None:
        ix.delete([901, 424242])
        assert ids(ix.search("kangaroo")) == [902]
        assert 901 not in ix.revisions()
        assert ix.related(901).hits == ()
