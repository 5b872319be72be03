"""Search latency on a library already built, beside SQLite FTS5 over the same abstracts, in one run.

For before/after comparisons of the search itself without importing again: build a library of
recombined real text once (``python bench/realcorpus.py --size 100000 --out DIR`` then
``desk --library L import DIR``, and ``desk --library L search x`` once to build the vectors),
then run this with each checkout (``PYTHONPATH=other-checkout``). Queries are realcorpus.py's:
60 typed (titles, their first 2 or 4 content words) and 50 prefix forms (``… reco*``).

Reported, desk and FTS5 alike: the first pass over the queries (nothing of them read before:
what a new query costs) and the passes after it (what was read is kept), p50/p95; desk's
``took_ms`` (from the query to ranked hits with snippets), with the semantic fusion when the
library's vectors are built. Keystrokes: every one-letter-longer prefix of 8 multi-word
queries, as bench/run.py's keystroke figure times them (``search_ids(text, 100)`` + 40 row
summaries, the last word made a prefix). The machine's load is printed beside each figure.

    python bench/search_bench.py --library L --corpus DIR [--reps 2] [--out FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from engines import typed_prefix
from fts import Fts5, read_abstracts, to_match
from realcorpus import RealGenerator, available, typing_sequences
from stats import percentile

FIRST_PAGE, FIRST_ROWS = 100, 40


def _summary(values: list[float]) -> dict[str, float]:
    return {"p50": percentile(values, 50), "p95": percentile(values, 95), "n": len(values)}


def _passes(search: Any, queries: list[dict[str, object]], reps: int) -> dict[str, dict[str, float]]:
    """{"typed first", "prefix first", "typed again", "prefix again"} -> p50/p95 ms."""
    out: dict[str, list[float]] = {}
    for rep in range(1 + reps):
        for q in queries:
            kind = "prefix" if q["kind"] == "prefix" else "typed"
            out.setdefault(f"{kind} {'first' if rep == 0 else 'again'}", []).append(search(str(q["text"])))
    return {k: _summary(v) for k, v in out.items()}


def main(argv: list[str] | None = None) -> int:
    """Measure, print, write JSON."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--library", type=Path, required=True)
    p.add_argument("--corpus", type=Path, required=True, help="the folder of .txt the library was made from")
    p.add_argument("--reps", type=int, default=2, help="passes after the first")
    p.add_argument("--no-fts", dest="fts", action="store_false")
    p.add_argument("--out", type=Path)
    args = p.parse_args(argv)
    if not available():
        print("skipped: no dev corpus (it is never copied into the repository)")
        return 0
    from desk.core.library.facade import Library

    gen = RealGenerator(7)
    queries = gen.queries()
    sequences = typing_sequences(queries)
    report: dict[str, Any] = {"library": str(args.library), "load_start": os.getloadavg()}
    with Library(args.library) as lib:
        lib.discovery.ensure_vectors()  # built once by the library's first search; loaded here
        lib.search("warm up", limit=50)
        report["papers"] = lib.count()
        report["semantic"] = lib.index.semantic is not None
        report["desk"] = _passes(lambda q: lib.search(q, limit=50).took_ms, queries, args.reps)
        report["load_after_desk"] = os.getloadavg()
        strokes: list[float] = []
        for seq in sequences:
            for text in seq:
                started = time.perf_counter()
                result = lib.search_ids(typed_prefix(text), FIRST_PAGE)
                lib.summaries([h.id for h in result.hits[:FIRST_ROWS]])
                strokes.append((time.perf_counter() - started) * 1000)
        report["desk keystroke"] = _summary(strokes)
    if args.fts:
        with tempfile.TemporaryDirectory(prefix="desk-search-bench-") as tmp:
            fts = Fts5(Path(tmp) / "fts.sqlite3")
            fts.create()
            fts.insert([a for f in sorted(args.corpus.rglob("*.txt")) for a in read_abstracts(f)])

            def fts_search(q: str) -> float:
                started = time.perf_counter()
                fts.search(to_match(q, "or"), limit=50)
                return (time.perf_counter() - started) * 1000

            report["fts5"] = _passes(fts_search, queries, args.reps)
            fts.close()
    report["load_end"] = os.getloadavg()
    load = "/".join(f"{x:.1f}" for x in report["load_start"])
    semantic = "on" if report["semantic"] else "off"
    print(f"## search on {report['papers']} papers (semantic {semantic}; load {load})")
    for key, d in report["desk"].items():
        row = f"  {key:<13} desk p50 {d['p50']:7.1f}  p95 {d['p95']:7.1f} ms"
        if "fts5" in report:
            f = report["fts5"][key]
            row += f"   FTS5 p50 {f['p50']:7.1f}  p95 {f['p95']:7.1f} ms"
        print(row)
    k = report["desk keystroke"]
    print(f"  keystroke     desk p50 {k['p50']:7.1f}  p95 {k['p95']:7.1f} ms  (n={k['n']})")
    print(f"  load at the end {'/'.join(f'{x:.1f}' for x in report['load_end'])}")
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
