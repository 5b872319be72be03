"""Whoosh's posting lists, columns and term tables read whole into numpy arrays.

A posting list is decoded block by block (each block's deltas and weights at once, not a Python
call per posting), from under a segment's deleted-document filter; a numeric column is read in
bulk; a prefix's terms come from one walk of a segment's term table. With the fast paths off
(whoosh_internals.fast) the lists and columns are read through Whoosh's public API, and so are
a prefix's terms (``expand_prefix``). postings.py keeps what these read, per segment and per
generation.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import Any

import numpy as np
from whoosh.codec.whoosh3 import W3LeafMatcher
from whoosh.columns import NumericColumn
from whoosh.matching.wrappers import FilterMatcher
from whoosh.util.numeric import byte_to_length

from desk.core.search.whoosh_internals import fast

# A field's length as Whoosh keeps it, one byte a document: the length each byte stands for.
LENGTH_LUT = np.array([byte_to_length(b) for b in range(256)], dtype=np.float32)

# The (docnums, weights) of a term no document holds.
EMPTY = (np.zeros(0, np.int64), np.zeros(0, np.float32))


def column_array(reader: Any, doccount: int) -> np.ndarray:
    """A whole numeric column as an array (bulk read when the layout is known)."""
    if fast() and isinstance(reader, NumericColumn.Reader) and reader._typecode in "BHILQbhilq":
        n = min(reader._count, doccount)
        raw = reader._dbfile.get(reader._basepos, n * reader._fixedlen)
        arr = np.frombuffer(raw, dtype=np.dtype(reader._typecode).newbyteorder(">")).astype(np.int64)
        if n < doccount:
            arr = np.concatenate([arr, np.full(doccount - n, int(reader._default or 0), np.int64)])
        return arr
    return np.fromiter((int(v or 0) for v in reader), dtype=np.int64, count=doccount)


def unfiltered(matcher: Any) -> tuple[Any, frozenset[int]]:
    """(the matcher under a segment's deleted-document filter, the deleted docnums), or
    (``matcher``, empty) when it is not such a filter.

    A segment with deleted documents wraps each posting list in a FilterMatcher, which costs
    several Python calls per posting (at 100k real abstracts, most of a first query's time);
    the block matcher underneath is decoded whole instead and the deleted docnums dropped.
    """
    if (
        fast()
        and type(matcher) is FilterMatcher
        and matcher._exclude
        and isinstance(matcher.child, W3LeafMatcher)
        and not matcher.child._byteids
    ):
        return matcher.child, matcher._ids
    return matcher, frozenset()


def decode_postings(
    matcher: Any, dead: Callable[[frozenset[int]], np.ndarray] | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """(ids, weights) of a whole posting list (``dead``: the sorted array of a deleted set)."""
    matcher, deleted = unfiltered(matcher)
    if deleted:
        ids_all, weights_all = decode_postings(matcher)
        gone = dead(deleted) if dead is not None else np.fromiter(sorted(deleted), np.int64, len(deleted))
        keep = ~np.isin(ids_all, gone, assume_unique=True)
        return ids_all[keep], weights_all[keep]
    ids: list[np.ndarray] = []
    weights: list[np.ndarray] = []
    if fast() and isinstance(matcher, W3LeafMatcher) and not matcher._byteids:
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
        return EMPTY
    return np.concatenate(ids), np.concatenate(weights)


def expand_prefix(reader: Any, fieldname: str, prefix: str, most: int) -> tuple[tuple[str, ...], bool]:
    """(the first ``most`` terms of a Whoosh reader starting with ``prefix``, whether there are no
    more): Whoosh's public walk, merged over the segments."""
    out: list[str] = []
    for term in reader.expand_prefix(fieldname, prefix):
        if len(out) >= most:
            return tuple(out), False
        out.append(term.decode("utf-8") if isinstance(term, bytes) else term)
    return tuple(out), True


def leaf_prefix(leaf: Any, fieldname: str, prefix: bytes, most: int) -> tuple[list[tuple[bytes, Any]], bool]:
    """(the first ``most`` (term, term info) of a segment starting with ``prefix``, whether that
    is all of them): one walk of the segment's ordered term table."""
    terms = leaf._terms
    out: list[tuple[bytes, Any]] = []
    for (fname, btext), info in terms.items_from(fieldname, prefix):
        if fname != fieldname or not btext.startswith(prefix):
            return out, True
        out.append((btext, info))
        if len(out) >= most:
            return out, False
    return out, True


def position_pairs(at: dict[int, Collection[int]]) -> tuple[np.ndarray, np.ndarray]:
    """A docnum -> positions map as (docnum, position) int64 arrays, docnums ascending."""
    docs = sorted(at)
    counts = [len(at[d]) for d in docs]
    where = [p for d in docs for p in sorted(at[d])]
    return np.repeat(np.asarray(docs, np.int64), counts), np.asarray(where, np.int64)
