"""Latent semantic analysis fitted on the library: TF-IDF of stemmed words, then a truncated SVD.

Words that occur in the same abstracts get nearby directions, so a query's words find papers
that use their neighbours ("radiance field" finds NeRF papers that never say "radiance").
The truncated SVD is a randomized subspace iteration (Halko, Martinsson and Tropp 2011) over
SciPy's sparse products; no scikit-learn, no model download.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from whoosh.analysis import STOP_WORDS  # type: ignore[import-untyped]

from desk.core.text.stemming import TOKEN_PATTERN
from desk.core.text.stemming import stem as cached_stem

DIMENSIONS = 192
MIN_DOCS_PER_DIMENSION = 4  # a small library gets fewer dimensions: rank n would only repeat its words
MIN_DF = 2  # a word in one abstract relates it to nothing
MAX_DF_SHARE = 0.5  # a word in half the abstracts says little
MAX_VOCABULARY = 60_000  # the most frequent words kept beyond that (bounds the model's size)
POWER_ITERATIONS = 2
OVERSAMPLE = 16
SEED = 20261201
SMALL_PRODUCT = 2000  # non-zeros below which a product is a numpy gather (a query), not SciPy's
SINGULAR_POWER = 0.5  # document vectors are U · S^p: p < 1 keeps weaker topics from vanishing

Progress = Callable[[int, int], None]
_TOKEN = re.compile(TOKEN_PATTERN)


def terms(text: str) -> list[str]:
    """Stemmed words of ``text`` as the search index analyses them (stop words and 1-letter words left out).

    The analyzer's steps (tokenize, lowercase, stop, stem) done with one regex and a set: 5× faster.
    """
    return [cached_stem(w) for w in _TOKEN.findall(text.lower()) if len(w) > 1 and w not in STOP_WORDS]


@dataclass
class Sparse:
    """A CSR matrix: row r's columns are ``indices[indptr[r]:indptr[r + 1]]``."""

    indptr: np.ndarray
    indices: np.ndarray
    data: np.ndarray
    shape: tuple[int, int]

    def _csr(self) -> Any:
        # Imported here: SciPy takes ~0.1 s to load, and a query (a numpy product) never needs it.
        from scipy.sparse import csr_matrix  # type: ignore[import-untyped]

        return csr_matrix((self.data, self.indices, self.indptr), shape=self.shape)

    def dot(self, dense: np.ndarray) -> np.ndarray:
        """self @ dense: SciPy's C loop for a big matrix (~9× faster than gathering rows with
        numpy), a numpy gather for a few rows (a query: SciPy's set-up costs more than the product)."""
        if len(self.data) > SMALL_PRODUCT:
            return np.asarray(self._csr() @ dense, dtype=np.float32)
        out = np.zeros((self.shape[0], dense.shape[1]), np.float32)
        for r in range(self.shape[0]):
            lo, hi = int(self.indptr[r]), int(self.indptr[r + 1])
            if hi > lo:
                out[r] = self.data[lo:hi] @ dense[self.indices[lo:hi]]
        return out

    def transpose(self) -> Sparse:
        """The CSR of the transpose."""
        t = self._csr().T.tocsr()
        return Sparse(t.indptr, t.indices, t.data, (self.shape[1], self.shape[0]))


@dataclass
class Vocabulary:
    """The words the model knows, with their idf."""

    words: list[str]
    idf: np.ndarray  # float32, one per word

    def __post_init__(self) -> None:
        self.column = dict(zip(self.words, range(len(self.words)), strict=True))  # 2x a comprehension

    def weigh(self, docs: Sequence[Sequence[str]]) -> Sparse:
        """Unit-length sublinear TF-IDF rows of tokenised documents (unknown words dropped)."""
        column, width = self.column, len(self.words)
        lengths = np.fromiter((len(d) for d in docs), np.int64, len(docs))
        cols = np.fromiter((column.get(w, -1) for d in docs for w in d), np.int64, int(lengths.sum()))
        rows = np.repeat(np.arange(len(docs), dtype=np.int64), lengths)
        known = cols >= 0
        keys, tf = np.unique(rows[known] * max(width, 1) + cols[known], return_counts=True)
        row_of, indices = np.divmod(keys, max(width, 1))
        data = ((1.0 + np.log(tf)) * self.idf[indices]).astype(np.float32)
        norms = np.sqrt(np.bincount(row_of, data.astype(np.float64) ** 2, minlength=len(docs)))
        data /= np.where(norms > 0, norms, 1.0)[row_of].astype(np.float32)
        indptr = np.zeros(len(docs) + 1, np.int64)
        np.cumsum(np.bincount(row_of, minlength=len(docs)), out=indptr[1:])
        return Sparse(indptr, indices.astype(np.int32), data, (len(docs), width))


def vocabulary(docs: Iterable[Sequence[str]]) -> Vocabulary:
    """Words in at least MIN_DF and at most MAX_DF_SHARE of the documents, with smoothed idf."""
    df: dict[str, int] = {}
    n = 0
    for doc in docs:
        n += 1
        for w in set(doc):
            df[w] = df.get(w, 0) + 1
    top = max(MIN_DF, int(MAX_DF_SHARE * n))
    kept = [(c, w) for w, c in df.items() if MIN_DF <= c <= top]
    kept.sort(key=lambda cw: (-cw[0], cw[1]))
    kept = kept[:MAX_VOCABULARY]
    kept.sort(key=lambda cw: cw[1])
    words = [w for _, w in kept]
    idf = np.array([math.log((1 + n) / (1 + c)) + 1.0 for c, _ in kept], np.float32)
    return Vocabulary(words, idf)


def _orthonormal(a: np.ndarray) -> np.ndarray:
    """An orthonormal basis of a's columns by CholeskyQR2.

    Only matrix products and a small Cholesky: LAPACK's Householder QR runs ~30× slower when
    OpenBLAS's threads compete with other processes for the cores, products do not.
    """
    for _ in range(2):
        gram = (a.T @ a).astype(np.float64)
        gram[np.diag_indices_from(gram)] += 1e-7 * max(1.0, float(np.trace(gram)))
        r = np.linalg.cholesky(gram).T  # gram = rᵀ r
        a = a @ np.linalg.inv(r).astype(np.float32)  # a r⁻¹: r is small (k × k)
    return a


def randomized_svd(matrix: Sparse, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(U, S, Vt) of the best rank-``k`` approximation, by randomized subspace iteration."""
    rows, cols = matrix.shape
    k = max(1, min(k, rows, cols))
    width = min(k + OVERSAMPLE, rows, cols)
    transposed = matrix.transpose()
    rng = np.random.default_rng(SEED)
    q = _orthonormal(matrix.dot(rng.standard_normal((cols, width)).astype(np.float32)))
    for _ in range(POWER_ITERATIONS):
        z = _orthonormal(transposed.dot(q))
        q = _orthonormal(matrix.dot(z))
    bt = transposed.dot(q)  # cols × width: B = Qᵀ A, transposed
    # B Bᵀ = Ub S² Ubᵀ (width × width): an eigendecomposition instead of an SVD of B itself.
    evals, ub = np.linalg.eigh((bt.T @ bt).astype(np.float64))
    order = np.argsort(evals)[::-1][:k]
    s = np.sqrt(np.clip(evals[order], 0.0, None))
    ub = ub[:, order]
    safe = np.where(s > 1e-9, s, 1.0)
    vt = ((bt @ ub) / safe[None, :]).T  # V = Bᵀ Ub S⁻¹
    u = q @ ub.astype(np.float32)
    return u.astype(np.float32), s.astype(np.float32), vt.astype(np.float32)


@dataclass
class LsaModel:
    """What a fitted LSA needs to place a text: the vocabulary and the word directions."""

    vocabulary: Vocabulary
    components: np.ndarray  # words × k, float32: V · S^(p-1), so a unit TF-IDF row maps to U · S^p

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Unit-length vectors (len(texts) × k) of texts; a text of unknown words gets zeros."""
        return self.encode_terms([terms(t) for t in texts])

    def encode_terms(self, docs: Sequence[Sequence[str]]) -> np.ndarray:
        """Unit-length vectors of tokenised documents."""
        return normalize(self.vocabulary.weigh(docs).dot(self.components))


def normalize(vectors: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length (zero rows stay zero)."""
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return (vectors / np.where(norms > 0, norms, 1.0)).astype(np.float32)


def fit(docs: Sequence[Sequence[str]], k: int | None = None) -> LsaModel:
    """Fit LSA on tokenised documents (the model places any text, these documents included).

    ``k``: DIMENSIONS unless given (read at the call, so a benchmark may set it).
    """
    k = max(1, min(DIMENSIONS if k is None else k, len(docs) // MIN_DOCS_PER_DIMENSION))
    vocab = vocabulary(docs)
    matrix = vocab.weigh(docs)
    if not vocab.words or not len(matrix.data):
        return LsaModel(vocab, np.zeros((len(vocab.words), 1), np.float32))
    _, s, vt = randomized_svd(matrix, k)
    keep = s > 1e-6 * max(1.0, float(s.max()))
    s, vt = s[keep], vt[keep]
    components = (vt.T * (s ** (SINGULAR_POWER - 1.0))[None, :]).astype(np.float32)
    return LsaModel(vocab, components)
