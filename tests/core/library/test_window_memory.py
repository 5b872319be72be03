"""What the window holds at a million papers: answers kept with a cap on their memory,
ids read into one array, a search's parts added in as each is evaluated.

No timing or RSS is asserted: the memory is measured by bench/coldstart.py; these keep its causes.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from test_search_ranking import make_docs
from test_semantic_mapped import _random_store

from desk.core.library.facade import Library
from desk.core.search import SearchIndex, ranking
from desk.core.search.compiler import compile_query
from desk.core.search.postings import Corpus
from desk.core.search.query import parse
from desk.core.search.ranking import AllOf, AnyOf, Combine, PhraseTerms, Terms, evaluate, rank, top
from desk.core.semantic import vectors as vectors_module
from desk.core.semantic.vectors import SemanticVectors

FIELDS = (("title", 5.0), ("abstract", 1.0))


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Corpus:
    ix = SearchIndex(tmp_path_factory.mktemp("memory") / "index")
    docs = make_docs()
    ix.rebuild(docs, len(docs))
    return ix._current()


def test_a_phrase_answer_is_kept_as_its_papers_alone_and_within_a_cap(
    corpus: Corpus, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The kept answer holds the papers where the phrase holds and their scores (not two arrays
    over every paper), gives the same arrays again, and the answers kept hold at most PHRASE_KEPT
    papers (the newest is kept whatever its size)."""
    corpus.phrases.clear()
    plan = PhraseTerms(FIELDS, ("perform", "test"))
    scores, mask = evaluate(corpus, plan)
    assert scores is not None and mask.sum() >= 1
    docs, at = corpus.phrases[plan]
    assert len(docs) == len(at) == int(mask.sum()) < corpus.n
    again_scores, again_mask = evaluate(corpus, plan)
    assert np.array_equal(again_scores, scores) and np.array_equal(again_mask, mask)
    again_scores[:] = 1  # the caller's own arrays: the kept answer is untouched
    assert np.array_equal(evaluate(corpus, plan)[0], scores)

    monkeypatch.setattr(ranking, "PHRASE_KEPT", int(mask.sum()))
    other = PhraseTerms(FIELDS, ("rout", "tabl"))
    assert evaluate(corpus, other)[1].sum() >= 1
    assert list(corpus.phrases) == [other]


def test_ranking_adds_each_part_as_it_comes_with_the_sums_of_all_parts_at_once(corpus: Corpus) -> None:
    """rank() no longer holds every part's arrays: its relevance, mask and counts are those of
    the parts evaluated first and summed in order, bit for bit (shoulds, musts, nested alternatives)."""
    words = [Terms((("title", w, 5.0), ("abstract", w, 1.0))) for w in ("perform", "rout", "network", "loss")]
    plans = [
        Combine(shoulds=tuple(words), coordinate=True),
        Combine(shoulds=(words[0], AnyOf((words[1], words[2]))), musts=(AllOf((words[2], words[3])),)),
        Combine(musts=(AllOf((words[1],)), words[2]), coordinate=True),
        compile_query(parse("performance routing tables")).plan,
    ]
    for plan in plans:
        parts = [evaluate(corpus, p) for p in plan.shoulds]
        children = [c for m in plan.musts for c in (m.children if isinstance(m, AllOf) else (m,))]
        musts = [evaluate(corpus, c) for c in children]
        parts += musts
        if musts:
            mask = np.logical_and.reduce([m for _, m in musts])
        else:
            mask = np.logical_or.reduce([m for _, m in parts])
        present = [s for s, _ in parts if s is not None]
        relevance = present[0].astype(np.float32, copy=True) if present else None
        for s in present[1:]:
            relevance += s
        if plan.coordinate:
            bonus = np.zeros(corpus.n, np.float32)
            for _, m in parts:
                df = int(m.sum())
                if df:
                    bonus += m * np.float32(np.log(1 + (corpus.n - df + 0.5) / (df + 0.5)))
            relevance = bonus if relevance is None else relevance + bonus
        ranked = rank(corpus, plan)
        assert np.array_equal(ranked.mask, mask)
        assert relevance is not None and ranked.relevance is not None
        assert np.array_equal(ranked.relevance, relevance)
        total, _, _, values = top(corpus, ranked, 3)
        assert values.dtype == np.float64 and total == int((mask & corpus.alive).sum())


def test_the_library_reads_its_ids_into_one_array(seeded: Library) -> None:
    """Every paper's id, ascending, as int64: not a list of a million ints (and their rows) that
    the window's vectors check held ~130 MB for; the vectors are checked against it as against a list."""
    ids = seeded.discovery._all_ids()
    assert isinstance(ids, np.ndarray) and ids.dtype == np.int64
    assert ids.tolist() == sorted(p.id for p in seeded.list_papers())
    seeded.discovery.ensure_vectors()
    assert not seeded.vectors.pending(ids) and not seeded.vectors.pending(ids.tolist())
    assert seeded.vectors.pending(ids[1:])


def test_store_rows_are_kept_for_two_ids_arrays_at_most(tmp_path: Path) -> None:
    """Each index generation's ids array gets its rows in the store once; a window's edits make a
    generation each, and the rows of at most MAPS_KEPT of them are kept (with their arrays)."""
    _random_store(tmp_path / "vectors", 300)
    vectors = SemanticVectors(tmp_path / "vectors")
    vectors.load()
    data = vectors.current
    assert data is not None
    query = data.rows(7)
    arrays = [data.ids.copy() for _ in range(5)]
    for ids in arrays:
        vectors.cosines(query, ids)
        assert len(vectors._maps) <= vectors_module.MAPS_KEPT == 2


def test_products_of_many_rows_are_taken_a_chunk_at_a_time(tmp_path: Path) -> None:
    """A query's cosines with the papers a common word matches (100k of a million) converted
    every matched row to int16 and float32 at once (~110 MB); they are now converted
    CHUNK_ROWS rows at a time, with the products ``products`` gives those rows."""
    import tracemalloc

    from desk.core.semantic import store

    rows, dims = 8 * store.CHUNK_ROWS + 123, 64
    _random_store(tmp_path / "vectors", rows, dims)
    data = store.read(tmp_path / "vectors")
    query = data.rows(7)
    picked = np.arange(0, rows, 1, dtype=np.int64)[::-1].copy()  # every row, in another order
    expected = data.products(query)[picked]
    tracemalloc.start()
    try:
        got = data.products_at(picked, query)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert np.allclose(got, expected, rtol=1e-5, atol=1e-6)  # BLAS may sum a row in another order
    one_copy = rows * dims * 4  # a float32 copy of every picked row
    assert peak < one_copy / 2, peak
