"""One engine, one phase, in a process of its own (so its peak RSS is its own): prints one JSON line.

    python bench/worker.py import --engine desk|fts5 --corpus DIR --target DIR
    python bench/worker.py search --engine desk|fts5 --target DIR --queries FILE [--reps N]

The query file is the JSON :mod:`run` writes: ``{"queries": [{"kind", "text", "target"}],
"typing": [[...]], "per_file": N}``.
"""

from __future__ import annotations

import argparse
import json
import logging
import resource
import sys
import time
from pathlib import Path
from typing import Any

from engines import DeskEngine, Engine, FtsEngine
from stats import ErrorLog, cpu_seconds, peak_rss_mb, summary, timed

TRIALS = 5  # star / note updates timed
DEADLINE_S = 10.0  # an update not searchable by then counts as failed


def _engine(name: str, target: Path, per_file: int) -> Engine:
    if name == "desk":
        return DeskEngine(target, per_file, defer_folds=True)  # as the window opens it
    if name == "fts5":
        return FtsEngine(target, per_file)
    raise SystemExit(f"unknown engine {name!r}")


def do_import(engine: Engine, corpus: Path) -> dict[str, Any]:
    """Import the corpus folder; throughput in abstracts per second, and CPU used (cores busy)."""
    cpu = cpu_seconds()
    started = time.perf_counter()
    result = engine.import_corpus(corpus)
    wall = time.perf_counter() - started
    result["cpu_seconds"] = cpu_seconds() - cpu
    result["cores_busy"] = result["cpu_seconds"] / wall if wall else None
    return result


def _rank(found: list[int], target: int) -> int | None:
    return found.index(target) + 1 if target in found else None


def do_search(engine: Engine, spec: dict[str, Any], reps: int) -> dict[str, Any]:
    """Latencies of the query set, typing sequences, star/note updates and the check."""
    errors = ErrorLog()
    logging.getLogger().addHandler(errors)
    try:
        out = _search_phase(engine, spec, reps)
    finally:
        logging.getLogger().removeHandler(errors)
    out["engine_errors"] = len(errors.messages)
    out["engine_error_samples"] = list(dict.fromkeys(errors.messages))[:5]
    return out


def _search_phase(engine: Engine, spec: dict[str, Any], reps: int) -> dict[str, Any]:
    out: dict[str, Any] = {"open_ms": engine.open_ms, "module_import_ms": getattr(engine, "import_ms", None)}
    queries = spec["queries"]
    out["first_query_ms"] = engine.search(queries[0]["text"]).wall_ms  # not the rehearsal after it
    out["rehearse_ms"] = getattr(engine, "rehearse_ms", None)  # after the first results (the window's)
    walls: list[float] = []
    inner: list[float] = []
    per_query: list[dict[str, Any]] = []
    for rep in range(reps):
        for q in queries:
            res = engine.search(q["text"])
            walls.append(res.wall_ms)
            if res.took_ms is not None:
                inner.append(res.took_ms)
            if rep == 0:
                per_query.append(
                    {
                        **q,
                        "wall_ms": round(res.wall_ms, 2),
                        "hits": res.total,
                        "rank": _rank(res.found, q["target"]),
                    }
                )
    out["search_wall"] = summary(walls)
    out["search_took"] = summary(inner) if inner else None
    out["per_query"] = per_query
    ranks = [p["rank"] for p in per_query]
    out["synthetic_mrr10"] = sum(1 / r for r in ranks if r and r <= 10) / len(ranks)
    for mode in ("raw", "prefix"):
        samples = [engine.keystroke(text, prefix=mode == "prefix") for seq in spec["typing"] for text in seq]
        out[f"keystroke_{mode}"] = summary(samples)
    ids = engine.some_ids(TRIALS)
    out["note_to_searchable"] = summary(_edits(engine, "note", ids))
    out["star_to_searchable"] = summary(_edits(engine, "star", ids))
    # The same queries once more on an index that now holds edits (deletions, small segments).
    out["search_after_edits"] = summary([engine.search(q["text"]).wall_ms for q in queries])
    _, out["check_ms"] = timed(engine.check)
    out["check_problems"] = engine.check_problems
    return out


def _edits(engine: Engine, what: str, ids: list[int]) -> list[float]:
    """Each paper changed in turn, as a user does: the paper opened, its change → searchable timed,
    then a pause (neither timed)."""
    times = []
    for k, paper in enumerate(ids):
        engine.view(paper)
        times.append(_until(engine, what, paper, k))
        engine.idle()
    return times


def _until(engine: Engine, what: str, paper: int, k: int) -> float:
    """Milliseconds from the change to the changed paper being found by a search."""
    word = f"zqbench{k}{'abcdefghij'[k % 10]}note"
    started = time.perf_counter()
    engine.change(what, paper, word)
    while not engine.changed_found(what, paper, word):
        if time.perf_counter() - started > DEADLINE_S:
            return float("inf")
        time.sleep(0.001)
    return (time.perf_counter() - started) * 1000.0


def main(argv: list[str] | None = None) -> int:
    """CLI entry point: run one phase and print its JSON on one line."""
    p = argparse.ArgumentParser(description="one benchmark phase for one engine")
    p.add_argument("phase", choices=("import", "search"))
    p.add_argument("--engine", required=True)
    p.add_argument("--target", type=Path, required=True)
    p.add_argument("--corpus", type=Path)
    p.add_argument("--queries", type=Path)
    p.add_argument("--reps", type=int, default=2)
    args = p.parse_args(argv)
    spec = json.loads(args.queries.read_text()) if args.queries else {"per_file": 5000}
    engine = _engine(args.engine, args.target, int(spec.get("per_file", 5000)))
    try:
        if args.phase == "import":
            result = do_import(engine, args.corpus)
        else:
            result = do_search(engine, spec, args.reps)
    finally:
        engine.close()
    result["peak_rss_mb"] = round(peak_rss_mb(), 1)
    result["children_peak_rss_mb"] = round(peak_rss_mb(resource.RUSAGE_CHILDREN), 1)
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
