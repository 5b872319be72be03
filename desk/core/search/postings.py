"""Whoosh postings read whole into numpy arrays, per immutable segment.

Whoosh's matcher trees cost several Python calls per posting, which a common word at 100k
abstracts turns into hundreds of milliseconds. Here posting blocks are decoded whole into numpy
arrays (posting_decode.py) or read from a segment's flat postings (flat_postings.py), kept per
immutable segment (``PostingCache``), and field lengths, flags and ids become dense per-document
arrays of one searcher generation (``Corpus``) that ranking.py scores over.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Collection, Hashable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from whoosh.columns import NumericColumn
from whoosh.reading import TermNotFound
from whoosh.searching import Searcher

from desk.core.search.flat_postings import EXT, FlatPostings, open_trusted
from desk.core.search.positions import positions
from desk.core.search.posting_decode import (
    EMPTY,
    LENGTH_LUT,
    column_array,
    decode_postings,
    expand_prefix,
    leaf_prefix,
    position_pairs,
)
from desk.core.search.sorted_arrays import sorted_distinct
from desk.core.search.stored_column import prime
from desk.core.search.whoosh_internals import fast

#: Postings kept decoded across queries and generations, per segment (8 bytes each: int32
#: docnums, float32 weights). At 100k real abstracts the 110 benchmark queries and their
#: keystrokes touch about 4M in 130k entries; an entry's own cost counts as ENTRY_COST postings
#: (a term a segment lacks costs that alone). At most ~64 MB.
POSTINGS_CACHE = 8_000_000
ENTRY_COST = 16
#: Length-normalised frequencies of one generation, as global arrays (8 bytes each): a term's
#: segments are concatenated and normalised once, not at every query.
NORM_CACHE = 2_000_000
MAX_EXPANSION = 256  # terms a prefix expands to, per field
EXPANSIONS_KEPT = 256  # prefix expansions kept per generation (narrowed as the prefix grows)
UNKNOWN: Any = object()  # a term's entry in a segment not read yet (PostingCache.get)
#: (segment, field, term) entries that prefix walks read, kept per generation for the postings.
INFOS_KEPT = 200_000
#: Stored fields (title, abstract, note…) of this many documents kept across queries: the best
#: hits of one keystroke are mostly the next one's, and each costs a decompression and a pickle.
STORED_CACHE = 4096
#: Bytes of flat posting lists read after which their mapped pages are given back, mid-search:
#: a search of a million papers reads hundreds of MB of them (each read once, then summed).
FLAT_RELEASE_BYTES = 32 << 20
FLAT_LOOKUP_BYTES = 256 << 10  # what a term's lookup counts towards it (the pages its probes map)
FLAT_KEPT = 4096  # segments' flat postings kept open (a few per segment ever read)
DELETED_SETS_KEPT = 256  # segments' deleted-docnum arrays kept (a few per segment reader ever opened)


def _cost(value: tuple[np.ndarray, np.ndarray]) -> int:
    """What a cached list costs the budget: its postings, unless they are views of a mapped file."""
    return ENTRY_COST + (len(value[0]) if value[0].flags.owndata else 0)


class PostingCache:
    """Decoded posting lists keyed by (segment, field, term); segments never change."""

    def __init__(self, budget: int = POSTINGS_CACHE) -> None:
        self.budget = budget
        self.size = 0
        self._items: OrderedDict[tuple[str, str, bytes], tuple[np.ndarray, np.ndarray]] = OrderedDict()
        self._stored: OrderedDict[tuple[str, int], dict[str, Any]] = OrderedDict()
        # A segment reader's deleted set (by identity; the set itself kept so the id stays its own)
        # -> its docnums as a sorted array.
        self._deleted: dict[int, tuple[frozenset[int], np.ndarray]] = {}
        self.lookups = 0  # terms looked up in a segment's term table (not known from a prefix walk)
        #: segment id -> its flat postings (flat_postings.py), None when it has none to trust
        self.flat: dict[str, FlatPostings | None] = {}
        self.flat_reads = 0  # posting lists read from flat postings
        self._flat_bytes = 0  # bytes of them read since their mapped pages were last given back

    def attach(
        self, folder: Path, segid: str, docs: int, signed: dict[str, Any] | None
    ) -> FlatPostings | None:
        """The flat postings of a segment (opened once: a segment never changes), or None."""
        hit = self.flat.get(segid)
        # None is asked again when the record now lists its file (flat_backfill wrote it since).
        if hit is None and (segid not in self.flat or (signed is not None and f"{segid}{EXT}" in signed)):
            if len(self.flat) >= FLAT_KEPT:
                self.flat.clear()
            hit = self.flat[segid] = open_trusted(folder, segid, docs, signed)
        return hit

    def _dead(self, deleted: frozenset[int]) -> np.ndarray:
        """The sorted array of a segment's deleted docnums, made once per reader."""
        hit = self._deleted.get(id(deleted))
        if hit is None or hit[0] is not deleted:
            if len(self._deleted) >= DELETED_SETS_KEPT:
                self._deleted.clear()
            hit = self._deleted[id(deleted)] = (deleted, np.fromiter(sorted(deleted), np.int64, len(deleted)))
        return hit[1]

    def stored(self, leaf: Any, segid: str, docnum: int) -> dict[str, Any]:
        """The stored fields of a segment's document (callers must not change the dict)."""
        key = (segid, docnum)
        hit = self._stored.get(key)
        if hit is not None:
            self._stored.move_to_end(key)
            return hit
        prime(leaf)  # its column opened without Whoosh's Python loop over every document
        fields: dict[str, Any] = leaf.stored_fields(docnum)
        self._stored[key] = fields
        if len(self._stored) > STORED_CACHE:
            self._stored.popitem(last=False)
        return fields

    def flat_read(self, nbytes: int) -> None:
        """Count a lookup in flat postings (as FLAT_LOOKUP_BYTES) and the bytes of lists it gave;
        past FLAT_RELEASE_BYTES, give their mapped pages back, within a search too: a lookup's few
        probes of a term table each map a large folio on kernels that cache files in them, and one
        search of a million papers then held ~580 MB of them."""
        self._flat_bytes += nbytes + FLAT_LOOKUP_BYTES
        if self._flat_bytes > FLAT_RELEASE_BYTES:
            self._flat_bytes = 0
            self.release_mapped(always=True)

    def release_mapped(self, always: bool = False) -> bool:
        """After a search: give back the flat postings' mapped pages when the process holds more
        file pages than desk.core.runtime.resident's budget (a kernel caching files in large folios maps
        megabytes for a term looked up: at a million papers one search mapped ~1 GB of them);
        ``always``: whatever it holds (every FLAT_RELEASE_BYTES read, during a search).
        Kept lists stay valid (their pages are read again from the page cache). True if done."""
        from desk.core.runtime import resident

        if not any(f is not None for f in self.flat.values()) or not (always or resident.over_budget()):
            return False
        for flat in self.flat.values():
            if flat is not None:
                flat.release()
        return True

    def get(
        self, leaf: Any, segid: str, fieldname: str, btext: bytes, info: Any = UNKNOWN
    ) -> tuple[np.ndarray, np.ndarray]:
        """A segment's (local docnums, weights) of a term; ``info``: its term-table entry when
        a prefix walk read it already (None: the segment lacks the term), so it is not looked up."""
        key = (segid, fieldname, btext)
        hit = self._items.get(key)
        if hit is not None:
            self._items.move_to_end(key)
            return hit
        flat = self.flat.get(segid)
        if flat is not None:
            self.flat_reads += 1
            ids, weights = flat.get(fieldname, btext)
            self.flat_read(ids.nbytes + weights.nbytes)
            deleted = leaf.deleted_docs_set if leaf.has_deletions() else frozenset()
            if deleted and len(ids):
                keep = ~np.isin(ids, self._dead(deleted), assume_unique=True)
                ids, weights = ids[keep], weights[keep]
            value = (ids, weights) if len(ids) else EMPTY
            self._items[key] = value
            self.size += _cost(value)
            self._trim()
            return value
        if info is None:
            value = EMPTY
        elif info is not UNKNOWN:
            ids, weights = decode_postings(
                leaf._terms._codec.postings_reader(
                    leaf._terms._postfile, info, leaf.schema[fieldname].format, term=(fieldname, btext)
                )
            )
            deleted = leaf.deleted_docs_set if leaf.has_deletions() else frozenset()
            if deleted and len(ids):
                keep = ~np.isin(ids, self._dead(deleted), assume_unique=True)
                ids, weights = ids[keep], weights[keep]
            value = (ids.astype(np.int32), weights) if len(ids) else EMPTY
        else:
            self.lookups += 1
            try:  # one term-table lookup, not one for `in` and another for the postings
                matcher = leaf.postings(fieldname, btext)
            except TermNotFound:
                value = EMPTY
            else:
                ids, weights = decode_postings(matcher, self._dead)
                value = (ids.astype(np.int32), weights) if len(ids) else EMPTY
        self._items[key] = value
        self.size += _cost(value)
        self._trim()
        return value

    def forget(self, segids: Collection[str]) -> None:
        """Drop what is kept of segments gone from the index (merged away): their flat postings,
        and, when one of those is a mapped file, the lists read from it (each keeps the map and
        its file descriptor open)."""
        gone = set(segids)
        mapped = any(getattr(self.flat.get(s), "mapped", False) for s in gone)
        for segid in gone:
            self.flat.pop(segid, None)
        if mapped:
            for key in [k for k in self._items if k[0] in gone]:
                self.size -= _cost(self._items.pop(key))

    def _trim(self) -> None:
        while self.size > self.budget and len(self._items) > 1:
            _, old = self._items.popitem(last=False)
            self.size -= _cost(old)


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
    _avg: dict[str, float] = field(default_factory=dict)
    # Phrases re-run on every keystroke after them: this generation's answers and counts (ranking.py).
    phrases: OrderedDict[Hashable, tuple[np.ndarray, np.ndarray]] = field(default_factory=OrderedDict)
    phrase_counts: dict[tuple[str, ...], int] = field(default_factory=dict)
    _norm: OrderedDict[tuple[str, str, float], tuple[np.ndarray, np.ndarray]] = field(
        default_factory=OrderedDict
    )
    _norm_size: int = 0
    # (segment id, field, term) -> its term-table entry read by a prefix walk (None: absent there)
    _infos: dict[tuple[str, str, bytes], Any] = field(default_factory=dict)
    positions_read: int = 0  # documents whose positions of one phrase place were read (phrase_docs)
    _fields: dict[str, frozenset[str]] = field(default_factory=dict)  # segment id -> fields with terms
    _offsets: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))  # of the leaves, ascending
    # (field, prefix) -> (its first MAX_EXPANSION terms in order, whether that is all of them)
    _expansions: OrderedDict[tuple[str, str], tuple[tuple[str, ...], bool]] = field(
        default_factory=OrderedDict
    )

    @classmethod
    def load(
        cls,
        searcher: Searcher,
        cache: PostingCache,
        folder: Path | None = None,
        signed: dict[str, Any] | None = None,
    ) -> Corpus:
        """The arrays of ``searcher``'s generation; ``folder`` and ``signed`` (the index's folder and
        its signed record of files) let segments be read from their flat postings."""
        reader = searcher.reader()
        corpus = cls(searcher, cache, n=reader.doc_count_all())
        alive = np.ones(corpus.n, bool)
        ids = np.zeros(corpus.n, np.int64)
        for leaf, offset in reader.leaf_readers():
            if leaf.doc_count_all() == 0 or leaf.segment() is None:
                continue  # an empty index's reader has no segment and no columns
            segid = leaf.segment().segment_id()  # postings of a segment never change
            corpus.leaves.append((leaf, offset, segid))
            corpus._fields[segid] = frozenset(leaf.indexed_field_names())  # "note" only where one is
            count = leaf.doc_count_all()
            if folder is not None and fast():
                cache.attach(folder, segid, count, signed)
            ids[offset : offset + count] = column_array(leaf.column_reader("id", translate=False), count)
            if leaf.has_deletions():
                perdoc = getattr(leaf, "_perdoc", None) if fast() else None
                if perdoc is not None and hasattr(perdoc, "deleted_docs"):
                    dead = np.fromiter(perdoc.deleted_docs(), dtype=np.int64)
                else:
                    dead = np.array([d for d in range(count) if leaf.is_deleted(d)], np.int64)
                alive[offset + dead] = False
        corpus.alive, corpus.ids = alive, ids
        gone = set(cache.flat).difference(corpus._fields)
        if gone:
            cache.forget(gone)
        corpus._offsets = np.array([offset for _, offset, _ in corpus.leaves], np.int64)
        return corpus

    def cached_entries(self) -> int:
        """How many answers this generation keeps (phrases, normalised postings, term entries,
        prefix expansions): what freeing it costs grows with them (a few arrays each)."""
        return len(self.phrases) + len(self._norm) + len(self._infos) + len(self._expansions)

    def adopt_flat(self, folder: Path, signed: dict[str, Any] | None) -> int:
        """Read from now on from the flat postings the record lists for segments read from Whoosh
        until now (written by flat_backfill since this generation was loaded); how many."""
        adopted = 0
        for leaf, _, segid in self.leaves:
            if self.cache.flat.get(segid) is None:
                adopted += self.cache.attach(folder, segid, leaf.doc_count_all(), signed) is not None
        return adopted

    def stored_fields(self, docnum: int) -> dict[str, Any]:
        """The stored fields of a document (kept across queries; callers must not change the dict)."""
        at = int(np.searchsorted(self._offsets, docnum, side="right")) - 1
        if at < 0:
            return dict(self.searcher.stored_fields(docnum))
        leaf, offset, segid = self.leaves[at]
        return self.cache.stored(leaf, segid, docnum - offset)

    def lengths(self, fieldname: str) -> np.ndarray:
        arr = self._lengths.get(fieldname)
        if arr is None:
            arr = np.zeros(self.n, np.float32)
            for leaf, offset, _ in self.leaves:
                count = leaf.doc_count_all()
                perdoc = getattr(leaf, "_perdoc", None) if fast() else None
                if perdoc is None or not hasattr(perdoc, "_cached_reader"):
                    lengths = [leaf.doc_field_length(d, fieldname, 0) or 0 for d in range(count)]
                    arr[offset : offset + count] = lengths
                    continue
                col = perdoc._cached_reader(f"_{fieldname}_len", NumericColumn("B", default=0))
                if col is not None:  # absent when no document of the segment has the field
                    arr[offset : offset + count] = LENGTH_LUT[column_array(col, count)]
            self._lengths[fieldname] = arr
        return arr

    def postings(self, fieldname: str, text: str) -> tuple[np.ndarray, np.ndarray]:
        """Global (sorted docnums, weights) of one term."""
        btext = self.searcher.schema[fieldname].to_bytes(text)
        fields = self._fields
        infos = self._infos
        found = [
            (p, offset)
            for leaf, offset, segid in self.leaves
            if fieldname in fields[segid]
            and len(
                (
                    p := self.cache.get(
                        leaf, segid, fieldname, btext, infos.get((segid, fieldname, btext), UNKNOWN)
                    )
                )[0]
            )
        ]
        if not found:
            return EMPTY
        if len(found) == 1 and found[0][1] == 0:
            return found[0][0]
        ids = np.concatenate([p[0] + offset for p, offset in found])
        return ids, np.concatenate([p[1] for p, _ in found])

    def doc_frequency(self, fieldname: str, text: str) -> int:
        """How many live documents hold the term: ``len(self.postings(fieldname, text)[0])``."""
        btext = self.searcher.schema[fieldname].to_bytes(text)
        fields = self._fields
        infos = self._infos
        return sum(
            len(
                self.cache.get(leaf, segid, fieldname, btext, infos.get((segid, fieldname, btext), UNKNOWN))[
                    0
                ]
            )
            for leaf, _, segid in self.leaves
            if fieldname in fields[segid]
        )

    def norm_tf(self, fieldname: str, text: str, b: float) -> tuple[np.ndarray, np.ndarray]:
        """(docnums, tf / length norm) of one term: BM25F's per-field pseudo-frequency before weights."""
        key = (fieldname, text, b)
        hit = self._norm.get(key)
        if hit is not None:
            self._norm.move_to_end(key)
            return hit
        ids, tf = self.postings(fieldname, text)
        if len(ids) and self.searcher.schema[fieldname].scorable:
            avg = self._avg.get(fieldname)
            if avg is None:
                avg = self._avg[fieldname] = self.searcher.avg_field_length(fieldname) or 1.0
            tf = tf / ((1 - b) + b * self.lengths(fieldname)[ids] / np.float32(avg))
        # else unscored (ID) fields: one occurrence, no length
        self._norm[key] = (ids, tf)
        self._norm_size += len(ids) + ENTRY_COST
        while self._norm_size > NORM_CACHE and len(self._norm) > 1:
            _, old = self._norm.popitem(last=False)
            self._norm_size -= len(old[0]) + ENTRY_COST
        return ids, tf

    def expand(self, fieldname: str, prefix: str) -> tuple[str, ...]:
        """The first MAX_EXPANSION terms of ``fieldname`` starting with ``prefix``, in term order.

        As a prefix is typed letter by letter, the expansion of the longer prefix is narrowed
        from a shorter one's kept here when that one held every term (the same terms, in the
        same order, as the index would list).
        """
        key = (fieldname, prefix)
        hit = self._expansions.get(key)
        if hit is None:
            for cut in range(len(prefix) - 1, 0, -1):
                shorter = self._expansions.get((fieldname, prefix[:cut]))
                if shorter is not None and shorter[1]:
                    terms = tuple(t for t in shorter[0] if t.startswith(prefix))
                    hit = (terms, True)
                    break
            else:
                hit = self._walk(fieldname, prefix) if fast() else None
                if hit is None:
                    hit = expand_prefix(self.searcher.reader(), fieldname, prefix, MAX_EXPANSION)
            self._expansions[key] = hit
            if len(self._expansions) > EXPANSIONS_KEPT:
                self._expansions.popitem(last=False)
        else:
            self._expansions.move_to_end(key)
        return hit[0]

    def _walk(self, fieldname: str, prefix: str) -> tuple[tuple[str, ...], bool] | None:
        """expand()'s answer from one walk of each segment's term table, keeping what each
        segment holds of the terms listed, so their postings need no lookup (None: not possible).

        The first MAX_EXPANSION terms of all segments are among each segment's first
        MAX_EXPANSION + 1: the union of those, in byte order, is what Whoosh's merged walk lists.
        """
        field_obj = self.searcher.schema[fieldname]
        bprefix = field_obj.to_bytes(prefix)
        walks: list[tuple[str, list[tuple[bytes, Any]], bool]] = []
        flat_walks: list[tuple[list[bytes], bool]] = []
        try:
            for leaf, _, segid in self.leaves:
                if fieldname not in self._fields[segid]:
                    continue
                flat = self.cache.flat.get(segid)
                if flat is not None:  # no term infos to keep: its lists are found without Whoosh's table
                    terms, whole = flat.prefixed(fieldname, bprefix, MAX_EXPANSION + 1)
                    flat_walks.append((terms, whole))
                else:
                    walks.append((segid, *leaf_prefix(leaf, fieldname, bprefix, MAX_EXPANSION + 1)))
        except (AttributeError, KeyError, TypeError):  # not a segment of the layout expected
            return None
        union = sorted(
            {btext for _, items, _ in walks for btext, _ in items}
            | {t for terms, _ in flat_walks for t in terms}
        )
        listed, complete = union[:MAX_EXPANSION], len(union) <= MAX_EXPANSION
        if len(self._infos) > INFOS_KEPT:
            self._infos.clear()
        for segid, items, whole in walks:
            held = dict(items)
            last = items[-1][0] if items else b""
            for btext in listed:
                if btext in held:
                    self._infos[(segid, fieldname, btext)] = held[btext]
                elif whole or btext < last:  # the walk passed where it would stand: absent
                    self._infos[(segid, fieldname, btext)] = None
        return tuple(t.decode("utf-8") for t in listed), complete

    def phrase_docs(
        self, fieldname: str, terms: Sequence[str | Sequence[str]], candidates: np.ndarray
    ) -> np.ndarray:
        """The candidates (sorted global docnums) where ``terms`` occur consecutively.

        A place of ``terms`` may be a sequence of alternatives (the expansions of a prefix).
        The places are read rarest first, each only for the documents where the places read so
        far still stand in a row: a common word's positions ("image" in "contrastive language
        image pre-training") are read for the few documents left, not for every candidate.
        Where a phrase could start is kept as one sorted array of keys (docnum << 32 | start),
        narrowed place by place with array operations: a million-paper library has tens of
        thousands of candidates for a long acronym's expansion.
        """
        keep = np.zeros(len(candidates), bool)
        field_obj = self.searcher.schema[fieldname]
        places = [(t,) if isinstance(t, str) else tuple(t) for t in terms]
        frequency = [sum(self.doc_frequency(fieldname, alt) for alt in place) for place in places]
        order = sorted(range(len(places)), key=lambda k: (frequency[k], k))
        for leaf, offset, segid in self.leaves:
            lo, hi = np.searchsorted(candidates, [offset, offset + leaf.doc_count_all()])
            local = candidates[lo:hi] - offset
            flat = self.cache.flat.get(segid)
            if flat is not None and not flat.has_positions(fieldname):
                flat = None
            keys: np.ndarray | None = None  # docnum << 32 | where the phrase could start, sorted
            for k in order:
                wanted = local if keys is None else sorted_distinct(keys >> 32)
                if not len(wanted):
                    break
                docs: list[np.ndarray] = []
                where: list[np.ndarray] = []
                for alt in places[k]:
                    btext = field_obj.to_bytes(alt)
                    if flat is not None:  # in place, not a block of Whoosh's decoded per document
                        d, p = flat.positions(fieldname, btext, wanted)
                        self.cache.flat_read(4 * len(wanted))
                    elif (fieldname, btext) in leaf:
                        d, p = position_pairs(positions(leaf.postings(fieldname, btext), wanted))
                    else:
                        continue
                    docs.append(d)
                    where.append(p)
                self.positions_read += len(wanted)
                start = np.concatenate(where) - k if where else np.zeros(0, np.int64)
                ok = start >= 0  # a place before the text's start: the phrase cannot start there
                here = sorted_distinct((np.concatenate(docs)[ok] << 32) | start[ok]) if docs else start
                keys = here if keys is None else keys[np.isin(keys, here, assume_unique=True)]
            if keys is not None and len(keys):
                keep[lo + np.searchsorted(local, sorted_distinct(keys >> 32))] = True
        return candidates[keep]

    def flag(self, fieldname: str, value: bool) -> np.ndarray:
        mask = self._flags.get((fieldname, value))
        if mask is None:
            mask = np.zeros(self.n, bool)
            mask[self.postings(fieldname, value)[0]] = True  # type: ignore[arg-type]
            self._flags[(fieldname, value)] = mask
        return mask
