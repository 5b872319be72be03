"""The sidebar's figures: searching inside an entry (in:"collection", saved:"name", tag:) and
reading every count the sidebar shows (desk/gui/organize/sidebar.py load_counts), on a library.

    python bench/realcorpus.py --size 100000 --out /tmp/real-100k
    desk --library /tmp/lib-100k import /tmp/real-100k
    python bench/sidebar_bench.py --library /tmp/lib-100k --reps 20

Tags and saved searches are added (one step each, undone at the end) so the counts have
something to count: ``--tags`` tags of 200 papers each, three saved searches. Each query is
typed word by word after the entry's filter, as the window sends it (``typing=True``, top 100).
Figures carry the load average and this process's CPU time beside wall time.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from desk.core.library.facade import Library
from desk.gui.organize.sidebar import collection_filter, load_counts, saved_filter, tag_filter

WORDS = ("diffusion model", "point cloud segmentation", "transformer", "video", "self-supervised learning")


def _p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def _typed(filter_term: str) -> list[str]:
    """Every prefix of each query, word by word, after the filter (what the window searches)."""
    out = []
    for words in WORDS:
        for end in range(1, len(words) + 1):
            out.append(f"{filter_term} {words[:end]}")
    return out


def measure(lib: Library, reps: int, tags: int) -> dict[str, object]:
    rng = random.Random(15)
    ids = lib.paper_ids()
    steps = 0
    for n in range(tags):
        lib.tags.add(rng.sample(ids, min(200, len(ids))), f"bench {n}")
        steps += 1
    for name, query in (
        ("bench unread", "is:unread diffusion"),
        ("bench video", "video"),
        ("bench t", 'tag:"bench 0"'),
    ):
        lib.saved_searches.save(name, query)
        steps += 1
    collection = max(lib.stats().collections.items(), key=lambda kv: kv[1])[0]
    entries = {
        "in": collection_filter(collection),
        "tag": tag_filter("bench 0"),
        "saved": saved_filter("bench unread"),
    }
    out: dict[str, object] = {"papers": len(ids), "collection": collection}
    try:
        for kind, term in entries.items():
            lib.search_ids(term, limit=100, typing=True)  # warm
            wall: list[float] = []
            for _ in range(reps):
                for q in _typed(term):
                    started = time.perf_counter()
                    lib.search_ids(q, limit=100, typing=True)
                    wall.append((time.perf_counter() - started) * 1000)
            out[f"search_inside_{kind}_ms"] = {
                "p50": statistics.median(wall),
                "p95": _p95(wall),
                "n": len(wall),
            }
        wall, cpu = [], []
        for _ in range(reps):
            started, c0 = time.perf_counter(), time.process_time()
            counts = load_counts(lib)
            wall.append((time.perf_counter() - started) * 1000)
            cpu.append((time.process_time() - c0) * 1000)
        out["load_counts_ms"] = {
            "p50": statistics.median(wall),
            "p95": _p95(wall),
            "cpu_p50": statistics.median(cpu),
        }
        out["counts_entries"] = 4 + len(counts.collections) + len(counts.tags) + len(counts.saved) + 1
    finally:
        for _ in range(steps):
            lib.history.undo()
    out["load_average"] = os.getloadavg()
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--library", type=Path, required=True)
    p.add_argument("--reps", type=int, default=10)
    p.add_argument("--tags", type=int, default=12)
    p.add_argument("--out", type=Path)
    args = p.parse_args(argv)
    with Library(args.library) as lib:
        result = measure(lib, args.reps, args.tags)
    text = json.dumps(result, indent=2, ensure_ascii=False)
    print(text)
    if args.out:
        args.out.write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
