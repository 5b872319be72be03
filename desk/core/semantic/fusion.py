"""Words and meaning in one ranking: the semantic cosine folded into BM25F's relevance.

Lexical hits are ordered by relevance (ranking.py: BM25F plus a bonus for each query part a
paper matches, by the part's idf). The fusion reorders them by ``relevance + WEIGHT *
best_relevance * cosine``: the cosine, scaled to the query's best relevance, counts for up to
WEIGHT of it. Papers close in
meaning that hold none of the words (a paraphrase) join with 0 parts, after every lexical
match, when the words match fewer than a page of papers (JOIN_BELOW): they are what fills the
page. Past that, joined papers would sit below every match, where no page shows them, and only
the cosines of the lexical hits are computed: the product with every paper's vector is most of
a search's time in a large library.

WEIGHT was chosen on the development set (bench/semantic_rankers.py with relevance_dev.py): it
lifts recall@10 and nDCG@10 of researcher queries without lowering known-item MRR; a linear
mix of normalised scores and reciprocal rank fusion (RRF) both lowered MRR there.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

Found = tuple[int, int, float]  # (docnum, parts matched, relevance), as SearchIndex ranks them

WEIGHT = 0.3
SEMANTIC_DEPTH = 50  # papers nearest in meaning considered beside the lexical candidates
MIN_COSINE = 0.05  # a paper this far in meaning never joins on meaning alone
#: Nor one farther than JOIN_SHARE × the median cosine of the best lexical hits (up to
#: JOIN_REFERENCE of them): a word the library holds (a rare name, "quokka") matches papers at a
#: cosine well above the rest, whose own cosines are then chance, not a paraphrase.
JOIN_SHARE = 0.5
JOIN_REFERENCE = 10
JOIN_BELOW = 50  # papers join on meaning alone only when the words match fewer than this
#: With the sentence encoder's vectors (encoded.py): the cosine is LSA_SHARE × LSA's plus
#: ENCODER_SHARE × the encoder's, at ENCODED_WEIGHT. LSA_SHARE 0.3 keeps LSA's own weight (WEIGHT)
#: beside the encoder's: among 90,000 distractors, even papers, every set rose over 0.15 (researcher
#: 0.729 → 0.733, 4 words 0.761 → 0.766); on the 2,359 alone within 0.003 (bench/relevance_tune.py
#: --variant l0.3=fusion.LSA_SHARE=0.3 on an encoded library).
LSA_SHARE = 0.3
ENCODER_SHARE = 0.5
ENCODED_WEIGHT = 1.0
#: While the encoder's build is under way, it reorders a query's hits only when the first
#: ENCODED_HEAD of LSA's ranking all have their vector (the window encodes those on the spot:
#: encoded.SPOT_MAX). With a quarter of the vectors drawn at random it lowered every set among
#: 90,000 distractors below words + LSA: papers holding a vector climbed over those that did not
#: on the noise of their cosines (bench/encoder_dev.py --cover 25).
ENCODED_HEAD = 10
RELATED_WEIGHT = 1.0  # "more like this": the cosine's share beside the key terms' normalised BM25F
#: While the encoder's build is under way some papers have no vector of it yet. Their encoder
#: cosine is estimated from their LSA cosine by a line fitted, query by query, on the papers
#: that have both (at least FIT_MIN of them; else the mean of theirs): a paper waiting for its
#: vector is ranked as one of its LSA cosine would be, neither dropped below nor lifted above.
FIT_MIN = 8

#: With the sentence encoder's vectors, "more like this" takes RELATED_LSA_SHARE × LSA's cosine
#: plus RELATED_ENCODER_SHARE × the encoder's (chosen with bench/recommend_bench.py's "related").
RELATED_LSA_SHARE = 0.5
RELATED_ENCODER_SHARE = 1.0


def fuse(
    found: list[Found],
    cosines: np.ndarray,
    joiners: Sequence[tuple[int, float]] = (),
    weight: float | None = None,
) -> list[Found]:
    """``found``, best first, reordered with ``cosines`` (one per hit of ``found``), then ``joiners``.

    ``joiners``: (docnum, cosine) of papers that join on meaning alone (``nearest``). ``weight``:
    WEIGHT unless given (read at the call, so a benchmark may set it).
    """
    weight = WEIGHT if weight is None else weight
    best = max((r for _, _, r in found), default=0.0) or 1.0
    scale = weight * best
    fused: dict[int, tuple[int, float]] = {
        d: (parts, relevance + scale * max(0.0, c))
        for (d, parts, relevance), c in zip(found, cosines.tolist(), strict=True)
    }
    for d, c in joiners:
        if d not in fused:
            fused[d] = (0, scale * c)
    # Lexical matches first (any parts), by fused relevance; then the papers joined on meaning.
    order = sorted(fused.items(), key=lambda item: (item[1][0] == 0, -item[1][1], item[0]))
    return [(d, parts, relevance) for d, (parts, relevance) in order]


def mixed_cosines(
    lsa: np.ndarray | None, enc: np.ndarray | None, held: np.ndarray | None = None
) -> np.ndarray:
    """LSA_SHARE x LSA's cosine plus ENCODER_SHARE x the encoder's (each floored at 0), one a paper.

    ``held``: which papers have an encoder vector (None: all of them); for the others the
    encoder's cosine is estimated from LSA's (FIT_MIN). Without LSA's, a paper lacking a vector
    counts the mean of the others'."""
    n = len(lsa) if lsa is not None else len(enc) if enc is not None else 0
    out = np.zeros(n, np.float32)
    lsa_pos = np.maximum(lsa, 0).astype(np.float32) if lsa is not None else None
    if lsa_pos is not None:
        out += np.float32(LSA_SHARE) * lsa_pos
    if enc is None:
        return out
    enc_pos = np.maximum(enc, 0).astype(np.float32)
    if held is not None and not bool(np.all(held)):
        enc_pos = enc_pos.copy()
        enc_pos[~held] = _estimated(lsa_pos, enc_pos, held)
    out += np.float32(ENCODER_SHARE) * enc_pos
    return out


def _estimated(lsa: np.ndarray | None, enc: np.ndarray, held: np.ndarray) -> np.ndarray:
    """The encoder cosines of the papers not ``held``, from a line through (lsa, enc) of those held."""
    known = enc[held]
    missing = int(np.count_nonzero(~held))
    if not len(known):
        return np.zeros(missing, np.float32)
    mean = float(known.mean())
    if lsa is None or len(known) < FIT_MIN:
        return np.full(missing, mean, np.float32)
    x = lsa[held].astype(np.float64)
    spread = float(np.var(x))
    slope = float(np.mean((x - x.mean()) * (known - mean)) / spread) if spread > 1e-12 else 0.0
    slope = max(0.0, slope)  # a line falling with LSA's cosine is noise: the mean, then
    guess = mean + slope * (lsa[~held].astype(np.float64) - float(x.mean()))
    return np.clip(guess, 0.0, 1.0).astype(np.float32)


def nearest(cosine: np.ndarray, candidates: np.ndarray, found: Sequence[Found]) -> list[tuple[int, float]]:
    """The SEMANTIC_DEPTH ``candidates`` (docnums) nearest in meaning, by ``cosine`` (one per
    docnum), that are not in ``found`` and as near as join_floor allows: (docnum, cosine)."""
    if not len(candidates):
        return []
    depth = min(SEMANTIC_DEPTH, len(candidates))
    near = candidates[np.argpartition(-cosine[candidates], depth - 1)[:depth]]
    held = {d for d, _, _ in found}
    floor = join_floor(cosine, found)
    return [(d, float(cosine[d])) for d in near.tolist() if d not in held and cosine[d] >= floor]


def join_floor(cosine: np.ndarray, found: Sequence[Found]) -> float:
    """The least cosine a paper needs to join on meaning alone: MIN_COSINE, or JOIN_SHARE of the
    median cosine of the JOIN_REFERENCE best lexical hits when that is more."""
    reference = [float(cosine[d]) for d, _, _ in found[:JOIN_REFERENCE]]
    if not reference:
        return MIN_COSINE
    return max(MIN_COSINE, JOIN_SHARE * float(np.median(reference)))


def related_fusion(scores: np.ndarray, mask: np.ndarray, cosine: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """More like this: key terms' BM25F (scaled to its best) plus RELATED_WEIGHT × cosine, per docnum.

    Every paper with a positive cosine becomes a candidate, whether or not it holds a key term.
    """
    best = float(scores.max()) if len(scores) else 0.0
    lexical = scores / np.float32(best) if best > 0 else scores
    fused = (lexical + np.float32(RELATED_WEIGHT) * np.maximum(cosine, 0)).astype(np.float32)
    return fused, mask | (cosine > 0)
