"""Near-duplicate detection: MinHash-LSH and sentence-key candidates, verified by ``verify.compare``.

May import: runtime, text, store.
"""

from __future__ import annotations

from desk.core.dedup.detector import NearDuplicateIndex
from desk.core.dedup.diff import word_diff
from desk.core.dedup.groups import Candidate, Link, describe_group
from desk.core.dedup.score import match, similarity
from desk.core.dedup.verify import (
    DEFAULT_THRESHOLD,
    EXACT,
    KINDS,
    REVISION,
    TRUNCATION,
    Match,
    describe,
    describe_link,
)

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
    "describe_group",
    "describe_link",
    "match",
    "similarity",
    "word_diff",
]
