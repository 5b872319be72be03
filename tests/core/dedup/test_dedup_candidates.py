"""The near-duplicate candidate arrays: numpy forms equal to the plain Python they replaced."""

from __future__ import annotations

from itertools import combinations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from desk.core.dedup.candidates import MAX_SENTENCE_BUCKET, sentence_pairs
from desk.core.dedup.verify import content_mask, function_words


def _sentence_pairs_by_key(
    keys: np.ndarray, owners: np.ndarray, wanted: np.ndarray, is_pending: np.ndarray
) -> np.ndarray:
    """The former sentence_pairs: a Python step (np.unique, combinations) per key."""
    empty = np.zeros((0, 2), dtype=np.int64)
    if not len(wanted) or not len(keys):
        return empty
    lo, hi = np.searchsorted(keys, wanted, side="left"), np.searchsorted(keys, wanted, side="right")
    keep = (hi - lo >= 2) & (hi - lo <= MAX_SENTENCE_BUCKET)
    found = [empty]
    for a, b in zip(lo[keep].tolist(), hi[keep].tolist(), strict=True):
        bucket = np.unique(owners[a:b])
        if len(bucket) > 1:
            found.append(np.array(list(combinations(bucket.tolist(), 2)), dtype=np.int64))
    pairs = np.concatenate(found)
    return pairs[is_pending[pairs[:, 0]] | is_pending[pairs[:, 1]]]


@st.composite
def _held_keys(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    rows = draw(st.integers(1, 40))
    # Few distinct keys, so buckets of every size up to past MAX_SENTENCE_BUCKET occur.
    entries = draw(st.lists(st.tuples(st.integers(0, 12), st.integers(0, rows - 1)), max_size=300))
    keys = np.array([k for k, _ in entries], dtype=np.uint32)
    owners = np.array([o for _, o in entries], dtype=np.int64)
    order = np.argsort(keys, kind="stable")
    wanted = np.array(draw(st.lists(st.integers(0, 14), max_size=16)), dtype=np.uint32)
    if draw(st.booleans()):
        wanted = np.unique(wanted)  # as the index asks
    pending = np.array(draw(st.lists(st.booleans(), min_size=rows, max_size=rows)), dtype=bool)
    return keys[order], owners[order], wanted, pending


@settings(max_examples=300, deadline=None)
@given(_held_keys())
def test_sentence_pairs_equal_the_pairs_made_key_by_key(case: tuple[np.ndarray, ...]) -> None:
    keys, owners, wanted, pending = case
    fast = sentence_pairs(keys, owners, wanted, pending)
    plain = _sentence_pairs_by_key(keys, owners, wanted, pending)
    assert fast.dtype == plain.dtype == np.int64
    assert fast.shape == plain.shape
    assert np.array_equal(fast, plain)  # the same pairs, in the same order


def test_a_full_bucket_gives_every_pair_once_and_a_crowded_one_none() -> None:
    full = MAX_SENTENCE_BUCKET
    keys = np.array([1] * full + [2] * (full + 1), dtype=np.uint32)
    owners = np.arange(2 * full + 1, dtype=np.int64)
    pairs = sentence_pairs(keys, owners, np.array([1, 2], dtype=np.uint32), np.ones(2 * full + 1, bool))
    assert len(pairs) == full * (full - 1) // 2
    assert pairs.max() < full  # key 2 is held by too many texts


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(0, 2**32 - 1), max_size=200), st.integers(0, 60))
def test_content_mask_is_not_isin_the_function_words(words: list[int], picked: int) -> None:
    known = sorted(function_words())
    mixed = np.array(words + known[:picked], dtype=np.uint32)
    expected = ~np.isin(mixed, np.array(known, dtype=np.uint32))
    assert np.array_equal(content_mask(mixed), expected)
