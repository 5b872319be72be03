"""Papers like a paper ("more like this"), and hits for papers ranked elsewhere (recommendations)."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from desk.core.search.hits import empty, make_hits, ms
from desk.core.search.model import Marks, SearchResult
from desk.core.search.postings import Corpus
from desk.core.search.ranking import Ranked, bm25f, top
from desk.core.search.snippets import Highlighter
from desk.core.semantic.fusion import related_fusion

if TYPE_CHECKING:  # the library hands its vectors over; nothing of them is needed to import this
    from desk.core.semantic.vectors import SemanticVectors

RELATED_TERMS = 12
NOT_INDEXED = "That paper is not in the index."


def related(
    corpus: Corpus, semantic: SemanticVectors | None, doc_id: int, limit: int, started: float
) -> SearchResult:
    """Papers most like ``doc_id``, without it: its key terms' BM25F fused with its vector's cosine.

    Without vectors (not built yet), the key terms alone.
    """
    label = f"related:{doc_id}"
    where = np.flatnonzero((corpus.ids == doc_id) & corpus.alive)
    if not len(where):
        return empty(label, started, NOT_INDEXED)
    docnum = int(where[0])
    stored = corpus.searcher.stored_fields(docnum)
    text = f"{stored.get('title', '')}\n{stored.get('abstract', '')}"
    keys = corpus.searcher.key_terms_from_text("abstract", text, numterms=RELATED_TERMS)
    vec = semantic.vector_of(doc_id) if semantic is not None else None
    if not keys and vec is None:
        return empty(label, started, None)
    heaviest = max((w for _, w in keys), default=1.0) or 1.0
    scores = np.zeros(corpus.n, np.float32)
    mask = np.zeros(corpus.n, bool)
    for term, weight in keys:
        s, m = bm25f(corpus, [("abstract", term, 1.0), ("title", term, 2.0)])
        scores += s * np.float32(weight / heaviest)
        mask |= m
    if vec is not None and semantic is not None:
        scores, mask = related_fusion(scores, mask, semantic.cosines(vec, corpus.ids))
    mask[docnum] = False
    total, docs, parts, values = top(corpus, Ranked(scores, mask), limit)
    terms = tuple(t for t, _ in keys)
    found = list(zip(docs.tolist(), parts.tolist(), values.tolist(), strict=True))
    hits = make_hits(corpus, found, Highlighter(terms), {})
    return SearchResult(label, total, hits, ms(started), None, False, terms, None, marks=Marks(terms))


def word_scores(corpus: Corpus, words: Sequence[tuple[str, float]]) -> tuple[np.ndarray, np.ndarray]:
    """(ids ascending, scores) of the live papers that hold any of ``words`` ((stem, weight)):
    each stem's BM25F over the abstract and the title (as "more like this" weighs a key term)
    times its weight, summed."""
    scores = np.zeros(corpus.n, np.float32)
    mask = np.zeros(corpus.n, bool)
    for stem, weight in words:
        s, m = bm25f(corpus, [("abstract", stem, 1.0), ("title", stem, 2.0)])
        scores += s * np.float32(weight)
        mask |= m
    mask &= corpus.alive
    ids = corpus.ids[mask]
    order = np.argsort(ids, kind="stable")
    return ids[order].astype(np.int64), scores[mask][order].astype(np.float64)


def listing(
    corpus: Corpus,
    label: str,
    scored: Sequence[tuple[int, float]],
    total: int,
    started: float | None = None,
    terms: Sequence[str] = (),
) -> SearchResult:
    """Hits for papers ranked elsewhere; ids not indexed left out. Each snippet is the abstract's
    passage richest in ``terms`` (stems: why the papers were ranked so, marked), else its lead."""
    started = time.perf_counter() if started is None else started
    live = np.flatnonzero(corpus.alive)
    docnum_of = dict(zip(corpus.ids[live].tolist(), live.tolist(), strict=True))
    found = [(docnum_of[i], 0, score) for i, score in scored if i in docnum_of]
    stems = tuple(terms)
    hits = make_hits(corpus, found, Highlighter(stems), {})
    return SearchResult(label, total, hits, ms(started), None, False, stems, None, marks=Marks(stems))
