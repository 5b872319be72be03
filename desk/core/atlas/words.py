"""The words an abstract uses most, as a sparse vector: the map's second sense of "alike".

The sentence encoder reads an abstract's opening and places it by what the paper is about; the
words it repeats ("video", "transformer", "contrastive") say how the work is done, and a paper's
title is made of them. The map's neighbour graph weighs both (layout.py): each abstract is a
sublinear TF-IDF row of its stemmed words (the LSA's own weighting, lsa.py), unit length, and a
pair of papers is as alike in words as the cosine of their rows. Only the pairs the neighbour
search proposes are compared, a block of rows at a time, so 100k abstracts need no n x n product.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy import sparse  # type: ignore[import-untyped]

from desk.core.semantic import lsa

#: Candidate pairs compared at once: the repeated rows of a block hold about this many pairs'
#: words (~100 non-zeros an abstract, 8 bytes each: ~40 MB a side).
PAIRS_AT_ONCE = 50_000


def word_rows(texts: Sequence[str]) -> sparse.csr_matrix:
    """One unit-length sublinear TF-IDF row (float32 CSR) per text, over the stemmed words that
    occur in at least two texts and at most half of them (an empty text: a zero row)."""
    docs = [lsa.terms(text) for text in texts]
    weighed = lsa.vocabulary(docs).weigh(docs)
    return sparse.csr_matrix(
        (weighed.data, weighed.indices, weighed.indptr), shape=weighed.shape, dtype=np.float32
    )


def pair_cosines(rows: sparse.csr_matrix, idx: np.ndarray) -> np.ndarray:
    """The cosine of each row ``i`` of ``rows`` with each row ``idx[i, j]`` (``rows``' rows are
    unit length or zero): a float32 array shaped like ``idx``."""
    n, k = idx.shape
    out = np.zeros((n, k), np.float32)
    if not n or not k:
        return out
    step = max(1, PAIRS_AT_ONCE // k)
    for lo in range(0, n, step):
        hi = min(n, lo + step)
        heads = rows[np.repeat(np.arange(lo, hi), k)]
        tails = rows[idx[lo:hi].ravel()]
        out[lo:hi] = np.asarray(heads.multiply(tails).sum(axis=1), np.float32).reshape(hi - lo, k)
    return out
