"""Words and meaning in one ranking: the semantic cosine folded into BM25F's relevance.

A desk score is ``parts_matched * COORD_BONUS + relevance`` (ranking.py). The fusion keeps the
parts matched as they are, so a paper holding more of the query's words still comes first, and
reorders within each level by ``relevance + WEIGHT * best_relevance * cosine``: the cosine,
scaled to the query's best relevance, counts for up to WEIGHT of it. Papers whose meaning is
close but that hold none of the words (a paraphrase) join at level 0, after every lexical
match of a higher level; where a query's words match little they are what fills the page.

WEIGHT was chosen on the development set (bench/semantic_bench.py, CVPR 2023 abstracts): it
lifts recall@10 and nDCG@10 of researcher queries without lowering known-item MRR; a linear
mix of normalised scores and reciprocal rank fusion (RRF) both lowered MRR there.
"""

from __future__ import annotations

import numpy as np

from desk.core.search.ranking import COORD_BONUS

WEIGHT = 0.3
SEMANTIC_DEPTH = 50  # papers nearest in meaning considered beside the lexical candidates
MIN_COSINE = 0.05  # a paper this far in meaning never joins on meaning alone
RELATED_WEIGHT = 1.0  # "more like this": the cosine's share beside the key terms' normalised BM25F


def fuse(
    found: list[tuple[int, float]],
    cosine: np.ndarray,
    candidates: np.ndarray | None,
    weight: float = WEIGHT,
) -> tuple[list[tuple[int, float]], int]:
    """``found`` (docnum, score), best first, reordered with ``cosine`` (one per docnum).

    ``candidates``: docnums allowed to join on meaning alone (None: none may). Returns the new
    list and how many papers joined.
    """
    if not found and candidates is None:
        return found, 0
    level = {d: float(np.floor(s / COORD_BONUS)) for d, s in found}
    relevance = {d: s - level[d] * COORD_BONUS for d, s in found}
    best = max(relevance.values(), default=0.0) or 1.0
    scale = weight * best
    cap = COORD_BONUS * 0.999
    fused: dict[int, float] = {}
    for d, _ in found:
        bonus = scale * max(0.0, float(cosine[d]))
        fused[d] = level[d] * COORD_BONUS + min(cap, relevance[d] + bonus)
    joined = 0
    if candidates is not None and len(candidates):
        values = cosine[candidates]
        depth = min(SEMANTIC_DEPTH, len(candidates))
        nearest = candidates[np.argpartition(-values, depth - 1)[:depth]] if depth else candidates[:0]
        for d in nearest.tolist():
            if d not in fused and cosine[d] >= MIN_COSINE:
                fused[d] = min(cap, scale * float(cosine[d]))
                joined += 1
    order = sorted(fused.items(), key=lambda item: (-item[1], item[0]))
    return order, joined


def related_fusion(scores: np.ndarray, mask: np.ndarray, cosine: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """More like this: key terms' BM25F (scaled to its best) plus RELATED_WEIGHT × cosine, per docnum.

    Every paper with a positive cosine becomes a candidate, whether or not it holds a key term.
    """
    best = float(scores.max()) if len(scores) else 0.0
    lexical = scores / np.float32(best) if best > 0 else scores
    fused = (lexical + np.float32(RELATED_WEIGHT) * np.maximum(cosine, 0)).astype(np.float32)
    return fused, mask | (cosine > 0)
