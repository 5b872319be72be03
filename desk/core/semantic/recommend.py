"""Recommended for you: unread papers ranked by a classifier of what the user kept against what they left.

arxiv-sanity-lite trains a linear SVM per tag on TF-IDF vectors, the tagged papers against all
others. desk trains an L2-regularised logistic regression on the LSA vectors (dense, 192
dimensions, so a few Newton steps fit it in milliseconds): the papers starred or tagged are the
positives; the papers read and left (read, neither starred nor tagged) are the negatives; a
sample of the rest counts as weak negatives (most of a conference is not what one wants), as
arxiv-sanity counts every other paper. Classes are balanced, so five stars weigh as much as
two hundred papers left. bench/recommend_bench.py measures it with a simulated reader.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from desk.core.semantic.store import Vectors

UNLABELED_SAMPLE = 2000  # papers neither kept nor left, drawn as weak negatives
UNLABELED_WEIGHT = 0.25  # one such paper against one read and left
L2 = 1.0  # ridge penalty on the weights (the vectors are unit length)
NEWTON_STEPS = 8
SEED = 7


def rank(
    data: Vectors,
    positives: Sequence[int],
    negatives: Sequence[int],
    candidates: Sequence[int],
    limit: int,
) -> list[tuple[int, float]]:
    """(id, probability) of the best ``limit`` candidates, best first; [] without a positive."""
    rows_of = _rows(data)
    pos = [rows_of[i] for i in dict.fromkeys(positives) if i in rows_of]
    if not pos or limit <= 0:
        return []
    kept = set(pos)
    neg = [rows_of[i] for i in dict.fromkeys(negatives) if i in rows_of and rows_of[i] not in kept]
    cand = [i for i in dict.fromkeys(candidates) if i in rows_of]
    if not cand:
        return []
    labelled = set(pos) | set(neg)
    rest = np.array([r for r in range(len(data.ids)) if r not in labelled], np.int64)
    if len(rest) > UNLABELED_SAMPLE:
        rest = np.random.default_rng(SEED).choice(rest, UNLABELED_SAMPLE, replace=False)
    x = data.rows(np.concatenate([pos, neg, rest]).astype(np.int64))
    y = np.concatenate([np.ones(len(pos)), np.zeros(len(neg) + len(rest))])
    weight = np.concatenate([np.ones(len(pos)), np.ones(len(neg)), np.full(len(rest), UNLABELED_WEIGHT)])
    negative_total = weight[len(pos) :].sum()
    if negative_total > 0:  # balanced classes
        weight[len(pos) :] *= len(pos) / negative_total
    w, b = _logistic(x.astype(np.float64), y, weight)
    xc = data.rows(np.array([rows_of[i] for i in cand], np.int64)).astype(np.float64)
    prob = 1.0 / (1.0 + np.exp(-(xc @ w + b)))
    order = np.lexsort((np.asarray(cand), -prob))[:limit]
    return [(cand[k], float(prob[k])) for k in order]


def _rows(data: Vectors) -> dict[int, int]:
    return {int(i): r for r, i in enumerate(data.ids.tolist())}


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
