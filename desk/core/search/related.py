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
from desk.core.semantic import fusion
from desk.core.semantic.fusion import related_fusion

if TYPE_CHECKING:  # the library hands its vectors over; nothing of them is needed to import this
    from desk.core.semantic.encoded import EncodedVectors
    from desk.core.semantic.vectors import SemanticVectors

RELATED_TERMS = 12
RELATED_NEAR = 200  # papers nearest in the encoder's meaning, past EXACT_MAX papers (its index)
LEXICAL_READ = 2000  # ... and the key terms' best papers, whose encoder cosines are read beside them
NOT_INDEXED = "That paper is not in the index."


def related(
    corpus: Corpus,
    semantic: SemanticVectors | None,
    doc_id: int,
    limit: int,
    started: float,
    encoded: EncodedVectors | None = None,
) -> SearchResult:
    """Papers most like ``doc_id``, without it: its key terms' BM25F fused with its vector's cosine.

    The cosine is LSA's, or once the sentence encoder's vectors cover every paper of the index,
    LSA's and the encoder's mixed (fusion.RELATED_LSA_SHARE, RELATED_ENCODER_SHARE). Without
    vectors (not built yet), the key terms alone.
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
    enc_vec = None
    if encoded is not None and encoded.covers(corpus.ids, corpus.alive):
        enc_vec = encoded.vector_of(doc_id)
    if not keys and vec is None and enc_vec is None:
        return empty(label, started, None)
    heaviest = max((w for _, w in keys), default=1.0) or 1.0
    scores = np.zeros(corpus.n, np.float32)
    mask = np.zeros(corpus.n, bool)
    for term, weight in keys:
        s, m = bm25f(corpus, [("abstract", term, 1.0), ("title", term, 2.0)])
        scores += s * np.float32(weight / heaviest)
        mask |= m
    if enc_vec is not None and encoded is not None:
        # the shares read at the call, so that a benchmark may set them
        share = np.float32(fusion.RELATED_ENCODER_SHARE)
        cosine = share * _encoder_cosines(corpus, encoded, enc_vec, scores, mask)
        if vec is not None and semantic is not None and fusion.RELATED_LSA_SHARE:
            lsa = np.maximum(semantic.cosines(vec, corpus.ids), 0)
            cosine += np.float32(fusion.RELATED_LSA_SHARE) * lsa
        scores, mask = related_fusion(scores, mask, cosine)
    elif vec is not None and semantic is not None:
        scores, mask = related_fusion(scores, mask, semantic.cosines(vec, corpus.ids))
    mask[docnum] = False
    total, docs, parts, values = top(corpus, Ranked(scores, mask), limit)
    terms = tuple(t for t, _ in keys)
    found = list(zip(docs.tolist(), parts.tolist(), values.tolist(), strict=True))
    hits = make_hits(corpus, found, Highlighter(terms), {})
    return SearchResult(label, total, hits, ms(started), None, False, terms, None, marks=Marks(terms))


def _encoder_cosines(
    corpus: Corpus, encoded: EncodedVectors, vec: np.ndarray, scores: np.ndarray, mask: np.ndarray
) -> np.ndarray:
    """The encoder's cosine (clipped at 0) of ``vec`` with each docnum: every paper's up to
    neighbours.EXACT_MAX papers (one pass over the rows); past it, those of the RELATED_NEAR
    papers nearest (the neighbour index) and of the key terms' LEXICAL_READ best (``scores``
    where ``mask``), 0 for the rest, which rank below them anyway."""
    from desk.core.semantic.neighbours import EXACT_MAX

    stored = encoded.ids
    if stored is None or len(stored) <= EXACT_MAX:
        return np.maximum(encoded.cosines_of(vec, corpus.ids), 0)
    near_ids, _ = encoded.nearest(vec, RELATED_NEAR)
    lexical = np.flatnonzero(mask)
    if len(lexical) > LEXICAL_READ:
        lexical = lexical[np.argpartition(-scores[lexical], LEXICAL_READ - 1)[:LEXICAL_READ]]
    docnums = np.union1d(np.flatnonzero(np.isin(corpus.ids, near_ids) & corpus.alive[: corpus.n]), lexical)
    out = np.zeros(corpus.n, np.float32)
    out[docnums] = np.maximum(encoded.cosines_of(vec, corpus.ids[docnums]), 0)
    return out


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
