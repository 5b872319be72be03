""" "More like this" with and without the sentence encoder, judged as bench/recommend_bench.py
judges its ``related`` method: for each topic word of the real titles and each trial, 5 papers
whose title has the word are "starred", the related papers of each are fused by reciprocal rank,
and precision@20 is the share of the first 20 (stars and the 20 papers "read" left out) whose
title has the word. Each variant sets fusion.RELATED_LSA_SHARE and RELATED_ENCODER_SHARE for its
run on one kept library (an encoded dev library: ``--library``; nothing is written to it).

    python bench/related_bench.py --library DEVLIB --variant lsa=-1,0 --variant mix=0.5,1
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from pathlib import Path

import numpy as np
from recommend_bench import CORPUS, LEFT, RRF_K, STARS, TOPICS, K, has

HERE = Path(__file__).resolve().parent


def main(argv: list[str] | None = None) -> int:
    """Run each variant; print a table; write JSON."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--library", type=Path, required=True)
    p.add_argument("--corpus", type=Path, default=CORPUS)
    p.add_argument("--trials", type=int, default=3)
    p.add_argument(
        "--variant",
        action="append",
        default=[],
        help="NAME=LSA_SHARE,ENCODER_SHARE (LSA_SHARE -1: LSA alone)",
    )
    p.add_argument("--out", type=Path, default=HERE / "out" / "related.json")
    args = p.parse_args(argv)
    from desk.core.library.facade import Library
    from desk.core.semantic import fusion

    rows = [
        ln.split("\t") for ln in (args.corpus / "titles.tsv").read_text(encoding="utf-8").splitlines()[1:]
    ]
    title_of = {int(i): t.strip() for _, i, t in rows}
    results: dict[str, object] = {"load_before": os.getloadavg()[0]}
    with Library(args.library) as lib:
        lib.discovery.ensure_vectors()
        index_of = {pp.id: s.index for pp in lib.list_papers() for s in pp.sources}
        id_of = {v: k for k, v in index_of.items()}
        for spec in args.variant or ["shipped="]:
            name, _, values = spec.partition("=")
            saved = (fusion.RELATED_LSA_SHARE, fusion.RELATED_ENCODER_SHARE, lib.index.encoded)
            if values:
                lsa_share, enc_share = (float(v) for v in values.split(","))
                if lsa_share < 0:  # LSA alone: the encoder's vectors not handed to the index
                    lib.index.encoded = None
                else:
                    fusion.RELATED_LSA_SHARE, fusion.RELATED_ENCODER_SHARE = lsa_share, enc_share
            per_topic: dict[str, float] = {}
            times: list[float] = []
            for topic in TOPICS:
                on = [i for i, t in title_of.items() if has(topic, t)]
                off = [i for i, t in title_of.items() if not has(topic, t)]
                got = []
                for trial in range(args.trials):
                    rng = random.Random(f"{topic}/{trial}")
                    starred = [id_of[i] for i in rng.sample(on, STARS)]
                    seen = set(starred) | {id_of[i] for i in rng.sample(off, LEFT)}
                    fused: dict[int, float] = {}
                    for s in starred:
                        t0 = time.perf_counter()
                        page = lib.discovery.related(s, limit=K + 40).rows
                        times.append((time.perf_counter() - t0) * 1000)
                        for rank, r in enumerate(page):
                            fused[r.paper.id] = fused.get(r.paper.id, 0.0) + 1.0 / (RRF_K + rank + 1)
                    top = [i for i in sorted(fused, key=lambda i: -fused[i]) if i not in seen][:K]
                    got.append(sum(has(topic, title_of[index_of[i]]) for i in top) / K)
                per_topic[topic] = float(np.mean(got))
            fusion.RELATED_LSA_SHARE, fusion.RELATED_ENCODER_SHARE, lib.index.encoded = saved
            mean = float(np.mean(list(per_topic.values())))
            results[name] = {"precision20": mean, "per_topic": per_topic, "ms_p50": float(np.median(times))}
            print(f"{name}: precision@{K} {mean:.3f}, related {np.median(times):.0f} ms p50", flush=True)
    results["load_after"] = os.getloadavg()[0]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
