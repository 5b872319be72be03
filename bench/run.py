"""The benchmark runner: desk beside SQLite FTS5 on the same synthetic corpus, in the same run.

    python bench/run.py --quick                    # 1k only, < 2 minutes (CI)
    python bench/run.py --sizes 1000,10000         # the developer loop
    python bench/run.py --sizes 50000,100000       # the full run (long)

For each size: the corpus is generated (cached in --work), each engine imports it in a fresh
process, then searches it in another (so each phase's peak RSS is its own); ``desk check`` is
timed as a CLI process and the window's cold start is probed offscreen. Prints one table per size
and writes bench/out/results-<size>.json.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import platform
import shutil
import sqlite3
import subprocess
import sys
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

import coldstart
import queries
import report
from corpus import PER_FILE, Generator

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SEEDS = ROOT / "seeds"
ENGINES = ("desk", "fts5")


def _fingerprint(seed: int, size: int) -> str:
    code = b"".join((HERE / f).read_bytes() for f in ("corpus.py", "vocab.py", "templates.py"))
    return hashlib.sha256(code + f"{seed}:{size}:{PER_FILE}".encode()).hexdigest()[:16]


def ensure_corpus(work: Path, size: int, seed: int) -> Path:
    """The corpus folder for size, generated unless an identical one is already there."""
    folder = work / f"corpus-{size}"
    stamp = folder / "fingerprint"
    want = _fingerprint(seed, size)
    if stamp.exists() and stamp.read_text() == want:
        return folder
    shutil.rmtree(folder, ignore_errors=True)
    Generator(seed).write(size, folder / "files")
    stamp.write_text(want)
    return folder


def write_queries(work: Path, size: int, seed: int) -> tuple[Path, dict[str, Any]]:
    """The query set (from the first min(size, 1000) abstracts) as the workers' JSON file."""
    qs = queries.build(Generator(seed), pool=min(size, queries.POOL))
    spec = {"queries": [asdict(q) for q in qs], "typing": queries.typing_sequences(qs), "per_file": PER_FILE}
    path = work / f"queries-{size}.json"
    path.write_text(json.dumps(spec, indent=1))
    return path, spec


def worker(args: list[str], timeout: float) -> dict[str, Any]:
    """Run one worker phase; its JSON, or {"error": ...}."""
    cmd = [sys.executable, str(HERE / "worker.py"), *args]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=HERE)
    except subprocess.TimeoutExpired:
        return {"error": f"timed out after {timeout:.0f} s: {' '.join(args[:3])}"}
    lines = proc.stdout.strip().splitlines()
    if proc.returncode != 0 or not lines:
        tail = " | ".join(proc.stderr.strip().splitlines()[-4:])
        return {"error": f"{' '.join(args[:3])} exited {proc.returncode}: {tail}"}
    result: dict[str, Any] = json.loads(lines[-1])
    return result


def desk_cli(
    library: Path, *argv: str, timeout: float
) -> tuple[float, subprocess.CompletedProcess[str] | None]:
    """(wall ms, process) of one `desk` command on library."""
    started = time.perf_counter()
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "desk", "--library", str(library), *argv],
            capture_output=True,
            text=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        return math.inf, None
    return (time.perf_counter() - started) * 1000.0, proc


def seeds_library(work: Path, timeout: float) -> Path:
    """A desk library with the seeds imported (built once per work folder)."""
    lib = work / "seeds-library"
    if not (lib / "ready").exists():
        shutil.rmtree(lib, ignore_errors=True)
        result = worker(["import", "--engine", "desk", "--corpus", str(SEEDS), "--target", str(lib)], timeout)
        if "error" not in result:
            (lib / "ready").write_text("ok")
    return lib


def run_size(size: int, args: argparse.Namespace) -> dict[str, Any]:
    """Every measurement for one corpus size."""
    work: Path = args.work
    corpus = ensure_corpus(work, size, args.seed)
    qpath, spec = write_queries(work, size, args.seed)
    result: dict[str, Any] = {
        "machine": machine(),
        "size": size,
        "seed": args.seed,
        "queries": len(spec["queries"]),
        "keystrokes": sum(map(len, spec["typing"])),
        "reps": args.reps,
    }
    for engine in args.engines:
        target = work / f"{engine}-{size}"
        shutil.rmtree(target, ignore_errors=True)
        print(f"[{size}] {engine}: import", file=sys.stderr, flush=True)
        common = ["--engine", engine, "--target", str(target)]
        imported = worker(["import", *common, "--corpus", str(corpus / "files")], args.timeout)
        print(f"[{size}] {engine}: search", file=sys.stderr, flush=True)
        searched = worker(
            ["search", *common, "--queries", str(qpath), "--reps", str(args.reps)], args.timeout
        )
        result[engine] = {"import": imported, "search": searched}
    if "desk" in args.engines:
        library = work / f"desk-{size}"
        ms, proc = desk_cli(library, "check", timeout=args.timeout)
        result["cli"] = {"check_ms": ms, "check_exit": proc.returncode if proc else None}
        ms, proc = desk_cli(library, "search", spec["queries"][0]["text"], "--json", timeout=args.timeout)
        took = json.loads(proc.stdout).get("took_ms") if proc and proc.returncode == 0 else None
        result["cli"].update(search_process_ms=ms, search_took_ms=took)
        if args.window:
            print(f"[{size}] window cold start", file=sys.stderr, flush=True)
            result["window_seeds"] = coldstart.probe(seeds_library(work, args.timeout))
            result["window"] = coldstart.probe(library, timeout=min(120.0, args.timeout))
    return result


def machine() -> dict[str, Any]:
    """What the numbers were measured on, with the load at the time (the machine may be shared)."""
    import importlib.metadata as md

    def version(dist: str) -> str | None:
        try:
            return md.version(dist)
        except md.PackageNotFoundError:
            return None

    return {
        "cpus": os.cpu_count(),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "sqlite": sqlite3.sqlite_version,
        "whoosh": version("Whoosh-Reloaded"),
        "sqlalchemy": version("SQLAlchemy"),
        "loadavg": os.getloadavg(),
    }


def _clean(value: Any) -> Any:
    """JSON-safe: infinities and NaN become null."""
    if isinstance(value, float) and (value != value or value in (math.inf, -math.inf)):
        return None
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_clean(v) for v in value]
    return value


def main(argv: list[str] | None = None) -> int:
    """CLI entry point."""
    p = argparse.ArgumentParser(description="desk beside SQLite FTS5")
    p.add_argument("--sizes", help="comma-separated corpus sizes (default 1000,10000; --quick: 1000)")
    p.add_argument("--quick", action="store_true", help="1k only, one repetition (CI smoke)")
    p.add_argument("--reps", type=int, help="passes over the query set (default 3, --quick 1)")
    p.add_argument("--work", type=Path, default=Path("/tmp/desk-bench"), help="corpora and libraries")
    p.add_argument("--out", type=Path, default=HERE / "out", help="where results-<size>.json go")
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--timeout", type=float, default=3600.0, help="seconds allowed per process")
    p.add_argument("--engines", default=",".join(ENGINES))
    p.add_argument("--no-window", dest="window", action="store_false", help="skip the window cold start")
    args = p.parse_args(argv)
    args.sizes = [int(s) for s in (args.sizes or ("1000" if args.quick else "1000,10000")).split(",")]
    args.reps = args.reps or (1 if args.quick else 3)
    args.engines = [e for e in args.engines.split(",") if e in ENGINES]
    args.work.mkdir(parents=True, exist_ok=True)
    args.out.mkdir(parents=True, exist_ok=True)
    failed = False
    for size in args.sizes:
        started = time.perf_counter()
        result = run_size(size, args)
        rows = report.build_rows(size, result)
        result["rows"] = [r.as_json() for r in rows]
        result["run_seconds"] = round(time.perf_counter() - started, 1)
        result["loadavg_after"] = os.getloadavg()
        (args.out / f"results-{size}.json").write_text(json.dumps(_clean(result), indent=1))
        print(report.table(size, rows), flush=True)
        for k in ("window_seeds", "window"):
            if "error" in result.get(k, {}):
                print(f"  window n/a ({k}): {result[k]['error']}", flush=True)
        for engine in ENGINES:
            search = result.get(engine, {}).get("search", {})
            if search.get("engine_errors"):
                samples = "; ".join(search.get("engine_error_samples", []))
                print(
                    f"  WARNING: {engine} logged {search['engine_errors']} errors while searching: {samples}"
                )
        errors = _errors(result)
        for e in errors:
            print(f"  error: {e}", flush=True)
        failed = failed or bool(errors)
        load = "/".join(f"{x:.1f}" for x in result["machine"]["loadavg"])
        print(f"  load average at start {load} on {result['machine']['cpus']} CPUs")
        print(f"  ({result['run_seconds']} s; JSON: {args.out / f'results-{size}.json'})\n", flush=True)
    return 1 if failed else 0


def _errors(result: dict[str, Any]) -> list[str]:
    """Errors of engine phases (a window probe's error is shown as n/a, not a failure)."""
    out: list[str] = []
    for engine in ENGINES:
        for phase in ("import", "search"):
            err = result.get(engine, {}).get(phase, {}).get("error")
            if err:
                out.append(f"{engine} {phase}: {err}")
    return out


if __name__ == "__main__":
    sys.exit(main())
