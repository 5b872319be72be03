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
    from desk.core.library.facade import Library


_READY: set[int] = set()


def _ready(lib: Library) -> None:
    """Build the vectors on the first call for a library (not timed as a search afterwards)."""
    if id(lib) in _READY:
        return
    _READY.add(id(lib))
    if lib.vectors.current is None or lib.discovery.vectors_pending():
        started = time.perf_counter()
        done = lib.discovery.ensure_vectors()
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
    cos = data.products(vec)
    return [int(data.ids[i]) for i in np.argsort(-cos)[:k]]


# ---- option (a): wordllama (PyPI `wordllama`, a 256-d static embedding shipped in its wheel) ----
# Not a dependency of desk: `pip install wordllama` to run these two; they measure the option
# that LSA was chosen over (README "Searching"; bench/README.md).


class _WordLlama:
    """wordllama vectors of the library's abstracts, shaped like SemanticVectors for the fusion."""

    def __init__(self, lib: Library) -> None:
        import os

        import wordllama
        from wordllama import WordLlama

        # The wheel keeps its tokenizer in tokenizers/: load from the package folder, never download.
        self.model = WordLlama.load(cache_dir=os.path.dirname(wordllama.__file__), disable_download=True)
        ids = lib.paper_ids()
        texts = lib.discovery._abstracts(ids)
        started = time.perf_counter()
        self.ids = np.asarray(sorted(ids), np.int64)
        self.vectors = np.asarray(self.model.embed([texts[int(i)] for i in self.ids], norm=True), np.float32)
        print(
            f"wordllama: {len(ids)} abstracts embedded in {time.perf_counter() - started:.1f} s",
            file=sys.stderr,
        )
        self.text = ""

    def query_vector(self, stems: object) -> np.ndarray | None:
        vec = np.asarray(self.model.embed([self.text], norm=True)[0], np.float32)
        return vec if float(vec @ vec) > 0 else None

    def vector_of(self, paper_id: int) -> np.ndarray | None:
        row = int(np.searchsorted(self.ids, paper_id))
        return self.vectors[row] if row < len(self.ids) and self.ids[row] == paper_id else None

    def cosines(self, vec: np.ndarray, ids: np.ndarray) -> np.ndarray:
        rows = np.minimum(np.searchsorted(self.ids, ids), len(self.ids) - 1)
        return np.where(self.ids[rows] == ids, (self.vectors @ vec)[rows], 0).astype(np.float32)


_WL: dict[int, _WordLlama] = {}


def _wordllama(lib: Library) -> _WordLlama:
    if id(lib) not in _WL:
        _WL[id(lib)] = _WordLlama(lib)
    return _WL[id(lib)]


def wordllama_only(lib: Library, query: str, k: int) -> list[int]:
    """The wordllama cosine alone."""
    wl = _wordllama(lib)
    wl.text = query
    vec = wl.query_vector(())
    if vec is None:
        return []
    return [int(wl.ids[i]) for i in np.argsort(-(wl.vectors @ vec))[:k]]


def wordllama_fused(lib: Library, query: str, k: int) -> list[int]:
    """BM25F fused with the wordllama cosine by desk's own fusion (fusion.py)."""
    wl = _wordllama(lib)
    wl.text = query
    semantic, lib.index.semantic = lib.index.semantic, wl  # type: ignore[assignment]
    try:
        return [h.id for h in lib.search_ids(query, limit=k).hits]
    finally:
        lib.index.semantic = semantic
