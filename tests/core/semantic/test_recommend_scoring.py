"""The recommender's scoring, vectorised and chunked, ranks exactly as the per-paper version did.

``_reference_rank`` is the implementation before the change (Python dicts and lists, every
candidate's rows converted to float64 at once; the classifier's fit, unchanged, is shared): at a
million candidates that held 1.5 GB. The
new one must give the same ids and probabilities on any mix of positives, negatives and
candidates, including ids without a vector, repeats, and candidates that are also labelled.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from desk.core.library.sorting import IdScores, by_score
from desk.core.semantic import recommend
from desk.core.semantic.lsa import fit, terms
from desk.core.semantic.recommend import SEED, UNLABELED_SAMPLE, fit_classifier, rank
from desk.core.semantic.store import Vectors


def _reference_rank(
    data: Vectors, positives: Sequence[int], negatives: Sequence[int], candidates: Sequence[int], limit: int
) -> list[tuple[int, float]]:
    rows_of = {int(i): r for r, i in enumerate(data.ids.tolist())}
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
    w, b = fit_classifier(data, pos, neg, rest)
    xc = data.rows(np.array([rows_of[i] for i in cand], np.int64)).astype(np.float64)
    prob = 1.0 / (1.0 + np.exp(-(xc @ w + b)))
    order = np.lexsort((np.asarray(cand), -prob))[:limit]
    return [(cand[k], float(prob[k])) for k in order]


@pytest.fixture(scope="module")
def vectors(seeds_dir) -> Vectors:  # type: ignore[no-untyped-def]
    """Real LSA vectors of the seeds, repeated with noise to 6,000 papers (ids with gaps)."""
    texts = [p for f in sorted(seeds_dir.glob("*.txt")) for p in f.read_text("utf-8").split("\n\n")[1:]]
    model = fit([terms(t) for t in texts if t.strip()], k=24)
    base = model.encode([t for t in texts if t.strip()])
    rng = np.random.default_rng(3)
    rows = np.concatenate([base + rng.normal(0, 0.05, base.shape) for _ in range(64)])[:6000]
    rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    ids = np.arange(6000, dtype=np.int64) * 3 + 1  # ids 1, 4, 7, …: others have no vector
    return Vectors(ids, rows.astype(np.float32), model, len(ids))


@pytest.mark.parametrize("case", range(8))
def test_the_chunked_scoring_ranks_as_the_reference(
    vectors: Vectors, case: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(recommend, "CHUNK_ROWS", 257)  # many chunks, a short last one
    rng = np.random.default_rng(case)
    known = vectors.ids

    def some(n: int) -> list[int]:  # n papers with a vector (repeats likely) and three without
        return [int(i) for i in rng.choice(known, n)] + [int(i) * 3 for i in rng.integers(1, 9000, 3)]

    positives = some(int(rng.integers(1, 12)))
    negatives = some(int(rng.integers(0, 400))) + positives[:1]  # a repeat, and a kept paper also left
    candidates = some(int(rng.integers(1, 5000))) + negatives[:5]
    for limit in (1, 10, 50, 10_000_000):
        want = _reference_rank(vectors, positives, negatives, candidates, limit)
        got = rank(vectors, positives, negatives, candidates, limit)
        assert [i for i, _ in got] == [i for i, _ in want]
        assert np.allclose([p for _, p in got], [p for _, p in want], rtol=0, atol=1e-12)


def test_nothing_to_go_on_ranks_nothing(vectors: Vectors) -> None:
    assert rank(vectors, [], [4, 7], [10, 13], 10) == []
    assert rank(vectors, [2], [4], [10], 10) == []  # the only positive has no vector
    assert rank(vectors, [4], [], [5, 6], 10) == []  # no candidate has one
    assert rank(vectors, [4], [], [10], 0) == []


def test_the_recommended_sort_puts_scored_papers_first_best_first_ties_in_rank() -> None:
    ranked = np.array([50, 40, 30, 20, 10, 60], np.int64)
    scores = IdScores(np.array([10, 20, 40, 60], np.int64), np.array([0.9, 0.5, 0.5, 0.1]))
    # 10 best; 40 and 20 tie at 0.5 and keep their rank (40 before 20); 60 last of the scored;
    # the unscored (50, 30) follow in their rank.
    assert list(by_score(ranked, scores)) == [4, 1, 3, 5, 0, 2]
    assert list(by_score(ranked, IdScores.empty())) == [0, 1, 2, 3, 4, 5]


def test_candidates_are_converted_a_chunk_at_a_time(
    vectors: Vectors, monkeypatch: pytest.MonkeyPatch
) -> None:
    """However many candidates, no more than CHUNK_ROWS of their rows are made float at once."""
    monkeypatch.setattr(recommend, "CHUNK_ROWS", 500)
    converted: list[int] = []
    real_rows = Vectors.rows

    def rows(self: Vectors, at: np.ndarray) -> np.ndarray:
        out = real_rows(self, at)
        converted.append(len(out))
        return out

    monkeypatch.setattr(Vectors, "rows", rows)
    ids = [int(i) for i in vectors.ids]
    scored = rank(vectors, ids[:5], ids[5:40], ids[40:], 20)
    assert len(scored) == 20
    training, *candidates = converted
    assert training == 5 + 35 + UNLABELED_SAMPLE
    assert max(candidates) == 500 and sum(candidates) == len(ids) - 40
