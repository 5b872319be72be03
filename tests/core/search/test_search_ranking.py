"""Ranking: BM25F, exact word forms, word proximity, typed words searched with their corrections."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from desk.core.search import IndexDoc, SearchIndex, SearchResult, rescore
from desk.core.search.compiler import QueryWord, compile_query
from desk.core.search.postings import Corpus, PostingCache
from desk.core.search.query import parse
from desk.core.search.ranking import AnyOf, Ranked, Terms, top
from desk.core.search.rescore import RESCORE_DEPTH, Rescorer, forms, plural_base
from desk.core.search.schema import BOOSTS, TEXT_FIELDS
from desk.core.search.snippets import Highlighter

FILLER = [
    "Throughput and latency of storage systems: performance under heavy performance tests.",
    "Compiler performance, performance regressions and performance budgets in large codebases.",
    "Performance counters explain the performance of vectorised kernels.",
    "We perform ablations; the models perform well and performed better than baselines.",
    "Database performance tuning with learned cost models and performance hints.",
    "Packet routing in data-centre networks; routing tables and routing policies for switches.",
    "Routing requests across replicas: adaptive routing and load-aware routing at scale.",
    "Network routing protocols and routing convergence after link failures.",
]

CRAFTED = [
    # id, title, abstract
    (1, "Deployed predictors", "Deployed predictors shift their data: a performative setting."),
    (2, "Vehicle routing", "Vehicle routing with learned solvers for delivery fleets."),
    (3, "Units over time", "Plasticity varies across units; later the loss drops in networks."),
    (4, "Networks over time", "We observe a loss of plasticity across many units in deep networks later."),
]


def make_docs() -> list[IndexDoc]:
    docs = [IndexDoc(i, 1, t, "", a, "", False, False, ("Crafted",)) for i, t, a in CRAFTED]
    docs += [
        IndexDoc(100 + i, 1, a.split(":")[0][:40], "", a, "", False, False, ("Filler",))
        for i, a in enumerate(FILLER)
    ]
    return docs


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> SearchIndex:
    ix = SearchIndex(tmp_path_factory.mktemp("ranking") / "index")
    docs = make_docs()
    ix.rebuild(docs, len(docs))
    return ix


def ids(result: SearchResult) -> list[int]:
    return [h.id for h in result.hits]


def test_the_form_typed_outranks_other_words_of_its_stem(
    index: SearchIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    # "performative" stems to "perform", like "performance", which the filler repeats more often.
    result = index.search("performative")
    assert {1, 100, 101, 102} <= set(ids(result))
    assert ids(result)[0] == 1
    assert ids(index.search("performatives"))[0] == 1  # up to a plural
    monkeypatch.setattr(rescore, "EXACT_WEIGHT", 0.0)
    assert ids(index.search("performative"))[0] != 1


def test_adjacent_query_words_outrank_scattered_ones(
    index: SearchIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    # 4 says "loss of plasticity" in a longer abstract; 3 has both words, apart and reversed.
    assert ids(index.search("loss of plasticity"))[:2] == [4, 3]
    assert ids(index.search("loss plasticity"))[:2] == [4, 3]
    monkeypatch.setattr(rescore, "PROXIMITY_WEIGHT", 0.0)
    monkeypatch.setattr(rescore, "SENTENCE_WEIGHT", 0.0)  # 4's words also share a sentence
    assert ids(index.search("loss of plasticity"))[:2] == [3, 4]


def test_an_unknown_word_is_searched_with_its_correction(index: SearchIndex) -> None:
    # "routing" alone finds four papers, so the typed words do not "find little";
    # the correction of "vehicel" still ranks the vehicle-routing paper first.
    result = index.search("vehicel routing")
    assert result.suggestion == "vehicle routing"
    assert not result.corrected
    assert ids(result)[0] == 2
    assert {105, 106, 107} <= set(ids(result))
    assert "vehicl" in result.terms


def test_a_correction_alone_says_corrected(index: SearchIndex) -> None:
    result = index.search("vehicel")
    assert result.corrected and ids(result) == [2]


def test_a_paper_with_more_of_the_query_words_comes_first(index: SearchIndex) -> None:
    """Routing papers repeat "routing"; the one that also says "vehicle" comes first."""
    result = index.search("vehicle routing")
    assert ids(result)[0] == 2
    assert [h.score for h in result.hits] == sorted((h.score for h in result.hits), reverse=True)


def test_a_rare_word_outweighs_two_common_ones(tmp_path: Path) -> None:
    """Soft coordination: the part a paper matches counts by its idf, not one part one point.

    Paper 1 has only the rare "zeugma"; papers 2-9 have the common "learning" and "model".
    """
    docs = [IndexDoc(1, 1, "Figures", "", "A zeugma joins two clauses with one verb.", "", False, False, ())]
    docs += [
        IndexDoc(i, 1, f"Study {i}", "", f"Learning a model of task {i}.", "", False, False, ())
        for i in range(2, 10)
    ]
    ix = SearchIndex(tmp_path / "index")
    ix.rebuild(docs, len(docs))
    hits = ix.search("zeugma learning model").hits
    assert hits[0].id == 1 and hits[0].parts == 1
    assert all(h.parts == 2 for h in hits[1:])


def test_compiled_alternatives_and_words() -> None:
    compiled = compile_query(parse("vehicel routing"), {(0, 7): "vehicle"})
    first = compiled.plan.shoulds[0]
    assert isinstance(first, AnyOf)
    assert Terms(tuple((f, "vehicl", BOOSTS[f]) for f in TEXT_FIELDS)) in first.children
    assert compiled.words == [
        QueryWord("vehicel", "vehicel", 0),
        QueryWord("vehicl", "vehicle", 0),
        QueryWord("rout", "routing", 1),
    ]
    assert "vehicl" in compiled.terms
    # fielded words, prefixes and negated words are not rescored
    assert compile_query(parse("title:graph diffus* -tree nets")).words == [QueryWord("net", "nets", 2)]


def test_plural_base_and_forms() -> None:
    assert plural_base("policies") == "policy" == plural_base("policy")
    assert plural_base("routers") == "router"
    assert plural_base("loss") == "loss"
    assert plural_base("corpus") == "corpus"
    assert forms("policy") == {"policy", "policies", "policys"}
    assert "loss" in forms("loss") and "losses" not in forms("loss")


def test_rescorer_counts_ordered_neighbours_within_a_sentence(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rescore, "SENTENCE_WEIGHT", 0.0)  # proximity alone here
    words = [QueryWord("loss", "loss", 0), QueryWord("plastic", "plasticity", 1)]
    rescorer = Rescorer(words, lambda stem: 10, {"loss": 10, "plasticity": 10}, 1000)
    assert rescorer.active and not rescorer.exact  # the forms typed are as common as the stems
    hl = Highlighter(["loss", "plastic"])

    def bonus(text: str) -> float:
        return rescorer.bonus([(text, hl.matches(text))])

    near = bonus("a loss of plasticity")
    assert near > 0
    assert bonus("plasticity before loss") == 0  # order matters
    assert bonus("a loss. Plasticity") == 0  # not across sentences
    assert bonus("loss of all the plasticity") == 0  # too far apart
    assert bonus("loss plasticity, and a loss of plasticity") > near  # counted, saturated


def test_rescorer_counts_query_words_that_share_a_sentence() -> None:
    """Words together in one sentence, in any order, earn the idf of all but the rarest of them."""
    words = [
        QueryWord("loss", "loss", 0),
        QueryWord("plastic", "plasticity", 1),
        QueryWord("unit", "units", 2),
    ]
    df = {"loss": 100, "plastic": 10, "unit": 50}
    rescorer = Rescorer(words, df.__getitem__, {"loss": 100, "plasticity": 10, "units": 50}, 1000)
    hl = Highlighter(["loss", "plastic", "unit"])

    def bonus(text: str) -> float:
        return rescorer.bonus([(text, hl.matches(text))])

    idf = {stem: rescore.idf(n, 1000) for stem, n in df.items()}
    assert bonus("units show plasticity, then their loss grows") == pytest.approx(idf["loss"] + idf["unit"])
    assert bonus("units show plasticity. Then the loss grows") == pytest.approx(idf["unit"])  # best sentence
    assert bonus("plasticity. Then loss. Then units") == 0  # each alone in its sentence


def test_the_paper_whose_sentence_holds_the_query_words_comes_first(tmp_path: Path) -> None:
    """The same words, none adjacent: the abstract saying them in one sentence outranks a shorter
    one that scatters them over three."""
    abstracts = [
        "Sparse gradients help. Memory is scarce. Tokens are long.",
        "Long tokens need sparse and very scarce memory. Gradients help.",
    ]
    abstracts += [f"Unrelated abstract number {i} about graphs." for i in range(6)]
    docs = [IndexDoc(i + 1, 1, "Paper", "", a, "", False, False, ("C",)) for i, a in enumerate(abstracts)]
    ix = SearchIndex(tmp_path / "index")
    ix.rebuild(docs, len(docs))
    assert ids(ix.search("sparse memory tokens"))[:2] == [2, 1]


def test_the_parts_of_one_hyphenated_word_are_a_proximity_pair() -> None:
    """ "fine-tuning" requires both parts anywhere; they earn the pair's bonus where they stand
    together, as "guided" next to "fine" does."""
    words = compile_query(parse("guided fine-tuning")).words
    rescorer = Rescorer(words, lambda stem: 10, {}, 1000)
    assert {(words[a].surface, words[b].surface) for a, b in rescorer.pairs} == {
        ("guided", "fine"),
        ("fine", "tuning"),
    }


def test_a_pair_earns_the_idf_of_the_papers_where_its_words_stand_together(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Two pairs of equally common words: the one that rarely stands together earns more, and
    each pair's frequency is asked once, only when a candidate holds it."""
    monkeypatch.setattr(rescore, "SENTENCE_WEIGHT", 0.0)  # proximity alone here
    words = compile_query(parse("feature based knowledge distillation")).words
    feature, based, knowledge, distillation = (w.stem for w in words)
    together = {(feature, based): 6, (based, knowledge): 2, (knowledge, distillation): 60}
    asked: list[tuple[str, str]] = []

    def pair_frequency(first: str, second: str) -> int:
        asked.append((first, second))
        return together[(first, second)]

    rescorer = Rescorer(words, lambda stem: 120, {}, 2400, pair_frequency)
    hl = Highlighter([w.stem for w in words])

    def bonus(text: str) -> float:
        return rescorer.bonus([(text, hl.matches(text))])

    rare, common = bonus("a feature based method"), bonus("a knowledge distillation method")
    assert rare == pytest.approx(rescore.PROXIMITY_WEIGHT * rescore.idf(6, 2400))
    assert common == pytest.approx(rescore.PROXIMITY_WEIGHT * rescore.idf(60, 2400))
    assert rare > common
    bonus("feature based. Then knowledge distillation")
    assert asked == [(feature, based), (knowledge, distillation)]  # never (based, knowledge)
    # without counts the pair's words stand for it, as before
    plain = Rescorer(words, lambda stem: 120, {}, 2400)
    text = "a feature based method"
    assert plain.bonus([(text, hl.matches(text))]) == pytest.approx(
        rescore.PROXIMITY_WEIGHT * rescore.idf(120, 2400)
    )


def test_a_paper_holding_a_rare_pair_outranks_one_holding_a_common_pair(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Both papers hold the three words, each with one adjacent pair. "memory tokens" stands
    together in eleven papers, "tokens transfer" in one: the paper holding the rare pair comes
    first, although the shorter one would on the pairs' words alone."""
    common = "Memory tokens help us transfer context."
    rare = "A memory of many tokens transfer context to later layers."
    filler = ["Memory tokens store the context, and later the tokens get a transfer."] * 10
    filler += [f"Unrelated abstract {i} about graph colouring and scheduling." for i in range(30)]
    abstracts = [common, rare, *filler]
    docs = [IndexDoc(i + 1, 1, "Paper", "", a, "", False, False, ("C",)) for i, a in enumerate(abstracts)]
    ix = SearchIndex(tmp_path / "index")
    ix.rebuild(docs, len(docs))
    assert ids(ix.search("memory tokens transfer"))[0] == 2

    def mean_idf(self: Rescorer, a: int, b: int) -> float:  # the pair's words stand for it
        return (self.idf[self.words[a].stem] + self.idf[self.words[b].stem]) / 2

    monkeypatch.setattr(rescore.Rescorer, "_pair", mean_idf)
    assert ids(ix.search("memory tokens transfer"))[0] == 1


def test_rescorer_weighs_a_rare_form_of_a_common_stem() -> None:
    words = [QueryWord("perform", "performative", 0)]
    rescorer = Rescorer(words, lambda stem: 500, {"performative": 3, "performance": 497}, 1000)
    assert rescorer.exact[0] > 4  # idf(3 papers) - idf(500 papers)
    hl = Highlighter(["perform"])
    text = "performance, performative"
    assert rescorer.bonus([(text, hl.matches(text))]) == pytest.approx(rescorer.exact[0])
    assert not Rescorer([QueryWord("learn", "learning", 0)], lambda s: 50, {"learning": 50}, 100).active


def test_highlighter_keeps_word_starts_and_unicode_offsets() -> None:
    hl = Highlighter(["polici"])
    assert hl.matches("depolicies and Policies") == [(15, 23, "polici")]
    text = "İstanbul policies"  # "İ".lower() is two characters
    ((start, end, term),) = hl.matches(text)
    assert text[start:end] == "policies" and term == "polici"


def test_pages_are_slices_of_one_ranking_across_the_rescored_depth(tmp_path: Path) -> None:
    abstracts = [
        "Graph routing with learned heuristics.",
        "Routing on a graph, and graph routing again.",
        "Graph methods; routing elsewhere.",
        "Graph routing with learned heuristics.",  # ties with the first
    ]
    docs = [
        IndexDoc(i, 1, f"Paper {i}", "", abstracts[i % 4] + f" Case {i}.", "", False, False, ())
        for i in range(1, 2 * RESCORE_DEPTH + 21)
    ]
    ix = SearchIndex(tmp_path / "index")
    ix.rebuild(docs, len(docs))
    full = ids(ix.search("graph routing", limit=len(docs)))
    assert len(full) == len(docs)
    for offset in (0, 10, RESCORE_DEPTH - 5, RESCORE_DEPTH, RESCORE_DEPTH + 7):
        assert ids(ix.search("graph routing", limit=10, offset=offset)) == full[offset : offset + 10]
    assert ids(ix.search("graph routing", limit=3)) == full[:3]


def test_a_hit_keeps_the_parts_it_matched_and_its_relevance_apart(index: SearchIndex) -> None:
    first, second = index.search("vehicle routing").hits[:2]
    assert (first.parts, second.parts) == (2, 1)
    assert first.relevance > second.relevance > 0
    assert first.score == first.relevance


RELEVANCES = [0.0, 0.5, 1.25, 7.0]  # few values: many ties


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 3), st.sampled_from(RELEVANCES), st.booleans()), max_size=40),
    st.integers(0, 45),
)
def test_the_best_k_are_the_first_k_by_parts_then_relevance_then_id(
    rows: list[tuple[int, float, bool]], k: int
) -> None:
    n = len(rows)
    corpus = Corpus(searcher=None, cache=PostingCache(), n=n)  # no searcher: top() reads no postings
    corpus.alive = np.array([alive for _, _, alive in rows], bool)
    corpus.ids = np.arange(n, 0, -1, dtype=np.int64)  # ids run against docnums: ties go to the lower id
    ranked = Ranked(
        np.array([r for _, r, _ in rows], np.float32), np.ones(n, bool), np.array([p for p, _, _ in rows])
    )
    total, docs, parts, relevance = top(corpus, ranked, k)
    live = [d for d in range(n) if rows[d][2]]
    expected = sorted(live, key=lambda d: (-rows[d][0], -rows[d][1], corpus.ids[d]))[:k]
    assert total == len(live)
    assert docs.tolist() == expected
    assert parts.tolist() == [rows[d][0] for d in expected]
    assert relevance.tolist() == [rows[d][1] for d in expected]


def test_a_title_word_finds_its_abstracts_other_form(tmp_path: Path) -> None:
    """Snowball stems: "Calibrating ... Weakly" (a title's words) meet "calibration" and "weak"
    in an abstract; Whoosh's Porter stemmed them "calibrat" / "calibr" and "weakli" / "weak"."""
    abstracts = [
        "Confidence calibration of detectors under weak labels.",
        "Detectors trained on many boxes.",
        "Running a weak baseline.",
    ]
    docs = [
        IndexDoc(i + 1, 1, f"Paper {i + 1}", "", a, "", False, False, ()) for i, a in enumerate(abstracts)
    ]
    ix = SearchIndex(tmp_path / "index")
    ix.rebuild(docs, len(docs))
    assert ids(ix.search("calibrating detectors"))[0] == 1
    assert ids(ix.search("weakly calibrated"))[0] == 1
    assert ids(ix.search("run")) == [3]
