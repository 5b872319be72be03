"""The exact verifier: how much of two texts' 4-word shingles they share, with a truncation guard."""

from __future__ import annotations

import numpy as np

from desk.core.dedup.shingles import normalize, shingle

DEFAULT_THRESHOLD = 0.6
"""Offered at or above this. On the labelled set (``bench/dedup_bench.py``) no different pair
scores above 0.40 (papers sharing up to 40 % of their text: an opening, a frame, a template),
and recall is flat from 0.45 to 0.65 (99.9 % to 99.5 % of edited copies); 0.6 keeps a 0.2
margin over the hardest negative and misses only copies with a third of the text rewritten."""

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
    if (
        small >= MIN_CONTAINED_SHINGLES
        and small >= MIN_LENGTH_RATIO * large
        and (_found(tail_a, b) or _found(tail_b, a))
    ):
        score = max(score, shared / small)
    return score


def similarity(a: str, b: str) -> float:
    """The exact similarity in [0, 1] of two abstracts (1.0 when equal after cleanup)."""
    shingled = shingle([normalize(a), normalize(b)])
    if shingled.cleanup[0] == shingled.cleanup[1]:
        return 1.0
    (set_a, set_b), tails = shingled.sets, shingled.tails
    return score_sets(set_a, set_b, tails[0], tails[1])
