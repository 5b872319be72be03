"""The near-duplicate candidate arrays: numpy forms equal to the plain Python they replaced."""

from __future__ import annotations

from collections import Counter
from itertools import combinations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from desk.core.dedup.candidates import MAX_SENTENCE_BUCKET, sentence_pairs, with_evidence
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


def _evidence_by_hand(
    band: list[tuple[int, int]], sentence: list[tuple[int, int]], keys: np.ndarray, fps: np.ndarray
) -> tuple[list[tuple[int, int]], list[bool]]:
    """The rule with_evidence applies, pair by pair: equal, two bands, three keys, or one and two."""
    held = Counter(sentence)
    kept: list[tuple[int, int]] = []
    exact: list[bool] = []
    for lo, hi in sorted(set(band) | set(held)):
        equal = bool(fps[lo] == fps[hi])
        bands = int((keys[lo] == keys[hi]).sum())
        if equal or bands >= 2 or held[lo, hi] >= 3 or (bands >= 1 and held[lo, hi] >= 2):
            kept.append((lo, hi))
            exact.append(equal)
    return kept, exact


@st.composite
def _candidates(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    rows = draw(st.integers(2, 12))
    pair = st.tuples(st.integers(0, rows - 1), st.integers(0, rows - 1)).filter(lambda p: p[0] < p[1])
    band = draw(st.lists(pair, max_size=30))  # a pair may repeat (rows found one by one)
    sentence = draw(st.lists(pair, max_size=40))  # once per shared key
    keys = np.array(draw(st.lists(st.lists(st.integers(0, 2), min_size=4, max_size=4), min_size=rows,
                                  max_size=rows)), dtype=np.uint32)  # fmt: skip
    fps = np.array(draw(st.lists(st.integers(0, 3), min_size=rows, max_size=rows)), dtype=np.uint64)
    as_array = lambda ps: np.array(ps, dtype=np.int64).reshape(-1, 2)  # noqa: E731
    return as_array(band), as_array(sentence), keys, fps


@settings(max_examples=300, deadline=None)
@given(_candidates())
def test_pairs_with_evidence_follow_the_rule_pair_by_pair(case: tuple[np.ndarray, ...]) -> None:
    band, sentence, keys, fps = case
    pairs, exact = with_evidence(band, sentence, keys, fps, len(keys))
    want_pairs, want_exact = _evidence_by_hand(
        [tuple(p) for p in band.tolist()], [tuple(p) for p in sentence.tolist()], keys, fps
    )
    assert [tuple(p) for p in pairs.tolist()] == want_pairs
    assert exact.tolist() == want_exact
