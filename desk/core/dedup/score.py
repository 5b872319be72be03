"""The exact verifier: how much of two texts' 4-word shingles they share, with a truncation guard."""

from __future__ import annotations

import numpy as np

from desk.core.dedup.shingles import normalize_words, shingle_sets

DEFAULT_THRESHOLD = 0.6
"""Offered at or above this; chosen from ``bench/dedup_bench.py`` (see its report)."""

MIN_CONTAINED_SHINGLES = 20
"""A text needs this many shingles before being inside another can make it a duplicate."""

MIN_LENGTH_RATIO = 0.4
"""...and must be at least this fraction of the other's length (a truncated copy keeps ≥ half)."""


def shared_count(a: np.ndarray, b: np.ndarray) -> int:
    """How many values two sorted unique arrays have in common."""
    if len(a) > len(b):
        a, b = b, a
    if not len(a):
        return 0
    at = np.searchsorted(b, a)
    at[at == len(b)] = 0
    return int(np.count_nonzero(b[at] == a))


def _found(tail: np.ndarray, other: np.ndarray) -> bool:
    """Whether a text's end is in the other text: half its last shingles are (a typo or a word
    cut in half near the end loses up to four of twelve; another paper's text shares a few by chance)."""
    tail = np.unique(tail)
    return 2 * shared_count(tail, other) >= len(tail)


def score_sets(a: np.ndarray, b: np.ndarray, tail_a: np.ndarray, tail_b: np.ndarray) -> float:
    """Similarity of two shingle sets: the larger of Jaccard and guarded containment.

    Containment (shared / smaller set) lets a truncated copy score high. It counts only when
    one text's end is found in the other, as a truncated copy's is, and when the smaller has
    ``MIN_CONTAINED_SHINGLES`` shingles and ``MIN_LENGTH_RATIO`` of the larger's: a template,
    a short sentence inside an abstract, or a paper that opens like another one is not a copy.
    """
    small, large = sorted((len(a), len(b)))
    if not small:
        return 1.0 if not large else 0.0
    shared = shared_count(a, b)
    score = shared / (small + large - shared)
    if (small >= MIN_CONTAINED_SHINGLES and small >= MIN_LENGTH_RATIO * large
            and (_found(tail_a, b) or _found(tail_b, a))):
        score = max(score, shared / small)
    return score


def similarity(a: str, b: str) -> float:
    """The exact similarity in [0, 1] of two abstracts (1.0 when equal after cleanup)."""
    words_a, words_b = normalize_words(a), normalize_words(b)
    if words_a == words_b:
        return 1.0
    (set_a, set_b), tails = shingle_sets([words_a, words_b])
    return score_sets(set_a, set_b, tails[0], tails[1])
