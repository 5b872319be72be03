"""The pair verifier on plain texts: ``similarity`` (the offer score) and ``match`` (kind and shares)."""

from __future__ import annotations

from desk.core.dedup.detector import prepare
from desk.core.dedup.verify import DEFAULT_THRESHOLD, Match, compare

__all__ = ["DEFAULT_THRESHOLD", "match", "similarity"]


def match(a: str, b: str) -> Match:
    """How readable abstract ``b`` compares with ``a``: kind, score, similarity, containment."""
    ready = prepare([a, b], 3)
    exact = bool(ready.cleanup[0] == ready.cleanup[1])
    return compare(ready.words[0], ready.starts[0], ready.words[1], ready.starts[1], exact)


def similarity(a: str, b: str) -> float:
    """The score in [0, 1] that decides whether two abstracts are offered (1.0 when equal after
    cleanup, a truncated copy's share found in the longer text, a revision's share of sentences)."""
    return match(a, b).score
