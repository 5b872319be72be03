"""Near-duplicate detection: pair precision/recall on the labelled set, and candidate time at scale.

Prints, and writes to ``bench/out/dedup.json``:

* the labelled set (``dedup_set.py``): pair precision and recall of the offered groups at the
  default threshold, the direct link found per variant kind, the verifier's score per kind, and
  a threshold sweep (the evidence for ``DEFAULT_THRESHOLD``);
* speed on synthetic abstracts (a Zipf vocabulary of 30k made-up words plus English function
  words, 150-250 words, 3 % planted near-duplicates) at each ``--sizes``: indexing (= rebuild at
  open), finding and verifying candidates, one incremental add, pickling, memory, growth;
* the same on template-heavy abstracts (``corpus.py``: every abstract follows the same moves),
  where any offered pair that was not planted is a false one;
* ``datasketch.MinHashLSH`` on the same signatures and bands, for the memory and time it takes.

Usage: ``python bench/dedup_bench.py [--sizes 10000 50000] [--synthetic 300] [--no-datasketch]``
"""

from __future__ import annotations

import argparse
import gc
import json
import math
import os
import pickle
import random
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import dedup_set as ds

from desk.core.dedup import DEFAULT_THRESHOLD, Candidate, NearDuplicateIndex, similarity
from desk.core.dedup.detector import BAND_ROWS, DEFAULT_NUM_PERM
from desk.core.dedup.shingles import normalize, shingle
from desk.core.dedup.signature import signatures

OUT = Path(__file__).resolve().parent / "out" / "dedup.json"
_FUNCTION = """the of and to a in for is on that by with as we are this from be an at which our it can or
not these their its has have both such than more into also while when over under between through without
each two across only however most how all new other show"""
FUNCTION_WORDS = _FUNCTION.split()


def rss_mb() -> float:
    """Resident memory now (Linux), in MB."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def pairs_of(groups: list[Candidate]) -> set[tuple[int, int]]:
    return {(a, b) for g in groups for i, a in enumerate(g.ids) for b in g.ids[i + 1 :]}


# -- the labelled set --------------------------------------------------------------------------


def labelled(seed: int, synthetic: int) -> dict[str, Any]:
    data = ds.build(seed=seed, synthetic=synthetic)
    texts = data.texts()
    index = NearDuplicateIndex()
    started = time.perf_counter()
    index.add_many(texts.items())
    found = pairs_of(index.groups())
    took = time.perf_counter() - started
    truth = data.true_pairs()
    hit = len(found & truth)
    false = sorted(found - truth)
    kinds: dict[str, list[float]] = defaultdict(list)
    linked: dict[str, list[bool]] = defaultdict(list)
    for a, b, kind in data.positives:
        kinds[kind].append(similarity(texts[a], texts[b]))
        linked[kind].append(b in dict(index.candidates_for(a)))
    negative: dict[str, list[float]] = defaultdict(list)
    for a, b, kind in data.negatives:
        negative[kind].append(similarity(texts[a], texts[b]))
    pos = np.array([v for vs in kinds.values() for v in vs])
    neg = np.array([v for vs in negative.values() for v in vs])
    sweep = [
        {"threshold": t, "recall": round(float(np.mean(pos >= t)), 4), "false": int(np.sum(neg >= t))}
        for t in np.round(np.arange(0.30, 0.91, 0.05), 2).tolist()
    ]
    return {
        "texts": len(texts),
        "papers": len(set(data.paper.values())),
        "true_pairs": len(truth),
        "offered_pairs": len(found),
        "pair_precision": hit / len(found) if found else 1.0,
        "pair_recall": hit / len(truth),
        "false_pairs": [[texts[a][:80], texts[b][:80]] for a, b in false[:5]],
        "seconds": round(took, 3),
        "positives": {
            k: {
                "pairs": len(v),
                "linked": round(float(np.mean(linked[k])), 4),
                "min": round(min(v), 3),
                "p5": round(float(np.quantile(v, 0.05)), 3),
                "median": round(float(np.median(v)), 3),
            }
            for k, v in kinds.items()
        },
        "negatives": {
            k: {
                "pairs": len(v),
                "max": round(max(v), 3),
                "p95": round(float(np.quantile(v, 0.95)), 3),
                "median": round(float(np.median(v)), 3),
            }
            for k, v in negative.items()
        },
        "hardest_negative": round(float(neg.max()), 3),
        "sweep": sweep,
    }


# -- synthetic corpora -------------------------------------------------------------------------


class ZipfText:
    """Made-up words with Zipf frequencies, mixed with English function words."""

    def __init__(self, seed: int, vocabulary: int = 30_000) -> None:
        rng = random.Random(seed)
        syllables = [c + v for c in "bcdfghklmnprstvz" for v in "aeiou"] + ["qu", "th", "ch", "sh", "ex"]
        words: dict[str, None] = {}
        while len(words) < vocabulary:
            words["".join(rng.choice(syllables) for _ in range(rng.randint(2, 4)))] = None
        self.words = np.array(list(words))
        weights = 1.0 / (np.arange(vocabulary) + 2.7) ** 1.07
        self.cum = np.cumsum(weights / weights.sum())
        self.function = np.array(FUNCTION_WORDS)

    def sentence(self, rng: random.Random, length: int) -> str:
        gen = np.random.default_rng(rng.getrandbits(64))
        content = self.words[np.minimum(np.searchsorted(self.cum, gen.random(length)), len(self.words) - 1)]
        function = self.function[gen.integers(0, len(self.function), length)]
        words = np.where(gen.random(length) < 0.4, function, content).tolist()
        return " ".join(words).capitalize() + "."

    def abstract(self, rng: random.Random) -> str:
        target, out, count = rng.randint(150, 250), [], 0
        while count < target:
            n = rng.randint(10, 30)
            out.append(self.sentence(rng, n))
            count += n
        return " ".join(out)


EDITS: list[tuple[str, Callable[[str, random.Random, ds.SentenceMaker], str]]] = [
    ("sentence-changed", ds.change_sentence),
    ("sentence-added", ds.add_sentence),
    ("truncated", lambda t, r, _c: ds.truncate(t, r)),
    ("typo-fixed", lambda t, r, _c: ds.typo(t, r)),
    ("word-dropped", lambda t, r, _c: ds.drop_word(t, r)),
    ("whitespace-punct", lambda t, r, _c: ds.restyle(t, r)),
]


def corpus(
    size: int, kind: str, seed: int = 3, planted: float = 0.03
) -> tuple[list[str], set[tuple[int, int]]]:
    """``size`` abstracts, ``planted`` of them edited copies of others; returns texts and the true pairs."""
    rng = random.Random(seed)
    copies = int(size * planted)
    if kind == "zipf":
        maker: ds.SentenceMaker = ZipfText(seed)
        texts = [maker.abstract(rng) for _ in range(size - copies)]  # type: ignore[attr-defined]
    else:
        import corpus as template_corpus

        gen = template_corpus.Generator(seed)
        texts = [gen.abstract(i).text for i in range(size - copies)]
        maker = ds.WordChain(texts[:2000])
    copies_of: dict[int, list[int]] = defaultdict(list)
    for k in range(copies):
        source = rng.randrange(size - copies)
        _, edit = EDITS[k % len(EDITS)]
        copies_of[source].append(len(texts))
        texts.append(edit(texts[source], rng, maker))
    pairs = set()
    for source, made in copies_of.items():  # copies of one source are duplicates of each other too
        group = [source, *made]
        pairs |= {(a, b) for i, a in enumerate(group) for b in group[i + 1 :]}
    return texts, pairs


def speed(size: int, kind: str) -> dict[str, Any]:
    texts, planted = corpus(size, kind)
    gc.collect()
    before = rss_mb()
    index = NearDuplicateIndex()
    cpu = time.process_time()
    started = time.perf_counter()
    index.add_many(enumerate(texts))
    indexed = time.perf_counter()
    groups = index.groups()
    done = time.perf_counter()
    cpu = time.process_time() - cpu
    memory = rss_mb() - before
    found = pairs_of(groups)
    took_one = []
    for k in range(3):  # the first add after a bulk one grows the arrays; the median is the usual cost
        started_one = time.perf_counter()
        index.add(size + k, ds.typo(texts[k], random.Random(k)))
        found_one = dict(index.candidates_for(size + k))
        took_one.append(time.perf_counter() - started_one)
        assert k in found_one
    blob = pickle.dumps(index, protocol=pickle.HIGHEST_PROTOCOL)
    started_load = time.perf_counter()
    pickle.loads(blob)
    load_took = time.perf_counter() - started_load
    return {
        "abstracts": size,
        "index_s": round(indexed - started, 2),
        "candidates_s": round(done - indexed, 2),
        "total_s": round(done - started, 2),
        "total_cpu_s": round(cpu, 2),
        "candidate_pairs_verified": index.checks,
        "groups": len(groups),
        "planted_pairs": len(planted),
        "planted_found": round(len(found & planted) / len(planted), 4),
        "unplanted_pairs_offered": len(found - planted),
        "incremental_add_and_candidates_ms": round(sorted(took_one)[1] * 1000, 1),
        "pickle_mb": round(len(blob) / 2**20, 1),
        "unpickle_s": round(load_took, 2),
        "rss_growth_mb": round(memory, 1),
    }


def datasketch_lsh(size: int) -> dict[str, Any]:
    """datasketch's MinHashLSH on the same signatures and banding: insert all, query all."""
    from datasketch import LeanMinHash, MinHashLSH

    texts, _ = corpus(size, "zipf")
    sigs = signatures(shingle([normalize(t) for t in texts]).sets, DEFAULT_NUM_PERM)
    bands = DEFAULT_NUM_PERM // BAND_ROWS
    gc.collect()
    before = rss_mb()
    started = time.perf_counter()
    lsh = MinHashLSH(num_perm=DEFAULT_NUM_PERM, params=(bands, BAND_ROWS))
    sketches = [LeanMinHash(seed=1, hashvalues=s, scheme="affine32") for s in sigs]
    with lsh.insertion_session() as session:
        for i, m in enumerate(sketches):
            session.insert(i, m, check_duplication=False)
    inserted = time.perf_counter()
    pairs = sum(len(lsh.query(m)) - 1 for m in sketches) // 2
    queried = time.perf_counter()
    memory = rss_mb() - before
    del lsh, sketches
    return {
        "abstracts": size,
        "insert_s": round(inserted - started, 2),
        "query_all_s": round(queried - inserted, 2),
        "candidate_pairs": pairs,
        "rss_growth_mb": round(memory, 1),
    }


def growth(rows: list[dict[str, Any]], key: str) -> float | None:
    """The exponent e in time ~ size^e between the smallest and largest size."""
    a, b = rows[0], rows[-1]
    if len(rows) < 2 or a[key] <= 0:
        return None
    return round(math.log(b[key] / a[key]) / math.log(b["abstracts"] / a["abstracts"]), 2)


# -- the real-abstract set (bench/dedup_real.py) -------------------------------------------------


def _offered(texts: dict[int, str], docs: list[int]) -> tuple[set[tuple[int, int]], dict[int, Candidate]]:
    index = NearDuplicateIndex()
    index.add_many((d, texts[d]) for d in docs)
    groups = index.groups()
    return pairs_of(groups), {i: g for g in groups for i in g.ids}


def real(seed: int, bases: int) -> dict[str, Any]:
    """Recall, precision and the hardest negative per kind on the set made from real abstracts.

    Each kind of copy is indexed on its own with the whole background (the corpus, the look-alikes),
    so a copy is not found through a sibling copy of another kind; the look-alikes are measured on
    the background alone, and everything together gives the overall pair precision.
    """
    import dedup_real as dr

    data = dr.build(seed=seed, bases=bases)
    texts = {doc: ds.readable(raw) for doc, raw in data.raw.items()}
    score = _scorer()
    background = [d for d, k in data.kind.items() if k not in dr.POSITIVE_KINDS]
    started = time.perf_counter()
    everything, _ = _offered(texts, list(texts))
    took = time.perf_counter() - started
    ambiguous = [(a, b) for a, b, k in data.negatives if k.endswith("ambiguous")]
    unknowable = {(min(p), max(p)) for p in ambiguous}
    everything -= unknowable
    rows: dict[str, dict[str, Any]] = {}
    for kind in (*dr.POSITIVE_KINDS, "look-alikes"):
        made = [d for d, k in data.kind.items() if k == kind]
        offered, group_of = _offered(texts, background + made)
        offered -= unknowable
        true = {p for p in offered if data.paper[p[0]] == data.paper[p[1]]}
        if kind in dr.POSITIVE_KINDS:
            pos = [(a, b) for a, b, k in data.positives if k == kind]
            neg = [(a, b) for a, b, k in data.negatives if set(made) & {a, b} and not k.endswith("ambiguous")]
            touching = {p for p in offered if set(made) & set(p)}
            rows[kind] = _kind_row(data, texts, score, pos, neg, touching, true, group_of)
            continue
        for neg_kind in dr.NEGATIVE_KINDS:
            neg = [(a, b) for a, b, k in data.negatives if k == neg_kind]
            docs = {d for pair in neg for d in pair}
            touching = {p for p in offered if docs & set(p)}
            rows[neg_kind] = _kind_row(data, texts, score, [], neg, touching, true, group_of)
        rows["corpus"] = _kind_row(data, texts, score, [], [], offered, true, group_of)
    true_all = {p for p in everything if data.paper[p[0]] == data.paper[p[1]]}
    return {
        "texts": len(texts),
        "bases": bases,
        "offered_pairs": len(everything),
        "false_pairs": len(everything - true_all),
        "pair_precision": round(len(true_all) / len(everything), 4) if everything else 1.0,
        "ambiguous_left_out": len(ambiguous),
        "seconds": round(took, 2),
        "kinds": rows,
    }


def _kind_row(
    data: Any,
    texts: dict[int, str],
    score: Callable[[str, str], float],
    pos: list[tuple[int, int]],
    neg: list[tuple[int, int]],
    touching: set[tuple[int, int]],
    true: set[tuple[int, int]],
    group_of: dict[int, Candidate],
) -> dict[str, Any]:
    found = sum(a in group_of and b in group_of[a].ids for a, b in pos)
    neg_scores = [score(texts[a], texts[b]) for a, b in neg]
    pos_scores = [score(texts[a], texts[b]) for a, b in pos]
    false = sorted(touching - true)
    return {
        "pairs": len(pos) or len(neg) or len(touching),
        "recall": round(found / len(pos), 4) if pos else None,
        "precision": round(1 - len(false) / len(touching), 4) if touching else 1.0,
        "false_pairs": len(false),
        "weakest_positive": round(min(pos_scores), 3) if pos_scores else None,
        "hardest_negative": round(max(neg_scores), 3) if neg_scores else None,
        "false_examples": [[texts[a][:70], texts[b][:70]] for a, b in false[:3]],
    }


def _scorer() -> Callable[[str, str], float]:
    """The library's pair score (what the offer threshold is compared with)."""
    return similarity


def print_real(r: dict[str, Any]) -> None:
    print(
        f"real set: {r['texts']} texts ({r['bases']} bases with variants, the rest of the corpus as "
        f"background); {r['offered_pairs']} pairs offered, {r['false_pairs']} false, "
        f"pair precision {r['pair_precision']:.4f} ({r['seconds']} s); "
        f"{r['ambiguous_left_out']} copies wholly inside a shared opening left out (either paper's)"
    )
    print("  kind                   pairs  recall  precision  false  weakest+  hardest-")
    for kind, k in r["kinds"].items():
        recall = "   -  " if k["recall"] is None else f"{k['recall']:.3f} "
        weakest = "   -  " if k["weakest_positive"] is None else f"{k['weakest_positive']:.3f} "
        hardest = "   -  " if k["hardest_negative"] is None else f"{k['hardest_negative']:.3f}"
        print(
            f"  {kind:22s} {k['pairs']:5d}  {recall}  {k['precision']:.3f}     {k['false_pairs']:4d}   "
            f"{weakest}   {hardest}"
        )


# -- speed on real sentences (realcorpus.py), copies of the new kinds planted ---------------------


def _shuffled(gen: Any, index: int, seed: int) -> str:
    """An abstract whose every sentence comes from another real abstract, at the same relative
    place (no skeleton: two such abstracts share a sentence by chance only)."""
    rng = random.Random(seed * 1_000_003 + index)
    pool = gen.text.abstracts
    k = len(pool[rng.randrange(len(pool))])
    out = []
    for j in range(k):
        other = pool[rng.randrange(len(pool))]
        out.append(other[min(len(other) - 1, round(j / max(1, k - 1) * (len(other) - 1)))])
    return " ".join(out)


def real_corpus(
    size: int, seed: int = 7, planted: float = 0.03, mode: str = "skeleton"
) -> tuple[list[str], set[tuple[int, int]]]:
    """``size`` abstracts recombined from the dev corpus's sentences, ``planted`` of them a
    truncated (30-50 %, head, tail or middle), revised, reordered or boilerplate copy of another.

    ``mode`` "skeleton": ``realcorpus.py``'s abstracts (each keeps half the sentences of a real
    one in place: at 100k, ~42 abstracts share one skeleton, and pairs of them share most of their
    sentences); "shuffled": every sentence drawn from another abstract (see ``_shuffled``)."""
    import dedup_real as dr
    import realcorpus

    rng = random.Random(seed)
    gen = realcorpus.RealGenerator(seed, skeleton=mode == "skeleton")
    copies = int(size * planted)
    if mode == "skeleton":
        texts = [gen.abstract(i) for i in range(size - copies)]
    else:
        texts = [_shuffled(gen, i, seed) for i in range(size - copies)]
    pool = [s for t in texts[:3000] for s in dr.sentences(t) if len(s.split()) >= 8]
    pairs = set()
    for k in range(copies):
        source = rng.randrange(size - copies)
        text = texts[source]
        which = k % 6
        if which < 3:
            copy = dr.truncate(text, rng.choice(dr.TRUNCATION_SHARES), ("head", "tail", "middle")[which], rng)
        elif which == 3:
            copy = dr.revise(text, rng.choice(dr.REWRITTEN), rng, pool)
        elif which == 4:
            copy = dr.reorder(text, rng)
        else:
            copy = dr.add_boilerplate(text, rng)
        pairs.add((source, len(texts)))
        texts.append(copy)
    return texts, pairs


def real_speed(size: int, mode: str = "skeleton") -> dict[str, Any]:
    """Indexing and all candidates at ``size`` (real sentences), then 100 new papers alone."""
    texts, planted = real_corpus(size, mode=mode)
    readable = [ds.readable(t) for t in texts]
    gc.collect()
    before = rss_mb()
    index = NearDuplicateIndex()
    cpu = time.process_time()
    started = time.perf_counter()
    index.add_many(enumerate(readable))
    indexed = time.perf_counter()
    cpu_indexed = time.process_time()
    groups = index.groups()
    done = time.perf_counter()
    cpu_candidates = time.process_time() - cpu_indexed
    cpu = time.process_time() - cpu
    memory = rss_mb() - before
    group_of = {i: g for g in groups for i in g.ids}
    found = sum(a in group_of and b in group_of[a].ids for a, b in planted)
    offered = pairs_of(groups)
    truth = {(min(a, b), max(a, b)) for a, b in planted}
    by_source: dict[int, list[int]] = defaultdict(list)
    for a, b in planted:
        by_source[a].append(b)
    for copies in by_source.values():  # copies of one source are one paper too
        truth |= {(min(x, y), max(x, y)) for i, x in enumerate(copies) for y in copies[i + 1 :]}
    rng = random.Random(5)
    new = [(size + k, ds.readable(ds.typo(texts[rng.randrange(size)], rng))) for k in range(100)]
    started_new = time.perf_counter()
    index.add_many(new)
    for paper_id, _ in new:
        index.candidates_for(paper_id)
    took_new = time.perf_counter() - started_new
    return {
        "abstracts": size,
        "corpus": mode,
        "index_s": round(indexed - started, 2),
        "candidates_s": round(done - indexed, 2),
        "candidates_cpu_s": round(cpu_candidates, 2),
        "total_s": round(done - started, 2),
        "total_cpu_s": round(cpu, 2),
        "candidate_pairs_verified": index.checks,
        "groups": len(groups),
        "planted_pairs": len(planted),
        "planted_found": round(found / len(planted), 4),
        "unplanted_pairs_offered": len(offered - truth),
        "add_100_new_and_candidates_s": round(took_new, 2),
        "rss_growth_mb": round(memory, 1),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 50_000])
    parser.add_argument("--synthetic", type=int, default=300, help="chain-made papers added to the seeds")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-datasketch", action="store_true", help="skip the MinHashLSH comparison")
    parser.add_argument("--bases", type=int, default=60, help="real abstracts given a variant of each kind")
    parser.add_argument("--real-only", action="store_true", help="only the set made from real abstracts")
    parser.add_argument(
        "--real-sizes",
        type=int,
        nargs="*",
        default=[],
        help="speed on recombined real sentences at these sizes",
    )
    parser.add_argument(
        "--real-corpus", nargs="+", choices=["skeleton", "shuffled"], default=["skeleton", "shuffled"]
    )
    parser.add_argument("--out", type=Path, default=OUT, help="where the JSON report goes")
    args = parser.parse_args(argv)
    report: dict[str, Any] = {"threshold": DEFAULT_THRESHOLD, "cores": os.cpu_count()}
    import dedup_real as dr

    if dr.CORPUS.exists():
        report["real"] = real(args.seed, args.bases)
        print_real(report["real"])
    else:
        print(f"real set skipped: {dr.CORPUS} not found")
    rows = report["speed_real"] = [real_speed(n, mode) for mode in args.real_corpus for n in args.real_sizes]
    for r in rows:
        print(
            f"speed, real sentences recombined ({r['corpus']}), {r['abstracts']}: index {r['index_s']:.2f} s"
            f" + candidates {r['candidates_s']:.2f} s (CPU {r['candidates_cpu_s']:.2f} s) = "
            f"{r['total_s']:.2f} s (CPU {r['total_cpu_s']:.2f} s); "
            f"{r['candidate_pairs_verified']} pairs verified, {r['groups']} groups; planted found "
            f"{r['planted_found']:.4f}, unplanted offered {r['unplanted_pairs_offered']}; 100 new papers "
            f"added and their candidates {r['add_100_new_and_candidates_s']:.2f} s; "
            f"RSS +{r['rss_growth_mb']} MB"
        )
    if args.real_only:
        _write(args.out, report)
        return 0

    lab = report["labelled"] = labelled(args.seed, args.synthetic)
    print(
        f"labelled set: {lab['texts']} texts, {lab['papers']} papers, {lab['true_pairs']} true pairs "
        f"(seeds + {args.synthetic} synthetic), threshold {DEFAULT_THRESHOLD}"
    )
    print(
        f"  pair precision {lab['pair_precision']:.4f}  pair recall {lab['pair_recall']:.4f}  "
        f"({lab['offered_pairs']} pairs offered, {lab['seconds']} s)"
    )
    print("  positives   kind                  pairs  linked   min    p5     median")
    for kind, r in lab["positives"].items():
        print(
            f"              {kind:20s} {r['pairs']:6d}  {r['linked']:.3f}  "
            f"{r['min']:.3f}  {r['p5']:.3f}  {r['median']:.3f}"
        )
    print("  negatives   kind                  pairs    max    p95    median")
    for kind, r in lab["negatives"].items():
        print(f"              {kind:20s} {r['pairs']:6d}  {r['max']:.3f}  {r['p95']:.3f}  {r['median']:.3f}")
    print(
        "  verifier sweep (labelled pairs): "
        + "  ".join(f"{r['threshold']:.2f}: R={r['recall']:.4f} FP={r['false']}" for r in lab["sweep"])
    )

    for kind in ("zipf", "template"):
        rows = report[f"speed_{kind}"] = [speed(n, kind) for n in args.sizes]
        print(f"speed, {kind} abstracts:")
        for r in rows:
            print(
                f"  {r['abstracts']:>6d}: index (= rebuild) {r['index_s']:.2f} s"
                f" + candidates {r['candidates_s']:.2f} s"
                f" = {r['total_s']:.2f} s (CPU {r['total_cpu_s']:.2f} s); "
                f"{r['candidate_pairs_verified']} pairs verified, {r['groups']} groups; "
                f"planted found {r['planted_found']:.4f}, unplanted offered {r['unplanted_pairs_offered']}; "
                f"add+candidates_for {r['incremental_add_and_candidates_ms']} ms; "
                f"pickle {r['pickle_mb']} MB (load {r['unpickle_s']} s); RSS +{r['rss_growth_mb']} MB"
            )
        report[f"growth_{kind}"] = {
            key: growth(rows, key) for key in ("total_s", "total_cpu_s", "candidates_s")
        }
        print(
            f"  growth: time ~ size^e, e = {growth(rows, 'total_cpu_s')} (CPU), "
            f"{growth(rows, 'total_s')} (wall), "
            f"{growth(rows, 'candidates_s')} (finding candidates alone); linear is 1"
        )
    if not args.no_datasketch:
        rows = report["datasketch_minhashlsh"] = [datasketch_lsh(n) for n in args.sizes]
        for r in rows:
            print(
                f"datasketch MinHashLSH, same bands, {r['abstracts']}: insert {r['insert_s']} s + query all "
                f"{r['query_all_s']} s (no hashing, no verifying), {r['candidate_pairs']} pairs, "
                f"RSS +{r['rss_growth_mb']} MB"
            )
    _write(args.out, report)
    return 0


def _write(out: Path, report: dict[str, Any]) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {out}")


if __name__ == "__main__":
    sys.exit(main())
