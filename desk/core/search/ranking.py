"""Coordination ranking with BM25F over the numpy postings of postings.py.

Documents are ordered by relevance: BM25F summed over the query's parts plus,
for each part a document matches, COORD_WEIGHT times that part's idf (soft
coordination: more of the query's words rank higher, a rare word more than a
common one; strict part counting first measured worse on real
titles, where one rare method name outweighs two common words). BM25F is as Robertson
and Zaragoza define it: per term, each field's frequency is normalised by the
field's length and weighted by the field's boost, the weighted frequencies
are summed, and only that sum is saturated, so a word in the title adds to its
weight in the abstract instead of scoring a second, separately saturated
time. Phrases intersect the posting arrays first and read positions only for
the documents holding every word.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from desk.core.search.postings import MAX_EXPANSION, Corpus
from desk.core.search.sorted_arrays import sorted_distinct

B, K1 = 0.75, 1.2
#: Soft coordination: a query part a document matches adds this times the part's idf (from
#: the papers matching it) to the document's relevance, so matching more of the query's words
#: counts, the rarer the more, without a common word outweighing a rare one.
COORD_WEIGHT = 1.0
PHRASE_CACHE = 16  # phrase answers kept per index generation
PHRASE_KEPT = 1_000_000  # papers those answers hold in all (8 bytes each: docnum and score)
#: Papers holding every word of a pair whose positions are read to count where the words stand
#: together (phrase_frequency): beyond it, a sample of them is read and the count scaled.
PAIR_SAMPLE = 256
PAIR_COUNTS_KEPT = 4096  # pairs counted per index generation


# ---- plan: what query.py compiles to ----------------------------------------------------


@dataclass(frozen=True)
class Terms:
    """Documents holding any of the (field, term, boost) triples; BM25F summed."""

    items: tuple[tuple[str, str, float], ...]
    one_term: bool = False  # the terms are spellings of one word (see bm25f)


@dataclass(frozen=True)
class Prefixes:
    """Documents holding a term starting with one of ``texts`` in ``fields``."""

    fields: tuple[tuple[str, float], ...]
    texts: tuple[str, ...]


@dataclass(frozen=True)
class PhraseTerms:
    """Documents holding ``terms`` at consecutive positions in one of ``fields``.

    With ``prefixes`` (a phrase being typed), the terms are followed by a term starting
    with one of them: ``"large lang`` holds "large language" and "large langevin".
    """

    fields: tuple[tuple[str, float], ...]
    terms: tuple[str, ...]
    prefixes: tuple[str, ...] = ()


@dataclass(frozen=True)
class Scaled:
    """The documents of ``child``, its scores times ``factor`` (an alternative below a typed word)."""

    child: Plan
    factor: float


@dataclass(frozen=True)
class Flag:
    """Documents whose flag field (starred, read, has_note) is ``value``."""

    fieldname: str
    value: bool


@dataclass(frozen=True)
class IdSet:
    """Documents whose paper id is in ``ids``: a filter the database answered (``tag:``)."""

    ids: tuple[int, ...]


@dataclass(frozen=True)
class Negate:
    """Documents not matching ``child``."""

    child: Plan


@dataclass(frozen=True)
class AllOf:
    """Documents matching every child; their scores summed."""

    children: tuple[Plan, ...]


@dataclass(frozen=True)
class AnyOf:
    """Documents matching any child; their scores summed."""

    children: tuple[Plan, ...]


@dataclass(frozen=True)
class Combine:
    """Filters required, negatives excluded, musts required, shoulds optional."""

    shoulds: tuple[Plan, ...] = ()
    musts: tuple[Plan, ...] = ()  # each an AllOf whose children count as parts
    filters: tuple[Plan, ...] = ()
    negatives: tuple[Plan, ...] = ()
    coordinate: bool = False  # the top level: the parts each document matches are counted
    # Low-weight parts (the query's words among the authors' names): their scores are added and,
    # without musts, the papers they match are hits, but they count as no part matched.
    weak: tuple[Plan, ...] = ()


Plan = Terms | Prefixes | PhraseTerms | Scaled | Flag | IdSet | Negate | AllOf | AnyOf | Combine
Scored = tuple[np.ndarray | None, np.ndarray]  # (scores or None, mask) over all docnums


@dataclass(frozen=True)
class Ranked:
    """A top-level answer over all docnums: what matched, its relevance, and how many parts."""

    relevance: np.ndarray | None  # BM25F summed over the parts (None: all zero)
    mask: np.ndarray
    parts: np.ndarray | None = None  # tiers ordered before relevance (None: one tier)
    matched: np.ndarray | None = None  # query parts each document matches (None: not counted)


# ---- evaluation ---------------------------------------------------------------------------------


def evaluate(corpus: Corpus, plan: Plan) -> Scored:
    """Scores (None: all zero) and match mask of a plan over the corpus."""
    n = corpus.n
    if isinstance(plan, Terms):
        return bm25f(corpus, plan.items, plan.one_term)
    if isinstance(plan, Prefixes):
        items = [
            (fieldname, term, boost)
            for fieldname, boost in plan.fields
            for term in dict.fromkeys(t for text in plan.texts for t in corpus.expand(fieldname, text))
        ]
        return bm25f(corpus, items)
    if isinstance(plan, PhraseTerms):
        return _phrase(corpus, plan)
    if isinstance(plan, Scaled):
        scores, mask = evaluate(corpus, plan.child)
        return (None if scores is None else scores * np.float32(plan.factor)), mask
    if isinstance(plan, Flag):
        return None, corpus.flag(plan.fieldname, plan.value)
    if isinstance(plan, IdSet):
        return None, np.isin(corpus.ids, np.array(plan.ids, np.int64))
    if isinstance(plan, Negate):
        return None, ~evaluate(corpus, plan.child)[1]
    if isinstance(plan, AllOf | AnyOf):
        op = np.logical_and if isinstance(plan, AllOf) else np.logical_or
        total = _Total()
        held: np.ndarray | None = None
        for child in plan.children:  # each child's arrays dropped once added in
            s, m = evaluate(corpus, child)
            total.add(s)
            held = m.copy() if held is None else op(held, m, out=held)
        return total.scores, np.zeros(n, bool) if held is None else held
    return combine(corpus, plan)


def combine(corpus: Corpus, plan: Combine) -> Scored:
    """Evaluate a Combine (its parts' scores summed)."""
    ranked = rank(corpus, plan)
    return ranked.relevance, ranked.mask


def rank(corpus: Corpus, plan: Combine) -> Ranked:
    """Evaluate a Combine; at the top level (``coordinate``) the parts each document matches are counted.

    The parts (the shoulds, then each must's children) are added in as each is evaluated, in that
    order, and dropped: a query of ten words held twenty arrays over every paper at once.
    """
    n = corpus.n
    has_musts = any(must.children if isinstance(must, AllOf) else True for must in plan.musts)
    counted = np.zeros(n, np.int32) if plan.coordinate else None
    bonus = np.zeros(n, np.float32) if plan.coordinate else None
    total = _Total()
    mask: np.ndarray | None = None  # the musts' masks ANDed, or else every part's ORed
    musts = (c for must in plan.musts for c in (must.children if isinstance(must, AllOf) else (must,)))
    for part, must in [*((p, False) for p in plan.shoulds), *((c, True) for c in musts)]:
        s, m = evaluate(corpus, part)
        total.add(s)
        if counted is not None and bonus is not None:
            counted += m
            df = int(m.sum())
            if df:  # soft coordination: each part matched adds COORD_WEIGHT x its idf
                bonus += m * np.float32(COORD_WEIGHT * math.log(1 + (n - df + 0.5) / (df + 0.5)))
        if must or not has_musts:
            op = np.logical_and if must else np.logical_or
            mask = m.copy() if mask is None else op(mask, m, out=mask)
        del s, m
    for part in plan.weak:
        s, m = evaluate(corpus, part)
        total.add(s)
        if not has_musts:
            mask = m.copy() if mask is None else np.logical_or(mask, m, out=mask)
        del s, m
    if mask is None:
        mask = np.ones(n, bool)
    for f in plan.filters:
        mask &= evaluate(corpus, f)[1]
    for neg in plan.negatives:
        mask &= ~evaluate(corpus, neg)[1]
    relevance = total.scores
    if bonus is not None:
        if relevance is None:
            relevance = bonus
        else:
            relevance += bonus
    return Ranked(relevance, mask, None, counted)


def top(
    corpus: Corpus, ranked: Ranked, k: int, by_id: bool = False
) -> tuple[int, np.ndarray, np.ndarray, np.ndarray]:
    """(total, docnums, parts matched, relevance) of the best ``k`` live matches, best first (or by id).

    Best is the higher tier (``Ranked.parts``, when given), then more relevant. Ties go to the
    lower id, also at the cut, so the first ``j`` of a longer answer are the answer for ``j``.
    """
    docs = np.flatnonzero(ranked.mask & corpus.alive)
    total = len(docs)
    if by_id or (ranked.relevance is None and ranked.parts is None):
        docs = docs[np.argsort(corpus.ids[docs], kind="stable")][:k]
        return total, docs, _shown(ranked, docs), np.zeros(len(docs))
    # float32 relevance compared as it is (the same order as in float64: a million matches made
    # three more arrays of 8 bytes each), and without the parts when there is one tier
    values = ranked.relevance[docs] if ranked.relevance is not None else np.zeros(total, np.float32)
    if values.dtype != np.float32:
        values = values.astype(np.float64)
    parts = ranked.parts[docs].astype(np.int64) if ranked.parts is not None else None
    if total > k:
        if not k:
            return total, docs[:0], _shown(ranked, docs[:0]), values[:0].astype(np.float64)
        if parts is None:
            kth_value = np.partition(values, total - k)[total - k]
            keep = np.flatnonzero(values >= kth_value)
        else:  # every document with more parts than the k-th best; of those with as many, the most relevant
            kth_parts = np.partition(parts, total - k)[total - k]
            more, level = parts > kth_parts, parts == kth_parts
            wanted = k - int(more.sum())
            at_level = values[level]
            kth_value = np.partition(at_level, len(at_level) - wanted)[len(at_level) - wanted]
            keep = np.flatnonzero(more | (level & (values >= kth_value)))
            parts = parts[keep]
        docs, values = docs[keep], values[keep]
    keys = (corpus.ids[docs], -values) if parts is None else (corpus.ids[docs], -values, -parts)
    order = np.lexsort(keys)[:k]
    return total, docs[order], _shown(ranked, docs[order]), values[order].astype(np.float64)


def _shown(ranked: Ranked, docs: np.ndarray) -> np.ndarray:
    """The parts each of ``docs`` matches (its tier when parts are not counted)."""
    counts = ranked.matched if ranked.matched is not None else ranked.parts
    return counts[docs].astype(np.int64) if counts is not None else np.zeros(len(docs), np.int64)


def bm25f(
    corpus: Corpus, items: Sequence[tuple[str, str, float]], one_term: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    """BM25F of the (field, term, weight) triples: one saturation per term over its weighted fields.

    ``one_term``: the terms are spellings of one word ("generalis", "gener"): their frequencies
    are added and saturated once, with the idf of the papers holding any of them.
    """
    n = corpus.n
    scores = np.zeros(n, np.float32)
    mask = np.zeros(n, bool)
    dense: np.ndarray | None = None  # reused across terms, cleared after each
    for found in _lists_by_term(corpus, items, one_term):
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
    """Sorted distinct docnums of several arrays."""
    return sorted_distinct(np.concatenate(arrays))


def _phrase(corpus: Corpus, plan: PhraseTerms) -> Scored:
    """A phrase's scores and mask over every paper. The answer is kept as the papers where it
    holds and their scores (dense, sixteen phrases held 80 MB at a million papers), at most
    PHRASE_CACHE answers and PHRASE_KEPT papers in all."""
    cached = corpus.phrases.get(plan)
    if cached is None:
        scores, mask = _phrase_uncached(corpus, plan)
        docs = np.flatnonzero(mask).astype(np.int32)
        corpus.phrases[plan] = (docs, scores[docs])
        held = sum(len(d) for d, _ in corpus.phrases.values())
        while len(corpus.phrases) > 1 and (len(corpus.phrases) > PHRASE_CACHE or held > PHRASE_KEPT):
            held -= len(corpus.phrases.popitem(last=False)[1][0])
        return scores, mask
    docs, at = cached
    scores = np.zeros(corpus.n, np.float32)
    scores[docs] = at
    mask = np.zeros(corpus.n, bool)
    mask[docs] = True
    return scores, mask


def _phrase_uncached(corpus: Corpus, plan: PhraseTerms) -> tuple[np.ndarray, np.ndarray]:
    """Documents where the phrase holds in one of the fields, scored by the BM25F of its words."""
    mask = np.zeros(corpus.n, bool)
    scored: list[tuple[str, str, float]] = [(f, t, w) for f, w in plan.fields for t in plan.terms]
    for fieldname, weight in plan.fields:
        slots: list[tuple[str, ...]] = [(t,) for t in plan.terms]
        if plan.prefixes:
            expanded = tuple(dict.fromkeys(t for p in plan.prefixes for t in corpus.expand(fieldname, p)))
            if not expanded:
                continue
            slots.append(expanded[:MAX_EXPANSION])
            scored.extend((fieldname, t, weight) for t in slots[-1])
        candidates = _slot_docs(corpus, fieldname, slots[0])
        for slot in slots[1:]:
            candidates = _intersect(candidates, _slot_docs(corpus, fieldname, slot))
        if len(candidates):
            mask[corpus.phrase_docs(fieldname, [s[0] if len(s) == 1 else s for s in slots], candidates)] = (
                True
            )
    scores = np.zeros(corpus.n, np.float32)
    docs = np.flatnonzero(mask)
    if len(docs):  # the words' BM25F where the phrase holds: not over every paper holding a word
        scores[docs] = bm25f_at(corpus, scored, docs)
    return scores, mask


def phrase_frequency(corpus: Corpus, fieldname: str, terms: tuple[str, ...]) -> int:
    """About how many papers hold ``terms`` in a row in ``fieldname``: counted among at most
    PAIR_SAMPLE of the papers holding them all and scaled to them all (a pair of common words,
    "neural network", stands in tens of thousands of a million papers; reading all their
    positions would cost more than the search). Kept for the generation."""
    key = (fieldname, *terms)
    found = corpus.phrase_counts.get(key)
    if found is not None:
        return found
    holding = _slot_docs(corpus, fieldname, terms[:1])
    for term in terms[1:]:
        holding = _intersect(holding, _slot_docs(corpus, fieldname, (term,)))
    holding = holding[corpus.alive[holding]]
    sample = holding
    if len(holding) > PAIR_SAMPLE:
        # A run of neighbouring docnums from the middle: they lie in one or two segments, whose
        # positions are read once each (an even sample touched every segment, 4 ms a pair at
        # 100k papers). How often two words that meet stand together is a trait of the words,
        # not of which import brought the papers.
        start = (len(holding) - PAIR_SAMPLE) // 2
        sample = holding[start : start + PAIR_SAMPLE]
    together = len(corpus.phrase_docs(fieldname, list(terms), sample)) if len(sample) else 0
    found = round(together * len(holding) / len(sample)) if len(sample) else 0
    if len(corpus.phrase_counts) >= PAIR_COUNTS_KEPT:
        corpus.phrase_counts.clear()
    corpus.phrase_counts[key] = found
    return found


TermLists = list[tuple[np.ndarray, np.ndarray, float]]  # (docnums, normalised tf, field weight) per field


def _lists_by_term(
    corpus: Corpus, items: Sequence[tuple[str, str, float]], one_term: bool = False
) -> Iterator[TermLists]:
    """The posting lists of each term of (field, term, weight) triples, in the triples' order (the
    fields where a term has none left out; a term with none at all skipped). ``one_term``: all
    the triples as one term (bm25f)."""
    fields_of: dict[str, list[tuple[str, str, float]]] = {}
    for fieldname, term, weight in items:
        fields_of.setdefault("" if one_term else term, []).append((fieldname, term, weight))
    for fields in fields_of.values():
        found: TermLists = []
        for fieldname, term, weight in fields:
            ids, tf = corpus.norm_tf(fieldname, term, B)
            if len(ids):
                found.append((ids, tf, weight))
        if found:
            yield found


def bm25f_at(corpus: Corpus, items: Sequence[tuple[str, str, float]], docs: np.ndarray) -> np.ndarray:
    """``bm25f(corpus, items)``'s scores of the sorted docnums ``docs`` alone, equal to the last bit.

    Each term's postings are looked up at ``docs`` instead of spread over every paper: a
    phrase of common words ("image" in an acronym's long form) holds in a few papers of a
    million that hold its words.
    """
    n = corpus.n
    out = np.zeros(len(docs), np.float32)
    for found in _lists_by_term(corpus, items):
        freq = np.zeros(len(docs), np.float32)
        held = np.zeros(len(docs), bool)
        for ids, tf, weight in found:  # in bm25f's order: the float32 sums are the same
            at = np.minimum(np.searchsorted(ids, docs), len(ids) - 1)
            hit = ids[at] == docs
            freq[hit] += tf[at[hit]] * np.float32(weight)
            held |= hit
        df = _union_size([ids for ids, _, _ in found])
        idf = np.float32(math.log(1 + (n - df + 0.5) / (df + 0.5)))
        f = freq[held]
        out[held] += idf * f * np.float32(K1 + 1) / (f + np.float32(K1))
    return out


def _intersect(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Docnums in both sorted distinct arrays: the shorter looked up in the longer (no sort of both)."""
    if len(a) > len(b):
        a, b = b, a
    if not len(a) or not len(b):
        return a[:0]
    at = np.minimum(np.searchsorted(b, a), len(b) - 1)
    return a[b[at] == a]


def _union_size(arrays: list[np.ndarray]) -> int:
    """How many distinct docnums sorted distinct arrays hold together."""
    if len(arrays) == 1:
        return len(arrays[0])
    arrays = sorted(arrays, key=len)
    largest, rest = arrays[-1], _union(arrays[:-1])
    return len(largest) + len(rest) - len(_intersect(rest, largest))


def _slot_docs(corpus: Corpus, fieldname: str, terms: tuple[str, ...]) -> np.ndarray:
    """Sorted docnums holding any of ``terms`` in ``fieldname``."""
    if len(terms) == 1:
        return corpus.postings(fieldname, terms[0])[0]
    return _union([corpus.postings(fieldname, t)[0] for t in terms])


class _Total:
    """Scores added one part at a time (float32, in the parts' order; None: all zero so far)."""

    def __init__(self) -> None:
        self.scores: np.ndarray | None = None

    def add(self, scores: np.ndarray | None) -> None:
        if scores is None:
            return
        if self.scores is None:
            self.scores = scores.astype(np.float32, copy=True)
        else:
            self.scores += scores
