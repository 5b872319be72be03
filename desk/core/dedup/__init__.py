"""Near-duplicate detection: MinHash-LSH and sentence-key candidates, verified by ``verify.compare``.

May import: runtime, text, store.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from desk.core.runtime.lazy import names_from

if TYPE_CHECKING:
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

# The names load numpy and the detector on first use: a light module of this package
# (``cache_format``) is read by the lists without them.
_HOME = {
    "Candidate": "groups",
    "DEFAULT_THRESHOLD": "verify",
    "EXACT": "verify",
    "KINDS": "verify",
    "Link": "groups",
    "Match": "verify",
    "NearDuplicateIndex": "detector",
    "REVISION": "verify",
    "TRUNCATION": "verify",
    "describe": "verify",
    "describe_group": "groups",
    "describe_link": "verify",
    "match": "score",
    "similarity": "score",
    "word_diff": "diff",
}

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

__getattr__ = names_from(__name__, _HOME, globals())
