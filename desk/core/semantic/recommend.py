"""Recommended for you: unread papers ranked by a classifier of what the user kept against what they left.

arxiv-sanity-lite trains a linear SVM per tag on TF-IDF vectors, the tagged papers against all
others. desk trains an L2-regularised logistic regression on the LSA vectors (dense, 192
dimensions, so a few Newton steps fit it in milliseconds): the papers starred or tagged are the
positives; the papers read and left (read, neither starred nor tagged) are the negatives; a
sample of the rest counts as weak negatives (most of a conference is not what one wants), as
arxiv-sanity counts every other paper. Classes are balanced, so five stars weigh as much as
two hundred papers left. The words the kept papers share (``profile.py``), when they share
some, are added to its ranking. bench/recommend_bench.py measures it with a simulated reader.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from desk.core.semantic import profile
from desk.core.semantic.store import Vectors

#: The shared words' BM25F: (ids ascending, scores), and how strongly the kept papers share them.
Words = tuple[np.ndarray, np.ndarray, float]

UNLABELED_SAMPLE = 2000  # papers neither kept nor left, drawn as weak negatives
UNLABELED_WEIGHT = 0.25  # one such paper against one read and left
L2 = 1.0  # ridge penalty on the weights (the vectors are unit length)
NEWTON_STEPS = 8
SEED = 7


#: Candidates scored at a time: one chunk's rows in float64 (~25 MB), never every candidate's at
#: once (a million candidates' rows in float64 were 1.5 GB of the window).
CHUNK_ROWS = 16_384


def rank(
    data: Vectors,
    positives: Sequence[int],
    negatives: Sequence[int],
    candidates: Sequence[int],
    limit: int,
    words: Words | None = None,
) -> list[tuple[int, float]]:
    """(id, score) of the best ``limit`` candidates, best first; [] without a positive."""
    if limit <= 0:
        return []
    scored = score(data, positives, negatives, candidates, words)
    if scored is None:
        return []
    ids, prob = scored
    if len(ids) > limit:  # the best ``limit`` (all those tied at the cut kept for the tie-break)
        cut = np.partition(prob, len(prob) - limit)[len(prob) - limit]
        keep = np.flatnonzero(prob >= cut)
        ids, prob = ids[keep], prob[keep]
    order = np.lexsort((ids, -prob))[:limit]
    return [(int(ids[k]), float(prob[k])) for k in order]


def score(
    data: Vectors,
    positives: Sequence[int],
    negatives: Sequence[int],
    candidates: Sequence[int],
    words: Words | None = None,
) -> tuple[np.ndarray, np.ndarray] | None:
    """(ids, scores in (0, 1)) of the candidates that have a vector, in the order given (repeats
    dropped): the classifier's probability, fused with ``words`` when given (``profile.fuse``);
    None without a positive that has a vector, or without such a candidate."""
    pos, _ = _rows(data, positives)
    if not len(pos):
        return None
    neg, _ = _rows(data, negatives)
    neg = neg[~np.isin(neg, pos)]
    cand, cand_ids = _rows(data, candidates)
    if not len(cand):
        return None
    unlabelled = np.ones(len(data.ids), bool)
    unlabelled[pos] = unlabelled[neg] = False
    rest = np.flatnonzero(unlabelled)
    if len(rest) > UNLABELED_SAMPLE:
        rest = np.random.default_rng(SEED).choice(rest, UNLABELED_SAMPLE, replace=False)
    w, b = fit_classifier(data, pos, neg, rest)
    prob = np.empty(len(cand))
    for lo in range(0, len(cand), CHUNK_ROWS):
        xc = data.rows(cand[lo : lo + CHUNK_ROWS]).astype(np.float64)
        prob[lo : lo + len(xc)] = 1.0 / (1.0 + np.exp(-(xc @ w + b)))
    if words is not None:
        prob = profile.fuse(cand_ids, prob, *words)
    return cand_ids, prob


def fit_classifier(
    data: Vectors, pos: Sequence[int] | np.ndarray, neg: Sequence[int] | np.ndarray, rest: np.ndarray
) -> tuple[np.ndarray, float]:
    """The classifier's weights and bias: rows ``pos`` kept, ``neg`` left, ``rest`` weak negatives."""
    x = data.rows(np.concatenate([pos, neg, rest]).astype(np.int64))
    y = np.concatenate([np.ones(len(pos)), np.zeros(len(neg) + len(rest))])
    weight = np.concatenate([np.ones(len(pos)), np.ones(len(neg)), np.full(len(rest), UNLABELED_WEIGHT)])
    negative_total = weight[len(pos) :].sum()
    if negative_total > 0:  # balanced classes
        weight[len(pos) :] *= len(pos) / negative_total
    return _logistic(x.astype(np.float64), y, weight)


def _rows(data: Vectors, ids: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
    """(rows, ids) of those of ``ids`` that have a vector, in the order given, repeats dropped."""
    wanted = np.fromiter(dict.fromkeys(ids), np.int64)
    if not len(wanted) or not len(data.ids):
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    at = np.minimum(np.searchsorted(data.ids, wanted), len(data.ids) - 1)
    found = data.ids[at] == wanted
    return at[found].astype(np.int64), wanted[found]


def _logistic(x: np.ndarray, y: np.ndarray, weight: np.ndarray) -> tuple[np.ndarray, float]:
    """Weighted, L2-regularised logistic regression by Newton's method (the bias unpenalised)."""
    n, d = x.shape
    xb = np.hstack([x, np.ones((n, 1))])
    theta = np.zeros(d + 1)
    penalty = np.full(d + 1, L2)
    penalty[-1] = 1e-6
    for _ in range(NEWTON_STEPS):
        p = 1.0 / (1.0 + np.exp(-(xb @ theta)))
        grad = xb.T @ (weight * (p - y)) + penalty * theta
        hess = (xb * (weight * p * (1 - p))[:, None]).T @ xb + np.diag(penalty)
        step = np.linalg.solve(hess, grad)
        theta -= step
        if float(np.abs(step).max()) < 1e-6:
            break
    return theta[:-1], float(theta[-1])
