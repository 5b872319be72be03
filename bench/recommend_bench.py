"""Recommended for you, judged by a simulated reader on the real CVPR 2023 abstracts.

For each topic, a word of the real titles (``../shared/dev-corpus/titles.tsv``), and each of
TRIALS random draws: the reader stars 5 papers whose title has the word and reads 20 papers whose
title does not (read and left). Every method then ranks the papers neither starred nor read, and
precision@20 is the share of its first 20 whose title has the word. Methods, in the same run:

- ``recommend``: ``lib.discovery.recommend`` (logistic regression on the LSA vectors, desk as it ships);
- ``centroid``: the cosine to the mean vector of the starred papers (Rocchio, no negatives);
- ``related``: "more like this" of each starred paper (``lib.discovery.related``), fused by reciprocal rank;
- ``fts5_or``: SQLite FTS5's bm25 answer to the topic word;
- ``tfidf``: arxiv-sanity-lite's way, a linear model on TF-IDF: the same class-balanced L2
  logistic regression as ``recommend`` (stars against read-and-left and weak negatives), on
  sublinear TF-IDF rows of the abstracts (desk's LSA vocabulary) instead of the LSA vectors;
- ``tfidf+lsa``: both feature sets side by side in one model.

    python bench/recommend_bench.py [--trials 3] [--out bench/out/recommend.json]
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
from fts import Fts5, read_abstracts

TFIDF_L2 = 0.3  # 0.003-1.0 gave 0.62 on 20 topics x 5 trials (an in-process check); LSA's 0.65

HERE = Path(__file__).resolve().parent
CORPUS = Path(__file__).resolve().parents[1] / ".." / "shared" / "dev-corpus"
TOPICS = (
    "NeRF",
    "Point Cloud",
    "Diffusion",
    "Adversarial",
    "Face",
    "Distillation",
    "Few-Shot",
    "Tracking",
    "Super-Resolution",
    "Depth",
    "Pose",
    "Contrastive",
    # second round: eight more of the commonest topic words of the real titles
    "Segmentation",
    "Detection",
    "Video",
    "Transformer",
    "Domain",
    "Human",
    "Reconstruction",
    "Language",
)
STARS, LEFT, K = 5, 20, 20
RRF_K = 60


def has(topic: str, title: str) -> bool:
    """The topic word starts a word of the title (case-insensitive)."""
    return re.search(r"\b" + re.escape(topic.lower()), title.lower()) is not None


METHODS = ("recommend", "centroid", "related", "fts5_or", "tfidf", "tfidf+lsa")


def _tfidf(lib: object, data: object) -> tuple[object, object]:
    """Sparse TF-IDF rows of every paper (in the vectors' order), and the same beside its LSA vector."""
    from scipy.sparse import csr_matrix, hstack  # type: ignore[import-untyped]

    from desk.core.semantic import lsa

    ids = [int(i) for i in data.ids]  # type: ignore[attr-defined]
    texts = lib.discovery._abstracts(ids)  # type: ignore[attr-defined]
    docs = [lsa.terms(texts[i]) for i in ids]
    m = lsa.vocabulary(docs).weigh(docs)
    x = csr_matrix((m.data, m.indices, m.indptr), shape=m.shape)
    return x, hstack([x, csr_matrix(data.rows(slice(None)))]).tocsr()  # type: ignore[attr-defined]


def _linear(x: object, pos: list[int], neg: list[int]) -> np.ndarray:
    """Scores of every row by recommend.py's weighting of positives, negatives and a sample of the rest."""
    from scipy.optimize import minimize  # type: ignore[import-untyped]

    from desk.core.semantic import recommend

    n = x.shape[0]  # type: ignore[attr-defined]
    labelled = set(pos) | set(neg)
    rest = np.array([r for r in range(n) if r not in labelled], np.int64)
    if len(rest) > recommend.UNLABELED_SAMPLE:
        rest = np.random.default_rng(recommend.SEED).choice(rest, recommend.UNLABELED_SAMPLE, replace=False)
    rows = np.concatenate([pos, neg, rest]).astype(np.int64)
    y = np.concatenate([np.ones(len(pos)), np.zeros(len(neg) + len(rest))])
    w = np.concatenate([np.ones(len(pos) + len(neg)), np.full(len(rest), recommend.UNLABELED_WEIGHT)])
    w[len(pos) :] *= len(pos) / w[len(pos) :].sum()
    xt = x[rows]  # type: ignore[index]

    def loss(theta: np.ndarray) -> tuple[float, np.ndarray]:
        p = 1 / (1 + np.exp(-(xt @ theta[:-1] + theta[-1])))
        value = -(w * (y * np.log(p + 1e-12) + (1 - y) * np.log(1 - p + 1e-12))).sum()
        grad = xt.T @ (w * (p - y)) + TFIDF_L2 * theta[:-1]
        return value + 0.5 * TFIDF_L2 * float(theta[:-1] @ theta[:-1]), np.append(grad, (w * (p - y)).sum())

    theta = minimize(loss, np.zeros(xt.shape[1] + 1), jac=True, method="L-BFGS-B").x
    return np.asarray(x @ theta[:-1])  # type: ignore[operator]


MIXED = (3, 2)  # stars on the first topic of a pair, on the second


def _two_topics(
    lib: Any, title_of: dict[int, str], index_of: dict[int, int], id_of: dict[int, int], trials: int
) -> dict[str, float]:
    """A reader of two interests: 3 stars on one topic, 2 on another (each topic paired with
    another of TOPICS), 20 papers of neither read and left; precision@K of `recommend` and of
    "more like this" of the stars, a paper whose title has either word counting."""
    scores: dict[str, list[float]] = {"recommend": [], "related": []}
    for k, first in enumerate(TOPICS):
        second = TOPICS[(k * 7 + 3) % len(TOPICS)]

        def wanted(title: str, a: str = first, b: str = second) -> bool:
            return has(a, title) or has(b, title)

        for trial in range(trials):
            rng = random.Random(f"{first}+{second}/{trial}")
            on_first = [i for i, t in title_of.items() if has(first, t)]
            on_second = [i for i, t in title_of.items() if has(second, t) and not has(first, t)]
            starred = [id_of[i] for i in rng.sample(on_first, MIXED[0]) + rng.sample(on_second, MIXED[1])]
            left = [id_of[i] for i in rng.sample([i for i, t in title_of.items() if not wanted(t)], LEFT)]
            lib.set_starred(starred, True)
            lib.set_read(left, True)
            seen = set(starred) | set(left)

            def precision(ids: list[int], seen: set[int] = seen, wanted: Any = wanted) -> float:
                top = [i for i in ids if i not in seen][:K]
                return sum(wanted(title_of[index_of[i]]) for i in top) / K

            scores["recommend"].append(precision([r.paper.id for r in lib.discovery.recommend(limit=K).rows]))
            fused: dict[int, float] = {}
            for s in starred:
                for rank, r in enumerate(lib.discovery.related(s, limit=K + 40).rows):
                    fused[r.paper.id] = fused.get(r.paper.id, 0.0) + 1.0 / (RRF_K + rank + 1)
            scores["related"].append(precision(sorted(fused, key=lambda i: -fused[i])))
            lib.set_starred(starred, False)
            lib.set_read(left, False)
    return {m: float(np.mean(v)) for m, v in scores.items()}


def main(argv: list[str] | None = None) -> int:
    """Run every method on every topic and trial; print the table; write JSON."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--corpus", type=Path, default=CORPUS)
    p.add_argument("--trials", type=int, default=3)
    p.add_argument("--out", type=Path, default=HERE / "out" / "recommend.json")
    args = p.parse_args(argv)
    corpus_file = args.corpus / "cvpr2023.txt"
    if not corpus_file.is_file():
        print(f"skipped: no dev corpus at {args.corpus.resolve()} (it is never copied into the repository)")
        return 0
    from desk.core.library.facade import Library

    rows = [
        ln.split("\t") for ln in (args.corpus / "titles.tsv").read_text(encoding="utf-8").splitlines()[1:]
    ]
    title_of = {int(i): t.strip() for _, i, t in rows}
    results: dict[str, dict[str, list[float]]] = {}
    timing: dict[str, list[float]] = {"recommend": [], "related": []}
    with tempfile.TemporaryDirectory(prefix="desk-recommend-") as tmp, Library(Path(tmp) / "lib") as lib:
        lib.import_paths([corpus_file])
        started = time.perf_counter()
        lib.discovery.ensure_vectors()
        build_s = time.perf_counter() - started
        index_of = {pp.id: s.index for pp in lib.list_papers() for s in pp.sources}
        id_of = {v: k for k, v in index_of.items()}
        fts = Fts5(Path(tmp) / "fts.sqlite3")
        fts.create()
        fts.insert(read_abstracts(corpus_file))
        data = lib.vectors.current
        assert data is not None
        row_of = {int(i): r for r, i in enumerate(data.ids.tolist())}
        tfidf, both = _tfidf(lib, data)
        for topic in TOPICS:
            on = [i for i, t in title_of.items() if has(topic, t)]
            off = [i for i, t in title_of.items() if not has(topic, t)]
            per: dict[str, list[float]] = {m: [] for m in METHODS}
            for trial in range(args.trials):
                rng = random.Random(f"{topic}/{trial}")
                starred = [id_of[i] for i in rng.sample(on, STARS)]
                left = [id_of[i] for i in rng.sample(off, LEFT)]
                lib.set_starred(starred, True)
                lib.set_read(left, True)
                seen = set(starred) | set(left)

                def precision(ids: list[int], topic: str = topic, seen: set[int] = seen) -> float:
                    top = [i for i in ids if i not in seen][:K]
                    return sum(has(topic, title_of[index_of[i]]) for i in top) / K

                t0 = time.perf_counter()
                rec = [r.paper.id for r in lib.discovery.recommend(limit=K).rows]
                timing["recommend"].append((time.perf_counter() - t0) * 1000)
                per["recommend"].append(precision(rec))
                centre = data.rows(np.array([row_of[i] for i in starred], np.int64)).mean(axis=0)
                order = np.argsort(-data.products(centre))
                per["centroid"].append(precision([int(data.ids[r]) for r in order[: K + 40]]))
                fused: dict[int, float] = {}
                t0 = time.perf_counter()
                for s in starred:
                    for rank, r in enumerate(lib.discovery.related(s, limit=K + 40).rows):
                        fused[r.paper.id] = fused.get(r.paper.id, 0.0) + 1.0 / (RRF_K + rank + 1)
                timing["related"].append((time.perf_counter() - t0) * 1000 / STARS)
                per["related"].append(precision(sorted(fused, key=lambda i: -fused[i])))
                hits = fts.search(f'"{topic}"', limit=K + 40)
                per["fts5_or"].append(precision([id_of[h.rowid - 1] for h in hits]))
                pos, neg = [row_of[i] for i in starred], [row_of[i] for i in left]
                for name, feats in (("tfidf", tfidf), ("tfidf+lsa", both)):
                    scores = _linear(feats, pos, neg)
                    per[name].append(precision([int(data.ids[r]) for r in np.argsort(-scores)[: K + 40]]))
                lib.set_starred(starred, False)
                lib.set_read(left, False)
            results[topic] = per
        mixed = _two_topics(lib, title_of, index_of, id_of, args.trials)
        fts.close()
    methods = list(METHODS)
    print(
        f"## recommendations, precision@{K} (simulated reader: {STARS} stars, {LEFT} read and left, "
        f"{args.trials} trials per topic; {len(title_of)} CVPR 2023 abstracts)"
    )
    print("| topic | papers | " + " | ".join(methods) + " |")
    print("|---|---|" + "---|" * len(methods))
    means = {m: [] for m in methods}
    for topic, per in results.items():
        n = sum(has(topic, t) for t in title_of.values())
        cells = [f"{np.mean(per[m]):.2f}" for m in methods]
        for m in methods:
            means[m].append(float(np.mean(per[m])))
        print(f"| {topic} | {n} | " + " | ".join(cells) + " |")
    print("| **mean** | | " + " | ".join(f"**{np.mean(means[m]):.3f}**" for m in methods) + " |")
    print(
        f"stars on two topics ({MIXED[0]} + {MIXED[1]} of {len(TOPICS)} pairs, a paper of either counts): "
        + ", ".join(f"{m} {v:.3f}" for m, v in mixed.items())
    )
    print(
        f"vectors built in {build_s:.1f} s; recommend {np.median(timing['recommend']):.0f} ms, "
        f"related {np.median(timing['related']):.0f} ms per paper (median; shared machine)"
    )
    report = {
        "k": K,
        "stars": STARS,
        "left": LEFT,
        "trials": args.trials,
        "per_topic": {t: {m: float(np.mean(v)) for m, v in per.items()} for t, per in results.items()},
        "mean": {m: float(np.mean(v)) for m, v in means.items()},
        "two_topics": mixed,
        "vectors_build_s": build_s,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    print(f"JSON: {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
