"""What checking the index's signature costs: `desk stats` start to end, and searches after it.

Before Whoosh reads an index, desk checks the signed record of its files (manifest.check_signed:
the newest table of contents hashed, a stat per segment) and reads every pickle through a
data-only unpickler (unpickling.py). This measures, on a library of real text
(bench/realcorpus.py, imported with `desk import`):

* ``stats_ms``: wall time of `desk --library L stats --json` as a new process (what a user
  waits for), median and p95 of ``--reps`` runs;
* ``open_ms``: ``Library(L)`` in this process (opening and checking the index, no search);
* ``check_signed_ms``: the signature check alone;
* ``search_ms``: median / p95 of the researcher queries of bench/dev_queries.json and four
  phrases, top 50 with snippets, after one warm-up pass (the unpickler's cost on posting
  blocks and stored fields).

Run it from a checkout to measure that checkout's desk (PYTHONPATH=checkout for another one):

    python bench/open_bench.py --library /tmp/lib-100k --reps 9 --out bench/out/open-100000.json

The library must have been opened once by the desk measured (a first open of an index signed
by another desk, or by none, rebuilds it).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
#: Phrases read positions (a pickle per posting on Whoosh's format): the unpickler's hot case.
PHRASES = ('"point cloud"', '"neural radiance field"', '"semantic segmentation"', '"diffusion model"')


def _p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def _summary(values: list[float]) -> dict[str, float]:
    return {"median": round(statistics.median(values), 1), "p95": round(_p95(values), 1)}


def stats_runs(library: Path, reps: int) -> list[float]:
    """Wall milliseconds of `desk stats --json` in a new process, ``reps`` times."""
    cmd = [sys.executable, "-m", "desk.cli.main", "--library", str(library), "stats", "--json"]
    times: list[float] = []
    for _ in range(reps):
        started = time.perf_counter()
        proc = subprocess.run(cmd, capture_output=True, text=True, env=os.environ.copy(), check=False)
        times.append((time.perf_counter() - started) * 1000)
        if proc.returncode != 0 or proc.stderr:
            raise SystemExit(f"desk stats said: {proc.stderr.strip()}")
    return times


def in_process(library: Path, reps: int) -> dict[str, object]:
    """Opening, the signature check and searches, timed inside this process."""
    from desk.core.library.facade import Library
    from desk.core.runtime.paths import INDEX_DIR_NAME

    out: dict[str, object] = {}
    opens: list[float] = []
    for _ in range(reps):
        started = time.perf_counter()
        with Library(library) as lib:
            opens.append((time.perf_counter() - started) * 1000)
            if lib.repaired:
                raise SystemExit(f"the library was repaired on open ({lib.repaired}): open it once first")
    out["open_ms"] = _summary(opens)
    try:
        from desk.core.search.manifest import check_signed
    except ImportError:  # a desk from before the signed record
        out["check_signed_ms"] = None
    else:
        checks = []
        for _ in range(max(reps, 20)):
            started = time.perf_counter()
            check_signed(library / INDEX_DIR_NAME)
            checks.append((time.perf_counter() - started) * 1000)
        out["check_signed_ms"] = _summary(checks)
    queries = [q["q"] for q in json.loads((HERE / "dev_queries.json").read_text())["queries"]]
    queries += list(PHRASES)
    with Library(library) as lib:
        for q in queries:  # warm-up: the posting cache and the OS's page cache
            lib.search(q, limit=50)
        took: list[float] = []
        for q in queries:
            started = time.perf_counter()
            lib.search(q, limit=50)
            took.append((time.perf_counter() - started) * 1000)
    out["search_ms"] = _summary(took) | {"queries": len(queries)}
    return out


def main() -> int:
    """Measure and print one JSON object (and write it to --out)."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--library", type=Path, required=True)
    p.add_argument("--reps", type=int, default=9)
    p.add_argument("--out", type=Path)
    args = p.parse_args()
    result: dict[str, object] = {"library": str(args.library), "load": os.getloadavg()[0]}
    result["stats_ms"] = _summary(stats_runs(args.library, args.reps))
    result |= in_process(args.library, args.reps)
    result["load_after"] = os.getloadavg()[0]
    text = json.dumps(result, indent=1)
    print(text)
    if args.out:
        args.out.write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
