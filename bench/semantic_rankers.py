"""Rankers for bench/relevance_dev.py that measure the semantic signal side by side.

    python bench/relevance_dev.py --ranker lexical=semantic_rankers:lexical \
        --ranker fused=semantic_rankers:fused --ranker lsa=semantic_rankers:lsa_only

- ``lexical``: BM25F alone (the vectors set aside), as desk ranked before the semantic signal;
- ``fused``: desk as it ships once the vectors are built (the first call builds them);
- ``lsa_only``: the LSA cosine alone, every paper ranked by it.

The vectors' build time on the corpus is printed to stderr the first time.
"""

from __future__ import annotations

import sys
import time
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from desk.core.library import Library


def _ready(lib: Library) -> None:
    if lib.vectors.current is None or lib.vectors_pending():
        started = time.perf_counter()
        done = lib.ensure_vectors()
        print(f"semantic vectors {done} in {time.perf_counter() - started:.1f} s", file=sys.stderr)


def lexical(lib: Library, query: str, k: int) -> list[int]:
    """BM25F without the semantic signal."""
    semantic, lib.index.semantic = lib.index.semantic, None
    try:
        return [h.id for h in lib.search_ids(query, limit=k).hits]
    finally:
        lib.index.semantic = semantic


def fused(lib: Library, query: str, k: int) -> list[int]:
    """desk's search with the vectors built: BM25F fused with the LSA cosine."""
    _ready(lib)
    return [h.id for h in lib.search_ids(query, limit=k).hits]


def lsa_only(lib: Library, query: str, k: int) -> list[int]:
    """The LSA cosine of the query's words alone."""
    from desk.core.semantic import lsa

    _ready(lib)
    data = lib.vectors.current
    assert data is not None
    vec = lib.vectors.query_vector(lsa.terms(query))
    if vec is None:
        return []
    cos = data.vectors @ vec
    return [int(data.ids[i]) for i in np.argsort(-cos)[:k]]
