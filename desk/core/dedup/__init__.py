"""Near-duplicate detection: MinHash-LSH candidates verified by an exact shingle similarity."""

from __future__ import annotations

from desk.core.dedup.detector import Candidate, NearDuplicateIndex
from desk.core.dedup.diff import word_diff
from desk.core.dedup.score import DEFAULT_THRESHOLD, similarity

__all__ = ["DEFAULT_THRESHOLD", "Candidate", "NearDuplicateIndex", "similarity", "word_diff"]
