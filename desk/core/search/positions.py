"""Word positions of chosen documents in a Whoosh posting list, decoded block by block (phrases).

Only the blocks holding a wanted document are read, and a position list is decoded with the
delta loop in C (Whoosh's own decoder is a Python loop per position).
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from itertools import accumulate
from typing import Any

import numpy as np
from whoosh.codec.whoosh3 import W3LeafMatcher
from whoosh.formats import _INT_SIZE, Positions

from desk.core.search.unpickling import loads
from desk.core.search.whoosh_internals import fast


def _position_decoder(fmt: Any) -> Callable[[bytes], Collection[int]]:
    """Whoosh's Positions.decode_positions with the delta loop in C."""
    if type(fmt) is not Positions:
        return fmt.decoder("positions")

    def decode(value: bytes) -> Collection[int]:
        return set(accumulate(loads(value[_INT_SIZE:] if value.endswith(b".") else value[_INT_SIZE:] + b".")))

    return decode


def positions(matcher: Any, wanted: np.ndarray) -> dict[int, Collection[int]]:
    """Positions of the sorted local docnums ``wanted`` that the posting list holds."""
    out: dict[int, Collection[int]] = {}
    if not len(wanted):
        return out
    if not fast():
        return _plain_positions(matcher, wanted)
    # A segment with deleted documents wraps its postings in a FilterMatcher; the wanted
    # docnums are live documents already, so the raw postings underneath are what we read.
    while not hasattr(matcher, "format") and not hasattr(matcher, "_format") and hasattr(matcher, "child"):
        matcher = matcher.child
    # A block list's matcher has .format; a short list kept in its term entry (a ListMatcher), ._format.
    decode = _position_decoder(getattr(matcher, "format", None) or matcher._format)
    if not isinstance(matcher, W3LeafMatcher) or matcher._byteids:
        return _plain_positions(matcher, wanted)
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


def _plain_positions(matcher: Any, wanted: np.ndarray) -> dict[int, Collection[int]]:
    """positions() through the matcher's public methods: a skip and a decode per document."""
    out: dict[int, Collection[int]] = {}
    for d in wanted.tolist():
        if not matcher.is_active():
            break
        matcher.skip_to(d)
        if matcher.is_active() and matcher.id() == d:
            out[d] = set(matcher.value_as("positions"))
    return out
