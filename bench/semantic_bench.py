"""What the semantic signal costs: vector build time, size on disk, memory, and search latency with
it on and off, beside SQLite FTS5 answering the same ranked OR-of-words queries, in one run.

The corpus is real text recombined to any size (bench/realcorpus.py, from ../shared/dev-corpus/).
Queries: real titles, their first words, and their prefix forms, as a researcher types them.
The machine is shared: compare within one run.

    python bench/semantic_bench.py [--size 10000] [--reps 3] [--out bench/out/semantic.json]
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import tempfile
import time
from pathlib import Path

from fts import Fts5, read_abstracts, to_match
from realcorpus import RealGenerator, available
from stats import percentile


def _rss_mb() -> float:
    with open("/proc/self/status", encoding="ascii") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main(argv: list[str] | None = None) -> int:
    """Build, measure, print, write JSON."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--size", type=int, default=10_000)
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "out" / "semantic.json")
    args = p.parse_args(argv)
    if not available():
        print("skipped: no dev corpus (it is never copied into the repository)")
        return 0
    from desk.core.library.facade import Library
    from desk.core.semantic import lsa, store

    gen = RealGenerator(7)
    queries = [str(q["text"]) for q in gen.queries()]
    with tempfile.TemporaryDirectory(prefix="desk-semantic-") as tmp:
        files = gen.write(args.size, Path(tmp) / "corpus")
        with Library(Path(tmp) / "lib") as lib:
            started = time.perf_counter()
            lib.import_paths(files)
            import_s = time.perf_counter() - started
            before = _rss_mb()
            started = time.perf_counter()
            lib.discovery.ensure_vectors()
            build_s = time.perf_counter() - started
            after = _rss_mb()
            folder = lib.directory / store.DIR_NAME
            disk_mb = sum(f.stat().st_size for f in folder.iterdir()) / 1e6
            data = lib.vectors.current
            assert data is not None
            started = time.perf_counter()
            lib.vectors.load()  # what a new process pays to read and verify the store
            load_ms = (time.perf_counter() - started) * 1000
            semantic = lib.index.semantic
            timings: dict[str, list[float]] = {"desk words only": [], "desk fused": [], "fts5_or": []}
            for label in ("desk words only", "desk fused"):
                lib.index.semantic = semantic if label == "desk fused" else None
                lib.search("warm up", limit=50)
                for _ in range(args.reps):
                    for q in queries:
                        timings[label].append(lib.search(q, limit=50).took_ms)
            lib.index.semantic = semantic
            started = time.perf_counter()
            for q in queries:
                lib.vectors.query_vector(lsa.terms(q))
            encode_ms = (time.perf_counter() - started) * 1000 / len(queries)
        fts = Fts5(Path(tmp) / "fts.sqlite3")
        fts.create()
        fts.insert([a for f in files for a in read_abstracts(f)])
        for _ in range(args.reps):
            for q in queries:
                t0 = time.perf_counter()
                fts.search(to_match(q, "or"), limit=50)
                timings["fts5_or"].append((time.perf_counter() - t0) * 1000)
        fts.close()
    report = {
        "size": args.size,
        "import_s": import_s,
        "import_rate": args.size / import_s,
        "vectors_build_s": build_s,
        "vectors_build_s_per_1k": build_s / args.size * 1000,
        "vectors_dims": data.dims,
        "vocabulary": len(data.model.vocabulary.words),
        "store_mb_on_disk": disk_mb,
        "rss_mb_before_build": before,
        "rss_mb_after_build": after,
        "store_load_ms": load_ms,
        "query_encode_ms": encode_ms,
        "search_ms": {
            k: {"p50": percentile(v, 50), "p95": percentile(v, 95), "n": len(v)} for k, v in timings.items()
        },
    }
    print(f"## semantic signal at {args.size} recombined real abstracts (shared machine: noisy)")
    print(f"import {import_s:.1f} s ({args.size / import_s:.0f}/s; vectors not built inside it)")
    print(
        f"vectors: built in {build_s:.1f} s ({report['vectors_build_s_per_1k']:.2f} s per 1k), "
        f"{data.dims} dims, vocabulary {report['vocabulary']}, {disk_mb:.1f} MB on disk, "
        f"RSS {before:.0f} -> {after:.0f} MB, store read+verified in {load_ms:.0f} ms, "
        f"query encoded in {encode_ms:.2f} ms"
    )
    for k, v in report["search_ms"].items():
        print(f"  {k:<16} p50 {v['p50']:.2f} ms  p95 {v['p95']:.2f} ms  (n={v['n']})")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    print(f"JSON: {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
