"""Candidate pairs from arrays: texts sharing an LSH band bucket, a cleanup fingerprint or a
sentence key. Pure functions over the index's arrays (rows, not paper ids)."""

from __future__ import annotations

from itertools import combinations

import numpy as np

MAX_BUCKET = 64
"""A band bucket holding more texts is boilerplate, not a paper; its pairs are not tried
(texts equal after cleanup are linked by their fingerprint anyway)."""
MAX_SENTENCE_BUCKET = 16
"""A sentence key (a sentence, or its first or last words) held by more texts is a formula
("In this paper, we propose a"), a definition or boilerplate: its pairs are not tried."""
_EMPTY = np.zeros((0, 2), dtype=np.int64)


def band_pairs(keys: np.ndarray, rows: np.ndarray, is_pending: np.ndarray) -> np.ndarray:
    """Row pairs sharing a bucket in some band (``keys[rows]``), one end pending; each band
    sorted, not probed. Sorted, unique, low row first."""
    found = [_EMPTY]
    for band in range(keys.shape[1]):
        col = keys[rows, band]
        order = np.argsort(col, kind="stable")
        ordered = col[order]
        same = ordered[1:] == ordered[:-1]
        if not same.any():
            continue
        edges = np.flatnonzero(np.diff(np.concatenate(([False], same, [False])).astype(np.int8)))
        starts, stops = edges[0::2], edges[1::2] + 1
        sizes = stops - starts
        twos = starts[sizes == 2]
        found.append(np.stack([rows[order[twos]], rows[order[twos + 1]]], axis=1))
        middle = (sizes > 2) & (sizes <= MAX_BUCKET)
        for s, e in zip(starts[middle], stops[middle], strict=True):
            found.append(np.array(list(combinations(rows[order[s:e]].tolist(), 2)), dtype=np.int64))
    pairs = np.sort(np.concatenate(found), axis=1)
    pairs = pairs[is_pending[pairs[:, 0]] | is_pending[pairs[:, 1]]]
    return unique_pairs(pairs, len(is_pending))


def unique_pairs(pairs: np.ndarray, rows: int) -> np.ndarray:
    """``pairs`` (low row first) sorted and without repeats (as ``np.unique(axis=0)``, faster)."""
    width = np.int64(max(rows, 1))
    codes = np.unique(pairs[:, 0] * width + pairs[:, 1])
    return np.stack([codes // width, codes % width], axis=1)


def with_evidence(
    band_pairs: np.ndarray, sentence_pairs: np.ndarray, keys: np.ndarray, fps: np.ndarray, rows: int
) -> tuple[np.ndarray, np.ndarray]:
    """The candidate pairs with enough evidence to verify, sorted, and whether each is equal after
    cleanup: equal (``fps``), two equal LSH bands (``keys``: a Jaccard near 0.3 or more), three
    sentence keys shared (``sentence_pairs`` holds a pair once per key), or one band and two keys.
    ``band_pairs`` may repeat a pair; ``rows``: how many rows the pairs number."""
    width = np.int64(max(rows, 1))
    keyed, shared = np.unique(sentence_pairs[:, 0] * width + sentence_pairs[:, 1], return_counts=True)
    banded = np.unique(band_pairs[:, 0] * width + band_pairs[:, 1])
    codes = np.concatenate([banded[~np.isin(banded, keyed, assume_unique=True)], keyed])
    codes.sort()  # the union of two sets with no repeat: not a third np.unique over both
    pairs = np.stack([codes // width, codes % width], axis=1)
    held = np.zeros(len(pairs), dtype=np.int64)
    held[np.searchsorted(codes, keyed)] = shared
    lo, hi = pairs[:, 0], pairs[:, 1]
    exact = fps[lo] == fps[hi]
    keep = exact | (held >= 3)
    # The bands are counted only where they decide: counting them for every pair was most of an
    # import's closing near-duplicate pass on recombined text, where a text shares sentences with
    # hundreds of others (`bench/rich_import_bench.py --jsonl 20000`).
    undecided = np.flatnonzero(~keep)
    bands = (keys[lo[undecided]] == keys[hi[undecided]]).sum(axis=1)
    keep[undecided] = (bands >= 2) | ((bands >= 1) & (held[undecided] >= 2))
    return pairs[keep], exact[keep]


def fingerprint_pairs(fps: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Texts (``rows``) equal after cleanup, each linked to the first of its kind (a star, not a clique)."""
    values = fps[rows]
    order = np.argsort(values, kind="stable")
    ordered = values[order]
    first = np.concatenate(([True], ordered[1:] != ordered[:-1]))
    head = np.maximum.accumulate(np.where(first, np.arange(len(order)), 0))
    dup = ~first
    return np.stack([rows[order[head[dup]]], rows[order[dup]]], axis=1)


def sentence_pairs(
    keys: np.ndarray, owners: np.ndarray, wanted: np.ndarray, is_pending: np.ndarray
) -> np.ndarray:
    """Row pairs sharing a sentence key of ``wanted`` held by 2 to ``MAX_SENTENCE_BUCKET`` texts,
    one end pending, once per key they share (``keys`` sorted, ``owners`` their rows).

    Key by key in ``wanted``'s order, each key's distinct owners paired as ``combinations`` of
    them sorted would pair them, all in numpy: the recombined benchmark corpus shares tens of
    thousands of sentences, and a Python step per key was a tenth of an import's main process.
    """
    if not len(wanted) or not len(keys):
        return _EMPTY
    lo, hi = np.searchsorted(keys, wanted, side="left"), np.searchsorted(keys, wanted, side="right")
    keep = (hi - lo >= 2) & (hi - lo <= MAX_SENTENCE_BUCKET)
    bucket, held = _bucket_members(lo[keep], hi[keep], owners)
    if not len(held):
        return _EMPTY
    order = np.lexsort((held, bucket))  # by bucket, then owner
    bucket, held = bucket[order], held[order]
    distinct = np.concatenate(([True], (bucket[1:] != bucket[:-1]) | (held[1:] != held[:-1])))
    bucket, held = bucket[distinct], held[distinct]
    first: list[np.ndarray] = []
    second: list[np.ndarray] = []
    for gap in range(1, MAX_SENTENCE_BUCKET):
        at = np.flatnonzero(bucket[gap:] == bucket[:-gap]) if gap < len(bucket) else np.zeros(0, np.int64)
        if not len(at):
            break  # no bucket holds more than ``gap`` distinct owners
        first.append(at)
        second.append(at + gap)
    if not first:
        return _EMPTY
    a, b = np.concatenate(first), np.concatenate(second)
    order = np.lexsort((b, a))  # combinations' order: by first member, then second
    pairs = np.stack([held[a[order]], held[b[order]]], axis=1).astype(np.int64, copy=False)
    return pairs[is_pending[pairs[:, 0]] | is_pending[pairs[:, 1]]]


def _bucket_members(lo: np.ndarray, hi: np.ndarray, owners: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(bucket number, owner) of every entry of the buckets ``owners[lo[k]:hi[k]]``, in order."""
    sizes = hi - lo
    total = int(sizes.sum())
    bucket = np.repeat(np.arange(len(sizes), dtype=np.int64), sizes)
    starts = np.repeat(lo - (np.cumsum(sizes) - sizes), sizes)
    return bucket, owners[starts + np.arange(total, dtype=np.int64)]
