"""Near-duplicate detection: MinHash-LSH and sentence-key candidates, verified by ``verify.compare``."""

from __future__ import annotations

from desk.core.dedup.detector import Candidate, Link, NearDuplicateIndex
from desk.core.dedup.diff import word_diff
from desk.core.dedup.score import match, similarity
from desk.core.dedup.verify import DEFAULT_THRESHOLD, EXACT, KINDS, REVISION, TRUNCATION, Match, describe

__all__ = [
    "DEFAULT_THRESHOLD",
    "EXACT",
    "KINDS",
    "REVISION",
    "TRUNCATION",
    "Candidate",
    "Link",
    "Match",
    "NearDuplicateIndex",
    "describe",
    "match",
    "similarity",
    "word_diff",
]
