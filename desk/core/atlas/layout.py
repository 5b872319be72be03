"""Paper vectors laid out in the plane so that neighbours stay neighbours: UMAP's method in numpy.

The steps are those of UMAP (McInnes, Healy & Melville, 2018): the vectors reduced by PCA, each
point's exact k nearest neighbours (cosine; where the abstracts are given, the nearest by
vector ranked again by vector and words together: blended_neighbours), their distances
turned into fuzzy memberships (each point's own scale, ``rho`` and ``sigma``) and symmetrised,
a spectral start (the graph's normalised Laplacian), then stochastic gradient descent on the
cross-entropy between that graph and one read from the plane, with negative sampling.
umap-learn itself needs numba and llvmlite (~60 MB, a slow first import) and openTSNE or
scikit-learn are as large; numpy and scipy, which desk has, do it in a few hundred lines. The
descent moves every due edge of an epoch at once (as GPU versions of UMAP do) rather than one
edge after the other: numpy's speed, the same objective. Everything random comes from one
seed: a layout is the same for the same vectors.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from scipy import sparse  # type: ignore[import-untyped]

from desk.core.atlas.words import pair_cosines

Progress = Callable[[int, int], None]

PCA_DIMS = 50  # dimensions kept before the neighbour search (the rest is mostly noise)
NEIGHBOURS = 15  # UMAP's default: local enough for clusters, global enough for their places
#: Similarities held at once by the neighbour search (32 MB of float32, 64 MB of the partition's
#: indexes): 1,024 rows at 8k papers, 80 at 100k.
PRODUCTS_AT_ONCE = 8_000_000
#: Points pushed away for each edge pulled together (UMAP's negative_sample_rate is 5). Up to
#: SMALL_LIBRARY papers 10: a conference's map keeps its papers' nearest around them better
#: (on the dev corpus the 10 nearest on the map share a paper's title topic 6 % more often),
#: at twice the descent's time, which a library of 100k cannot spend.
SMALL_NEGATIVES = 10
LARGE_NEGATIVES = 5
#: How much the abstracts' words count beside their vectors in the neighbour graph (words.py):
#: the similarity of two papers is (1 - WORDS_WEIGHT) * cosine of the vectors + WORDS_WEIGHT *
#: cosine of the words. Each paper's CANDIDATES nearest by its vector are compared by words.
WORDS_WEIGHT = 0.5
CANDIDATES = 2 * NEIGHBOURS
#: The curve 1 / (1 + a d^2b) UMAP fits for spread 1.0 and min_dist 0.1 (its find_ab_params).
CURVE_A = 1.5769434603113077
CURVE_B = 0.8950608779109733
CLIP = 4.0  # a single edge's gradient step at most (UMAP's clip)
SMALL_EPOCHS = 500  # epochs up to SMALL_LIBRARY points, as UMAP
LARGE_EPOCHS = 200
SMALL_LIBRARY = 10_000
BISECTION_STEPS = 64


def reduce(vectors: np.ndarray, dims: int = PCA_DIMS) -> np.ndarray:
    """The rows of ``vectors`` projected on their first ``dims`` principal components, as unit
    rows (float32). The covariance is d x d (d <= 384), so its eigenvectors come from a dense
    solver at once; each one's sign is fixed (its largest component positive), so the projection
    does not depend on the solver's choice."""
    n, d = vectors.shape
    x = np.asarray(vectors, dtype=np.float32)
    mean = x.mean(axis=0, dtype=np.float64).astype(np.float32)
    cov = np.zeros((d, d), np.float64)
    for lo in range(0, n, 8192):
        block = x[lo : lo + 8192] - mean
        cov += block.T.astype(np.float64) @ block.astype(np.float64)
    keep = max(1, min(dims, d, n - 1))
    values, vecs = np.linalg.eigh(cov)
    basis = vecs[:, np.argsort(values)[::-1][:keep]]
    basis *= np.where(basis[np.abs(basis).argmax(axis=0), np.arange(keep)] < 0, -1.0, 1.0)
    out = np.empty((n, keep), np.float32)
    basis32 = basis.astype(np.float32)
    for lo in range(0, n, 8192):
        out[lo : lo + 8192] = (x[lo : lo + 8192] - mean) @ basis32
    return unit_rows(out)


def unit_rows(x: np.ndarray) -> np.ndarray:
    """``x`` with each row scaled to length 1 (a zero row stays zero)."""
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    return (x / np.where(norms > 0, norms, 1)).astype(np.float32)


def neighbours(points: np.ndarray, k: int = NEIGHBOURS) -> tuple[np.ndarray, np.ndarray]:
    """Each unit row's ``k`` nearest other rows by cosine, nearest first: (indexes n x k int32,
    distances 1 - cosine, float32). Exact: a block of rows' products with all at a time."""
    n = len(points)
    k = max(0, min(k, n - 1))
    idx = np.zeros((n, k), np.int32)
    dist = np.zeros((n, k), np.float32)
    if not k:
        return idx, dist
    rows = max(16, min(1024, PRODUCTS_AT_ONCE // n))
    for lo in range(0, n, rows):
        hi = min(n, lo + rows)
        sims = points[lo:hi] @ points.T
        sims[np.arange(hi - lo), np.arange(lo, hi)] = -np.inf  # not its own neighbour
        top = np.argpartition(sims, n - k, axis=1)[:, n - k :]
        top_sims = np.take_along_axis(sims, top, axis=1)
        # nearest first; equal similarities by index, so the order never depends on the partition
        order = np.lexsort((top, -top_sims), axis=1)
        idx[lo:hi] = np.take_along_axis(top, order, axis=1)
        dist[lo:hi] = np.clip(1.0 - np.take_along_axis(top_sims, order, axis=1), 0.0, 2.0)
    return idx, dist


def blended_neighbours(
    points: np.ndarray, words: sparse.csr_matrix | None, k: int = NEIGHBOURS
) -> tuple[np.ndarray, np.ndarray]:
    """Each row's ``k`` nearest by meaning and words at once, nearest first: (indexes, distances
    1 - blended similarity). The CANDIDATES nearest by ``points`` (unit rows) are ranked again by
    (1 - WORDS_WEIGHT) * their cosine + WORDS_WEIGHT * their ``words`` rows' cosine; without
    ``words``, the nearest by ``points`` alone."""
    if words is None:
        return neighbours(points, k)
    idx, dist = neighbours(points, max(k, CANDIDATES))
    k = min(k, idx.shape[1])
    score = (1.0 - WORDS_WEIGHT) * (1.0 - dist) + WORDS_WEIGHT * pair_cosines(words, idx)
    order = np.lexsort((idx, -score), axis=1)[:, :k]  # equal scores by index, as neighbours does
    best = np.take_along_axis(score, order, axis=1)
    return np.take_along_axis(idx, order, axis=1), np.clip(1.0 - best, 0.0, 2.0).astype(np.float32)


def memberships(dist: np.ndarray) -> np.ndarray:
    """UMAP's fuzzy membership of each neighbour (smooth_knn_dist): 1 for the nearest, falling
    off at each point's own scale so that a point's memberships sum to log2(k)."""
    n, k = dist.shape
    if not k:
        return np.zeros((n, 0), np.float32)
    d = dist.astype(np.float64)
    positive = np.where(d > 0, d, np.inf)
    rho = positive.min(axis=1)
    rho[~np.isfinite(rho)] = 0.0
    target = np.log2(k)
    lo = np.zeros(n)
    hi = np.full(n, np.inf)
    mid = np.ones(n)
    over = np.maximum(d - rho[:, None], 0.0)
    for _ in range(BISECTION_STEPS):
        total = np.exp(-over / mid[:, None]).sum(axis=1)
        high = total > target
        hi = np.where(high, mid, hi)
        lo = np.where(high, lo, mid)
        mid = np.where(np.isfinite(hi), (lo + hi) / 2, mid * 2)
    mean_all = float(d.mean()) if d.size else 0.0
    floor = np.where(rho > 0, 1e-3 * d.mean(axis=1), 1e-3 * mean_all)
    sigma = np.maximum(mid, np.maximum(floor, 1e-12))
    return np.exp(-over / sigma[:, None]).astype(np.float32)


def fuzzy_graph(idx: np.ndarray, weights: np.ndarray) -> sparse.csr_matrix:
    """The symmetric graph of the memberships: a + b - ab (UMAP's fuzzy union)."""
    n, k = idx.shape
    rows = np.repeat(np.arange(n, dtype=np.int32), k)
    a = sparse.csr_matrix((weights.ravel(), (rows, idx.ravel())), shape=(n, n), dtype=np.float32)
    t = a.T.tocsr()
    graph = (a + t - a.multiply(t)).tocsr()
    graph.eliminate_zeros()
    graph.sort_indices()
    return graph


def spectral_start(graph: sparse.csr_matrix, seed: int) -> np.ndarray | None:
    """The two smallest non-trivial eigenvectors of the graph's normalised Laplacian, or None
    when the graph falls apart into pieces or the solver does not converge (PCA starts then)."""
    from scipy.sparse import csgraph, linalg  # type: ignore[import-untyped]

    n = graph.shape[0]
    if n < 8:
        return None
    pieces, _ = csgraph.connected_components(graph, directed=False)
    if pieces > 1:
        return None
    degree = np.asarray(graph.sum(axis=1)).ravel()
    scale = sparse.diags(1.0 / np.sqrt(np.maximum(degree, 1e-12)))
    laplacian = sparse.identity(n, format="csr") - scale @ graph.astype(np.float64) @ scale
    start = np.random.default_rng(seed).standard_normal(n)
    try:
        values, vectors = linalg.eigsh(
            laplacian, k=3, which="SM", ncv=max(7, int(np.sqrt(n))), tol=1e-4, v0=start, maxiter=n * 5
        )
    except (linalg.ArpackError, linalg.ArpackNoConvergence, ValueError):
        return None
    out = vectors[:, np.argsort(values)[1:3]]
    out *= np.where(out[np.abs(out).argmax(axis=0), np.arange(2)] < 0, -1.0, 1.0)
    return np.asarray(out, np.float64)


def starting_points(graph: sparse.csr_matrix, reduced: np.ndarray, seed: int) -> np.ndarray:
    """Where the descent starts: the spectral layout (else the first two principal components),
    scaled to [0, 10] on each axis with a little noise, as UMAP starts."""
    n = graph.shape[0]
    start = spectral_start(graph, seed)
    if start is None:
        start = np.zeros((n, 2))
        start[:, : min(2, reduced.shape[1])] = reduced[:, :2]
    span = np.abs(start).max()
    start = start * (10.0 / span) if span > 0 else start
    start = start + np.random.default_rng(seed + 1).normal(scale=1e-4, size=start.shape)
    low, high = start.min(axis=0), start.max(axis=0)
    return (10.0 * (start - low) / np.where(high > low, high - low, 1.0)).astype(np.float32)


def optimise(
    graph: sparse.csr_matrix,
    start: np.ndarray,
    seed: int,
    epochs: int | None = None,
    progress: Progress | None = None,
) -> np.ndarray:
    """UMAP's descent from ``start``: each edge pulled together as often as its weight says
    (UMAP's epochs_per_sample), each pull with SMALL_NEGATIVES (LARGE_NEGATIVES beyond
    SMALL_LIBRARY points) random points pushed away from its head, the step shrinking linearly
    to 0. ``progress(epoch, epochs)`` after each epoch (it
    may raise to stop)."""
    n = graph.shape[0]
    y = start.astype(np.float32).copy()
    if epochs is None:
        epochs = SMALL_EPOCHS if n <= SMALL_LIBRARY else LARGE_EPOCHS
    coo = graph.tocoo()
    weights = coo.data.astype(np.float64)
    if not len(weights) or n < 2:
        return y
    keep = weights >= weights.max() / epochs
    heads, tails, weights = coo.row[keep].astype(np.int64), coo.col[keep].astype(np.int64), weights[keep]
    per_sample = weights.max() / weights
    next_pull = per_sample.copy()
    per_negative = per_sample / (SMALL_NEGATIVES if n <= SMALL_LIBRARY else LARGE_NEGATIVES)
    next_push = per_negative.copy()
    rng = np.random.default_rng(seed)
    a, b = np.float32(CURVE_A), np.float32(CURVE_B)
    for epoch in range(epochs):
        alpha = np.float32(1.0 - epoch / epochs)
        due = np.flatnonzero(next_pull <= epoch)
        h, t = heads[due], tails[due]
        diff = y[h] - y[t]
        d2 = np.einsum("ij,ij->i", diff, diff)
        with np.errstate(divide="ignore", invalid="ignore"):
            pull = np.where(d2 > 0, -2 * a * b * d2 ** (b - 1) / (a * d2**b + 1), 0).astype(np.float32)
        step = np.clip(pull[:, None] * diff, -CLIP, CLIP) * alpha
        move = np.zeros_like(y)
        for axis in range(2):
            move[:, axis] += np.bincount(h, step[:, axis], minlength=n)
            move[:, axis] -= np.bincount(t, step[:, axis], minlength=n)
        next_pull[due] += per_sample[due]
        counts = ((epoch - next_push[due]) / per_negative[due]).astype(np.int64)
        counts = np.maximum(counts, 0)
        next_push[due] += counts * per_negative[due]
        pushed = np.repeat(h, counts)
        others = rng.integers(0, n, len(pushed))
        diff = y[pushed] - y[others]
        d2 = np.einsum("ij,ij->i", diff, diff)
        push = np.where(d2 > 0, 2 * b / ((np.float32(0.001) + d2) * (a * d2**b + 1)), 0).astype(np.float32)
        step = np.clip(push[:, None] * diff, -CLIP, CLIP) * alpha
        for axis in range(2):
            move[:, axis] += np.bincount(pushed, step[:, axis], minlength=n)
        y += move
        if progress is not None:
            progress(epoch + 1, epochs)
    return y


def lay_out(
    vectors: np.ndarray,
    seed: int = 0,
    progress: Progress | None = None,
    words: sparse.csr_matrix | None = None,
) -> tuple[np.ndarray, sparse.csr_matrix, np.ndarray]:
    """The 2D points of ``vectors``' rows (float32 n x 2), the neighbour graph they were laid out
    from, and the reduced vectors (unit rows). ``words``: the rows' abstracts as words.py's
    unit rows, weighed beside the vectors in the graph. ``progress(done, total)`` over the work."""
    n = len(vectors)
    if n == 0:
        return np.zeros((0, 2), np.float32), sparse.csr_matrix((0, 0), dtype=np.float32), vectors
    reduced = reduce(vectors)
    if n == 1:
        return np.zeros((1, 2), np.float32), sparse.csr_matrix((1, 1), dtype=np.float32), reduced
    epochs = SMALL_EPOCHS if n <= SMALL_LIBRARY else LARGE_EPOCHS
    total = epochs + 10  # the neighbours count for a tenth of the work below SMALL_LIBRARY
    if progress is not None:
        progress(0, total)
    idx, dist = blended_neighbours(reduced, words)
    graph = fuzzy_graph(idx, memberships(dist))
    start = starting_points(graph, reduced, seed)
    if progress is not None:
        progress(10, total)
    tick = (lambda done, _all: progress(10 + done, total)) if progress is not None else None
    return optimise(graph, start, seed, epochs, tick), graph, reduced
