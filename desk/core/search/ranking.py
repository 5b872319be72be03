"""Coordination ranking with BM25F over the numpy postings of postings.py.

A document's score is ``parts_matched * COORD_BONUS + relevance``: more
distinct query parts first, then relevance. Relevance is BM25F as Robertson
and Zaragoza define it: per term, each field's frequency is normalised by the
field's length and weighted by the field's boost, the weighted frequencies
are summed, and only that sum is saturated, so a word in the title adds to its
weight in the abstract instead of scoring a second, separately saturated
time. Phrases intersect the posting arrays first and read positions only for
the documents holding every word.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from desk.core.search.postings import Corpus

#: Larger than any BM25F score one query part reaches (boosts included).
COORD_BONUS = 1000.0
B, K1 = 0.75, 1.2
MAX_EXPANSION = 256  # terms a prefix expands to, per field
PHRASE_CACHE = 16  # phrase answers kept per index generation


# ---- plan: what query.py compiles to ----------------------------------------------------


@dataclass(frozen=True)
class Terms:
    """Documents holding any of the (field, term, boost) triples; BM25F summed."""

    items: tuple[tuple[str, str, float], ...]


@dataclass(frozen=True)
class Prefixes:
    """Documents holding a term starting with one of ``texts`` in ``fields``."""

    fields: tuple[tuple[str, float], ...]
    texts: tuple[str, ...]


@dataclass(frozen=True)
class PhraseTerms:
    """Documents holding ``terms`` at consecutive positions in one of ``fields``."""

    fields: tuple[tuple[str, float], ...]
    terms: tuple[str, ...]


@dataclass(frozen=True)
class Flag:
    fieldname: str
    value: bool


@dataclass(frozen=True)
class Negate:
    child: Plan


@dataclass(frozen=True)
class All:
    children: tuple[Plan, ...]


@dataclass(frozen=True)
class Any_:
    children: tuple[Plan, ...]


@dataclass(frozen=True)
class Combine:
    """Filters required, negatives excluded, musts required, shoulds optional."""

    shoulds: tuple[Plan, ...] = ()
    musts: tuple[Plan, ...] = ()  # each an All whose children count as parts
    filters: tuple[Plan, ...] = ()
    negatives: tuple[Plan, ...] = ()
    coordinate: bool = False  # the top level: each part adds COORD_BONUS


Plan = Terms | Prefixes | PhraseTerms | Flag | Negate | All | Any_ | Combine
Scored = tuple[np.ndarray | None, np.ndarray]  # (scores or None, mask) over all docnums

# ---- evaluation ---------------------------------------------------------------------------------


def evaluate(corpus: Corpus, plan: Plan) -> Scored:
    """Scores (None: all zero) and match mask of a plan over the corpus."""
    n = corpus.n
    if isinstance(plan, Terms):
        return bm25f(corpus, plan.items)
    if isinstance(plan, Prefixes):
        reader = corpus.searcher.reader()
        items = [
            (fieldname, term, boost)
            for fieldname, boost in plan.fields
            for term in dict.fromkeys(t for text in plan.texts for t in _expand(reader, fieldname, text))
        ]
        return bm25f(corpus, items)
    if isinstance(plan, PhraseTerms):
        return _phrase(corpus, plan)
    if isinstance(plan, Flag):
        return None, corpus.flag(plan.fieldname, plan.value)
    if isinstance(plan, Negate):
        return None, ~evaluate(corpus, plan.child)[1]
    if isinstance(plan, All | Any_):
        results = [evaluate(corpus, c) for c in plan.children]
        op = np.logical_and if isinstance(plan, All) else np.logical_or
        mask = results[0][1].copy() if results else np.zeros(n, bool)
        for _, m in results[1:]:
            op(mask, m, out=mask)
        return _sum([s for s, _ in results]), mask
    return combine(corpus, plan)


def combine(corpus: Corpus, plan: Combine) -> Scored:
    """Evaluate a Combine; at the top level each part adds COORD_BONUS where it matches."""
    parts: list[Scored] = [evaluate(corpus, p) for p in plan.shoulds]
    must_masks: list[np.ndarray] = []
    for must in plan.musts:
        children = must.children if isinstance(must, All) else (must,)
        results = [evaluate(corpus, c) for c in children]
        parts.extend(results)
        must_masks.extend(m for _, m in results)
    scores: list[np.ndarray | None] = []
    for s, m in parts:
        scores.append(s)
        if plan.coordinate:
            scores.append(m * np.float32(COORD_BONUS))
    if must_masks:
        mask = np.logical_and.reduce(must_masks)
    elif parts:
        mask = np.logical_or.reduce([m for _, m in parts])
    else:
        mask = np.ones(corpus.n, bool)
    for f in plan.filters:
        mask &= evaluate(corpus, f)[1]
    for neg in plan.negatives:
        mask &= ~evaluate(corpus, neg)[1]
    return _sum(scores), mask


def top(corpus: Corpus, scored: Scored, k: int, by_id: bool = False) -> tuple[int, np.ndarray, np.ndarray]:
    """(total, docnums, scores) of the best ``k`` live matches, best first (or by id).

    Ties go to the lower id, also at the cut, so the first ``j`` of a longer answer are the
    answer for ``j``.
    """
    scores, mask = scored
    docs = np.flatnonzero(mask & corpus.alive)
    total = len(docs)
    if by_id or scores is None:
        docs = docs[np.argsort(corpus.ids[docs], kind="stable")][:k]
        return total, docs, np.zeros(len(docs))
    values = scores[docs].astype(np.float64)
    if total > k:
        if not k:
            return total, docs[:0], values[:0]
        kth = np.partition(values, total - k)[total - k]
        keep = np.flatnonzero(values >= kth)
        docs, values = docs[keep], values[keep]
    order = np.lexsort((corpus.ids[docs], -values))[:k]
    return total, docs[order], values[order]


def bm25f(corpus: Corpus, items: Sequence[tuple[str, str, float]]) -> tuple[np.ndarray, np.ndarray]:
    """BM25F of the (field, term, weight) triples: one saturation per term over its weighted fields."""
    fields_of: dict[str, list[tuple[str, float]]] = {}
    for fieldname, term, weight in items:
        fields_of.setdefault(term, []).append((fieldname, weight))
    n = corpus.n
    scores = np.zeros(n, np.float32)
    mask = np.zeros(n, bool)
    dense: np.ndarray | None = None  # reused across terms, cleared after each
    for term, fields in fields_of.items():
        found: list[tuple[np.ndarray, np.ndarray, float]] = []
        for fieldname, weight in fields:
            ids, tf = corpus.norm_tf(fieldname, term, B)
            if len(ids):
                found.append((ids, tf, weight))
        if not found:
            continue
        if len(found) == 1:
            docs, freq = found[0][0], found[0][1] * np.float32(found[0][2])
        else:
            if dense is None:
                dense = np.zeros(n, np.float32)
            for ids, tf, weight in found:
                dense[ids] += tf * np.float32(weight)  # docnums are unique within one posting list
            if sum(len(ids) for ids, _, _ in found) > n // 8:
                docs = np.flatnonzero(dense)
            else:
                docs = _union([ids for ids, _, _ in found])
            freq = dense[docs]
            dense[docs] = 0
        df = len(docs)
        idf = np.float32(math.log(1 + (n - df + 0.5) / (df + 0.5)))
        scores[docs] += idf * freq * np.float32(K1 + 1) / (freq + np.float32(K1))
        mask[docs] = True
    return scores, mask


def _union(arrays: list[np.ndarray]) -> np.ndarray:
    """Sorted distinct docnums of several arrays (np.unique's first call imports for ~30 ms)."""
    merged = np.sort(np.concatenate(arrays))
    if len(merged) < 2:
        return merged
    first = np.ones(len(merged), bool)
    np.not_equal(merged[1:], merged[:-1], out=first[1:])
    return merged[first]


def _expand(reader: Any, fieldname: str, prefix: str) -> list[str]:
    out: list[str] = []
    for term in reader.expand_prefix(fieldname, prefix):
        out.append(term.decode("utf-8") if isinstance(term, bytes) else term)
        if len(out) >= MAX_EXPANSION:
            break
    return out


def _phrase(corpus: Corpus, plan: PhraseTerms) -> Scored:
    cached = corpus.phrases.get(plan)
    if cached is None:
        cached = corpus.phrases[plan] = _phrase_uncached(corpus, plan)
        if len(corpus.phrases) > PHRASE_CACHE:
            corpus.phrases.popitem(last=False)
    return cached[0].copy(), cached[1].copy()


def _phrase_uncached(corpus: Corpus, plan: PhraseTerms) -> tuple[np.ndarray, np.ndarray]:
    """Documents where the phrase holds in one of the fields, scored by the BM25F of its words."""
    mask = np.zeros(corpus.n, bool)
    for fieldname, _ in plan.fields:
        candidates = corpus.postings(fieldname, plan.terms[0])[0]
        for t in plan.terms[1:]:
            candidates = np.intersect1d(candidates, corpus.postings(fieldname, t)[0], assume_unique=True)
        if len(candidates):
            mask[corpus.phrase_docs(fieldname, plan.terms, candidates)] = True
    if not mask.any():
        return np.zeros(corpus.n, np.float32), mask
    scores, _ = bm25f(corpus, [(f, t, w) for f, w in plan.fields for t in plan.terms])
    scores[~mask] = 0
    return scores, mask


def _sum(scores: Sequence[np.ndarray | None]) -> np.ndarray | None:
    present = [s for s in scores if s is not None]
    if not present:
        return None
    total = present[0].astype(np.float32, copy=True)
    for s in present[1:]:
        total += s
    return total
