"""Groups of papers on the neighbour graph: many small k-means groups, merged by modularity.

The layout draws the neighbour graph, so groups of that graph are what the eye sees as islands
on the map. Finding them in two steps keeps the work small at 100k papers: spherical k-means
(k-means++ from the seed) cuts the reduced vectors into up to MICRO groups of like papers; the
graph's weights between those groups are then merged greedily, the pair that raises the
graph's modularity most first (Clauset, Newman & Moore, 2004), on a dense matrix of at most
MICRO x MICRO. Of the partitions the merging passes through, the one with the highest modularity
whose count lies in the allowed range is kept. k-means reads the vectors only, while the graph
also weighs the abstracts' words (layout.py), so the papers are then moved one by one, as
Louvain's local moves do (Blondel et al., 2008): each to the cluster of its graph neighbours that
raises the modularity most, a random half of the papers that would gain at a time, until none
gains.
"""

from __future__ import annotations

import numpy as np
from scipy import sparse  # type: ignore[import-untyped]

MICRO = 400  # k-means groups at most (the merge's matrix is MICRO x MICRO)
PER_MICRO = 12  # papers a k-means group holds on average, below MICRO groups
FEWEST, MOST = 8, 80  # clusters of a library large enough for them
PAPERS_PER_CLUSTER = 10  # a small library has at most one cluster per this many papers
KMEANS_ROUNDS = 25
SETTLE_SWEEPS = 30  # rounds of moving papers to the cluster their edges favour, at most
SETTLE_ROWS = 8192  # papers whose gains are weighed at once
SETTLE_SHARE = 0.5  # of the papers that would gain, the share moved in a round (all at once oscillate)


def cluster_range(n: int) -> tuple[int, int]:
    """How few and how many clusters a library of ``n`` papers is cut into."""
    most = max(1, min(MOST, n // PAPERS_PER_CLUSTER))
    return min(FEWEST, most), most


def kmeans(points: np.ndarray, groups: int, seed: int) -> np.ndarray:
    """Spherical k-means of unit rows into ``groups`` (k-means++ start): each row's group."""
    n = len(points)
    groups = max(1, min(groups, n))
    rng = np.random.default_rng(seed)
    chosen = [int(rng.integers(n))]
    nearest = 1.0 - points @ points[chosen[0]]
    for _ in range(1, groups):
        weights = np.maximum(nearest, 0.0) ** 2
        total = float(weights.sum())
        pick = int(rng.choice(n, p=weights / total)) if total > 0 else int(rng.integers(n))
        chosen.append(pick)
        nearest = np.minimum(nearest, 1.0 - points @ points[pick])
    centres = points[chosen].copy()
    labels = np.full(n, -1, np.int64)
    for _ in range(KMEANS_ROUNDS):
        found = np.empty(n, np.int64)
        for lo in range(0, n, 8192):
            found[lo : lo + 8192] = np.argmax(points[lo : lo + 8192] @ centres.T, axis=1)
        if np.array_equal(found, labels):
            break
        labels = found
        sums = np.zeros_like(centres, dtype=np.float64)
        np.add.at(sums, labels, points)
        norms = np.linalg.norm(sums, axis=1, keepdims=True)
        empty = norms[:, 0] == 0
        centres = np.where(empty[:, None], centres, sums / np.where(norms > 0, norms, 1)).astype(np.float32)
    return labels


def _relabel(labels: np.ndarray) -> np.ndarray:
    """Labels 0..k-1, the largest group 0 (ties: the group whose first paper comes first)."""
    values, first, counts = np.unique(labels, return_index=True, return_counts=True)
    order = np.lexsort((first, -counts))
    mapping = np.empty(values.max() + 1 if len(values) else 0, np.int64)
    mapping[values[order]] = np.arange(len(values))
    return mapping[labels]


def merge_by_modularity(graph: sparse.csr_matrix, groups: np.ndarray, fewest: int, most: int) -> np.ndarray:
    """``groups`` (labels 0..m-1) merged greedily by modularity; the labels of the partition
    with the highest modularity holding ``fewest`` to ``most`` clusters (or as few as the graph
    allows, when its pieces are more than ``most``)."""
    m = int(groups.max()) + 1 if len(groups) else 0
    if m <= fewest:
        return groups
    n = len(groups)
    member = sparse.csr_matrix((np.ones(n), (groups, np.arange(n))), shape=(m, n))
    e = np.asarray((member @ graph @ member.T).todense(), np.float64)
    total = e.sum()
    if total <= 0:
        return groups
    e /= total
    a = e.sum(axis=1)
    alive = np.ones(m, bool)
    quality = float(np.trace(e) - a @ a)
    merges: list[tuple[int, int]] = []
    best: tuple[float, int] | None = (quality, 0) if m <= most else None
    count = m
    while count > fewest:
        gain = 2 * (e - np.outer(a, a))
        usable = (e > 0) & alive[:, None] & alive[None, :]
        np.fill_diagonal(usable, False)
        if not usable.any():
            break  # the rest are pieces no edge joins
        gain[~usable] = -np.inf
        flat = int(np.argmax(gain))
        i, j = divmod(flat, m)
        i, j = min(i, j), max(i, j)
        quality += float(gain[i, j])
        e[i, :] += e[j, :]
        e[:, i] += e[:, j]
        e[j, :] = 0
        e[:, j] = 0
        a[i] += a[j]
        a[j] = 0
        alive[j] = False
        merges.append((i, j))
        count -= 1
        if count <= most and (best is None or quality > best[0]):
            best = (quality, len(merges))
    steps = best[1] if best is not None else len(merges)
    target = np.arange(m)
    for i, j in merges[:steps]:
        target[target == j] = i
    return target[groups]


def settle(graph: sparse.csr_matrix, labels: np.ndarray, fewest: int, seed: int) -> np.ndarray:
    """``labels`` with papers moved to the neighbouring cluster that raises the graph's
    modularity most, SETTLE_SHARE of those that would gain in each of at most SETTLE_SWEEPS
    rounds; where a round would leave fewer than ``fewest`` clusters, the papers of those it
    would empty stay."""
    n = len(labels)
    k = int(labels.max()) + 1 if n else 0
    weights = graph.astype(np.float64).tocsr()
    total = float(weights.sum())
    if k < 2 or total <= 0:
        return labels
    degree = np.asarray(weights.sum(axis=1)).ravel()
    rng = np.random.default_rng(seed)
    labels = labels.copy()
    best = np.empty(n, np.int64)
    best_gain = np.empty(n, np.float64)
    for _ in range(SETTLE_SWEEPS):
        member = sparse.csr_matrix((np.ones(n), (np.arange(n), labels)), shape=(n, k))
        held = np.bincount(labels, degree, minlength=k)
        for lo in range(0, n, SETTLE_ROWS):  # n x k dense at once would be 64 MB at 100k papers
            hi = min(n, lo + SETTLE_ROWS)
            rows, own = np.arange(hi - lo), labels[lo:hi]
            links = (weights[lo:hi] @ member).toarray()  # each paper's edge weight into each cluster
            d = degree[lo:hi, None]
            # the modularity gained (times total / 2) by moving a paper from its cluster to another
            gain = links - links[rows, own][:, None] - d * (held[None, :] - held[own][:, None] + d) / total
            gain[rows, own] = 0.0
            best[lo:hi] = np.argmax(gain, axis=1)
            best_gain[lo:hi] = gain[rows, best[lo:hi]]
        move = (best_gain > 1e-12) & (rng.random(n) < SETTLE_SHARE)
        if not move.any():
            break
        moved = labels.copy()
        moved[move] = best[move]
        if len(np.unique(moved)) < fewest:  # the clusters this round would empty keep their papers
            emptied = np.bincount(moved, minlength=k) == 0
            move &= ~emptied[labels]
            if not move.any():
                break
            moved = labels.copy()
            moved[move] = best[move]
        labels = moved
    return labels


def find_clusters(graph: sparse.csr_matrix, points: np.ndarray, seed: int = 0) -> np.ndarray:
    """Each paper's cluster (0 the largest), from the neighbour ``graph`` of the unit rows ``points``."""
    n = len(points)
    if n == 0:
        return np.zeros(0, np.int64)
    fewest, most = cluster_range(n)
    groups = kmeans(points, min(MICRO, max(most, n // PER_MICRO)), seed)
    merged = _relabel(merge_by_modularity(graph, _relabel(groups), fewest, most))
    return _relabel(settle(graph, merged, fewest, seed))
