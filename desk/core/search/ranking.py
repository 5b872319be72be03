"""Coordination ranking over Whoosh postings, vectorised with numpy.

Whoosh's matcher trees cost several Python calls per posting, which a common
word at 100k abstracts turns into hundreds of milliseconds. Here posting
blocks are decoded whole into numpy arrays (cached per immutable segment) and
BM25F is computed Whoosh's way over dense per-document arrays. A document's
score is ``parts_matched * COORD_BONUS + bm25f``: more distinct query parts
first, then relevance. Phrases intersect the posting arrays first and read
positions only for the documents holding every word.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from itertools import accumulate
from pickle import loads
from typing import Any

import numpy as np
from whoosh.columns import NumericColumn
from whoosh.formats import _INT_SIZE, Positions
from whoosh.searching import Searcher
from whoosh.util.numeric import byte_to_length

#: Larger than any BM25F score one query part reaches (boosts included).
COORD_BONUS = 1000.0
B, K1 = 0.75, 1.2
POSTINGS_CACHE = 2_000_000  # postings kept decoded across queries (8 bytes each)
MAX_EXPANSION = 256  # terms a prefix expands to, per field
PHRASE_CACHE = 16  # phrase answers kept per index generation

_LENGTH_LUT = np.array([byte_to_length(b) for b in range(256)], dtype=np.float32)
_EMPTY = (np.zeros(0, np.int64), np.zeros(0, np.float32))


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


# ---- per-segment arrays ---------------------------------------------------------------------


def _column(reader: Any, doccount: int) -> np.ndarray:
    """A whole numeric column as an array (bulk read when the layout is known)."""
    if isinstance(reader, NumericColumn.Reader) and reader._typecode in "BHILQbhilq":
        n = min(reader._count, doccount)
        raw = reader._dbfile.get(reader._basepos, n * reader._fixedlen)
        arr = np.frombuffer(raw, dtype=np.dtype(reader._typecode).newbyteorder(">")).astype(np.int64)
        if n < doccount:
            arr = np.concatenate([arr, np.full(doccount - n, int(reader._default or 0), np.int64)])
        return arr
    return np.fromiter((int(v or 0) for v in reader), dtype=np.int64, count=doccount)


def _decode(matcher: Any) -> tuple[np.ndarray, np.ndarray]:
    """(ids, weights) of a whole posting list."""
    ids: list[np.ndarray] = []
    weights: list[np.ndarray] = []
    if type(matcher).__name__ == "W3LeafMatcher" and not matcher._byteids:
        while matcher.is_active():
            if matcher._data is None:
                matcher._read_data()
            deltas, w = matcher._data[0], matcher._data[1]
            block = np.cumsum(np.asarray(deltas, dtype=np.int64))
            ids.append(block)
            if w is None or isinstance(w, float):
                weights.append(np.full(len(block), 1.0 if w is None else w, np.float32))
            else:
                weights.append(np.asarray(w, dtype=np.float32))
            matcher._next_block()
    else:
        plain_ids: list[int] = []
        plain_w: list[float] = []
        while matcher.is_active():
            plain_ids.append(matcher.id())
            plain_w.append(matcher.weight())
            matcher.next()
        return np.array(plain_ids, np.int64), np.array(plain_w, np.float32)
    if not ids:
        return _EMPTY
    return np.concatenate(ids), np.concatenate(weights)


def _position_decoder(fmt: Any) -> Callable[[bytes], Collection[int]]:
    """Whoosh's Positions.decode_positions with the delta loop in C."""
    if type(fmt) is not Positions:
        return fmt.decoder("positions")

    def decode(value: bytes) -> Collection[int]:
        return set(accumulate(loads(value[_INT_SIZE:] if value.endswith(b".") else value[_INT_SIZE:] + b".")))

    return decode


def _positions(matcher: Any, wanted: np.ndarray) -> dict[int, Collection[int]]:
    """Positions of the sorted local docnums ``wanted`` that the posting list holds."""
    out: dict[int, Collection[int]] = {}
    if not len(wanted):
        return out
    decode = _position_decoder(matcher.format)
    if type(matcher).__name__ != "W3LeafMatcher" or matcher._byteids:
        for d in wanted.tolist():
            if not matcher.is_active():
                break
            matcher.skip_to(d)
            if matcher.is_active() and matcher.id() == d:
                out[d] = set(matcher.value_as("positions"))
        return out
    i = 0
    while matcher.is_active() and i < len(wanted):
        if wanted[i] > matcher.block_max_id():
            matcher._next_block()
            continue
        if matcher._data is None:
            matcher._read_data()
        ids = np.cumsum(np.asarray(matcher._data[0], dtype=np.int64))
        j = int(np.searchsorted(wanted, ids[-1], side="right"))
        chunk = wanted[i:j]
        where = np.searchsorted(ids, chunk)
        found = where < len(ids)
        found[found] = ids[where[found]] == chunk[found]
        values = matcher._data[2]
        for d, k in zip(chunk[found].tolist(), where[found].tolist(), strict=True):
            out[d] = decode(values[k])
        i = j
        matcher._next_block()
    return out


class PostingCache:
    """Decoded posting lists keyed by (segment, field, term); segments never change."""

    def __init__(self, budget: int = POSTINGS_CACHE) -> None:
        self.budget = budget
        self.size = 0
        self._items: OrderedDict[tuple[str, str, bytes], tuple[np.ndarray, np.ndarray]] = OrderedDict()

    def get(self, leaf: Any, segid: str, fieldname: str, btext: bytes) -> tuple[np.ndarray, np.ndarray]:
        key = (segid, fieldname, btext)
        hit = self._items.get(key)
        if hit is not None:
            self._items.move_to_end(key)
            return hit
        value = _decode(leaf.postings(fieldname, btext)) if (fieldname, btext) in leaf else _EMPTY
        self._items[key] = value
        self.size += len(value[0])
        while self.size > self.budget and len(self._items) > 1:
            _, old = self._items.popitem(last=False)
            self.size -= len(old[0])
        return value


@dataclass
class Corpus:
    """Arrays over all documents of one searcher generation (global docnums)."""

    searcher: Searcher
    cache: PostingCache
    leaves: list[tuple[Any, int, str]] = field(default_factory=list)  # (reader, offset, segment id)
    n: int = 0
    alive: np.ndarray = field(default_factory=lambda: np.zeros(0, bool))
    ids: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    _lengths: dict[str, np.ndarray] = field(default_factory=dict)
    _flags: dict[tuple[str, bool], np.ndarray] = field(default_factory=dict)
    # Phrases re-run on every keystroke after them; this generation's answers are kept.
    phrases: OrderedDict[PhraseTerms, tuple[np.ndarray, np.ndarray]] = field(default_factory=OrderedDict)

    @classmethod
    def load(cls, searcher: Searcher, cache: PostingCache) -> Corpus:
        reader = searcher.reader()
        corpus = cls(searcher, cache, n=reader.doc_count_all())
        alive = np.ones(corpus.n, bool)
        ids = np.zeros(corpus.n, np.int64)
        for leaf, offset in reader.leaf_readers():
            if leaf.doc_count_all() == 0 or leaf.segment() is None:
                continue  # an empty index's reader has no segment and no columns
            segid = leaf.segment().segment_id()  # postings of a segment never change
            corpus.leaves.append((leaf, offset, segid))
            count = leaf.doc_count_all()
            ids[offset : offset + count] = _column(leaf.column_reader("id", translate=False), count)
            if leaf.has_deletions():
                perdoc = getattr(leaf, "_perdoc", None)
                if perdoc is not None and hasattr(perdoc, "deleted_docs"):
                    dead = np.fromiter(perdoc.deleted_docs(), dtype=np.int64)
                else:
                    dead = np.array([d for d in range(count) if leaf.is_deleted(d)], np.int64)
                alive[offset + dead] = False
        corpus.alive, corpus.ids = alive, ids
        return corpus

    def lengths(self, fieldname: str) -> np.ndarray:
        arr = self._lengths.get(fieldname)
        if arr is None:
            arr = np.zeros(self.n, np.float32)
            for leaf, offset, _ in self.leaves:
                count = leaf.doc_count_all()
                perdoc = getattr(leaf, "_perdoc", None)
                if perdoc is None or not hasattr(perdoc, "_cached_reader"):
                    lengths = [leaf.doc_field_length(d, fieldname, 0) or 0 for d in range(count)]
                    arr[offset : offset + count] = lengths
                    continue
                col = perdoc._cached_reader(f"_{fieldname}_len", NumericColumn("B", default=0))
                if col is not None:  # absent when no document of the segment has the field
                    arr[offset : offset + count] = _LENGTH_LUT[_column(col, count)]
            self._lengths[fieldname] = arr
        return arr

    def postings(self, fieldname: str, text: str) -> tuple[np.ndarray, np.ndarray]:
        """Global (docnums, weights) of one term."""
        btext = self.searcher.schema[fieldname].to_bytes(text)
        parts = [self.cache.get(leaf, segid, fieldname, btext) for leaf, _, segid in self.leaves]
        if len(parts) == 1:
            return parts[0]
        ids = [p[0] + offset for p, (_, offset, _) in zip(parts, self.leaves, strict=True)]
        return np.concatenate(ids), np.concatenate([p[1] for p in parts])

    def term_scores(self, fieldname: str, text: str) -> tuple[np.ndarray, np.ndarray]:
        """(docnums, BM25F scores) of one term, as Whoosh's BM25F scores it."""
        ids, tf = self.postings(fieldname, text)
        if not len(ids):
            return _EMPTY
        idf = self.searcher.idf(fieldname, text)
        if not self.searcher.schema[fieldname].scorable:
            return ids, np.full(len(ids), idf, np.float32)
        avgfl = self.searcher.avg_field_length(fieldname) or 1.0
        fl = self.lengths(fieldname)[ids]
        return ids, (idf * (tf * (K1 + 1)) / (tf + K1 * ((1 - B) + B * fl / avgfl))).astype(np.float32)

    def phrase_docs(self, fieldname: str, terms: Sequence[str], candidates: np.ndarray) -> np.ndarray:
        """The candidates (sorted global docnums) where ``terms`` occur consecutively."""
        keep = np.zeros(len(candidates), bool)
        field_obj = self.searcher.schema[fieldname]
        for leaf, offset, _ in self.leaves:
            lo, hi = np.searchsorted(candidates, [offset, offset + leaf.doc_count_all()])
            local = candidates[lo:hi] - offset
            if not len(local):
                continue
            maps = []
            for t in terms:
                btext = field_obj.to_bytes(t)
                maps.append(
                    _positions(leaf.postings(fieldname, btext), local) if (fieldname, btext) in leaf else {}
                )
            for k, d in enumerate(local.tolist()):
                starts = maps[0].get(d, ())
                if any(all(p + n in maps[n].get(d, ()) for n in range(1, len(terms))) for p in starts):
                    keep[lo + k] = True
        return candidates[keep]

    def flag(self, fieldname: str, value: bool) -> np.ndarray:
        mask = self._flags.get((fieldname, value))
        if mask is None:
            mask = np.zeros(self.n, bool)
            mask[self.postings(fieldname, value)[0]] = True  # type: ignore[arg-type]
            self._flags[(fieldname, value)] = mask
        return mask


# ---- evaluation ---------------------------------------------------------------------------------


def evaluate(corpus: Corpus, plan: Plan) -> Scored:
    """Scores (None: all zero) and match mask of a plan over the corpus."""
    n = corpus.n
    if isinstance(plan, Terms):
        if EXP.get("bm25f"):
            return _bm25f(corpus, plan.items)
        return _union(corpus, [(corpus.term_scores(f, t), boost) for f, t, boost in plan.items])
    if isinstance(plan, Prefixes):
        reader = corpus.searcher.reader()
        pairs = []
        for fieldname, boost in plan.fields:
            seen: set[str] = set()
            for text in plan.texts:
                for term in _expand(reader, fieldname, text):
                    if term not in seen:
                        seen.add(term)
                        pairs.append((corpus.term_scores(fieldname, term), boost))
        return _union(corpus, pairs)
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
    if plan.coordinate and EXP["mode"] != "A":
        return _exp_coord(corpus, plan, parts, must_masks)
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
    """(total, docnums, scores) of the best ``k`` live matches, best first (or by id)."""
    scores, mask = scored
    docs = np.flatnonzero(mask & corpus.alive)
    total = len(docs)
    if by_id or scores is None:
        docs = docs[np.argsort(corpus.ids[docs], kind="stable")][:k]
        return total, docs, np.zeros(len(docs))
    values = scores[docs].astype(np.float64)
    if total > k:
        keep = np.argpartition(-values, k - 1)[:k] if k else np.zeros(0, np.int64)
        docs, values = docs[keep], values[keep]
    order = np.lexsort((corpus.ids[docs], -values))
    return total, docs[order], values[order]


def _expand(reader: Any, fieldname: str, prefix: str) -> list[str]:
    out: list[str] = []
    for term in reader.expand_prefix(fieldname, prefix):
        out.append(term.decode("utf-8") if isinstance(term, bytes) else term)
        if len(out) >= MAX_EXPANSION:
            break
    return out


def _union(corpus: Corpus, pairs: Sequence[tuple[tuple[np.ndarray, np.ndarray], float]]) -> Scored:
    scores = np.zeros(corpus.n, np.float32)
    mask = np.zeros(corpus.n, bool)
    for (ids, values), boost in pairs:
        if len(ids):
            # Docnums within one posting list are unique, so += is safe.
            scores[ids] += values * np.float32(boost)
            mask[ids] = True
    return scores, mask


def _phrase(corpus: Corpus, plan: PhraseTerms) -> Scored:
    cached = corpus.phrases.get(plan)
    if cached is None:
        cached = corpus.phrases[plan] = _phrase_uncached(corpus, plan)
        if len(corpus.phrases) > PHRASE_CACHE:
            corpus.phrases.popitem(last=False)
    return cached[0].copy(), cached[1].copy()


def _phrase_uncached(corpus: Corpus, plan: PhraseTerms) -> tuple[np.ndarray, np.ndarray]:
    scores = np.zeros(corpus.n, np.float32)
    mask = np.zeros(corpus.n, bool)
    for fieldname, boost in plan.fields:
        scored = [corpus.term_scores(fieldname, t) for t in plan.terms]
        candidates = scored[0][0]
        for ids, _ in scored[1:]:
            candidates = np.intersect1d(candidates, ids, assume_unique=True)
        if not len(candidates):
            continue
        docs = corpus.phrase_docs(fieldname, plan.terms, candidates)
        for ids, values in scored:
            scores[docs] += values[np.searchsorted(ids, docs)] * np.float32(boost)
        mask[docs] = True
    return scores, mask


def _sum(scores: Sequence[np.ndarray | None]) -> np.ndarray | None:
    present = [s for s in scores if s is not None]
    if not present:
        return None
    total = present[0].astype(np.float32, copy=True)
    for s in present[1:]:
        total += s
    return total


EXP = {"mode": "A", "alpha": 1.0, "lam": 1.0}


def _exp_coord(corpus, plan, parts, must_masks):
    n = max(1, int(corpus.alive.sum()))
    ws = []
    for s, m in parts:
        df = int(np.count_nonzero(m))
        ws.append(float(np.log(1 + (n - df + 0.5) / (df + 0.5))) if df else 0.0)
    tot = sum(ws) or 1.0
    cov = np.zeros(corpus.n, np.float32)
    for w, (s, m) in zip(ws, parts):
        cov += m * np.float32(w / tot)
    rel = _sum([s for s, _ in parts])
    if rel is None:
        rel = np.zeros(corpus.n, np.float32)
    mode = EXP["mode"]
    if mode == "B":
        score = cov * np.float32(COORD_BONUS * 10) + rel
    elif mode == "C":
        score = rel * cov ** np.float32(EXP["alpha"])
    else:
        score = rel + np.float32(EXP["lam"]) * cov * np.float32(tot)
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
    return score, mask


def _bm25f(corpus, items):
    """True BM25F: field-weighted, length-normalised frequencies summed per term, then saturated."""
    groups = {}
    for f, t, boost in items:
        groups.setdefault(t, []).append((f, boost))
    scores = np.zeros(corpus.n, np.float32)
    mask = np.zeros(corpus.n, bool)
    n = max(1, corpus.n)
    tb = EXP.get("title_b", B)
    for t, fields in groups.items():
        ptf = np.zeros(corpus.n, np.float32)
        for f, boost in fields:
            ids, tf = corpus.postings(f, t)
            if not len(ids):
                continue
            if not corpus.searcher.schema[f].scorable:
                ptf[ids] += np.float32(boost * EXP.get("kw", 1.0))
                continue
            avgfl = corpus.searcher.avg_field_length(f) or 1.0
            fl = corpus.lengths(f)[ids]
            b = tb if f == "title" else B
            ptf[ids] += np.float32(boost) * tf / ((1 - b) + b * fl / avgfl)
        hit = np.flatnonzero(ptf)
        if not len(hit):
            continue
        df = len(hit)
        idf = np.log(1 + (n - df + 0.5) / (df + 0.5))
        k1 = EXP.get("k1", K1)
        v = ptf[hit]
        scores[hit] += np.float32(idf) * v * (k1 + 1) / (k1 + v)
        mask[hit] = True
    return scores, mask
