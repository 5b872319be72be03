"""The benchmark runner: desk beside SQLite FTS5 on the same corpus, in the same run.

    python bench/run.py --quick                    # 1k synthetic only, < 2 minutes (CI)
    python bench/run.py --sizes 1000,10000         # the developer loop: synthetic and real text
    python bench/run.py --sizes 50000,100000       # the full run (long)
    python bench/run.py --sizes 1000000 --corpora real --reps 1   # a million real-text abstracts

Two corpora: ``synthetic`` (corpus.py: a model of a vocabulary, with generated queries) and
``real`` (realcorpus.py: sentences of the real abstracts in ../shared/dev-corpus/ recombined, with
queries made from their real titles and their prefix-as-you-type forms); ``real`` is skipped with
a note when the development corpus is not there. For each size and corpus: the corpus is
generated (cached in --work), each engine imports it in a fresh process, then searches it in
another (so each phase's peak RSS is its own); ``desk check`` is timed as a CLI process and the
window's cold start is probed offscreen. Prints one table per size with a column group per
corpus and writes bench/out/results-<size>.json (synthetic) and results-real-<size>.json.
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

import cli_start
import coldstart
import queries
import realcorpus
import report
from corpus import PER_FILE, Generator

HERE = Path(__file__).resolve().parent
WINDOW_QUERIES = 20  # typed into the window after it settles, for its memory
ROOT = HERE.parent
SEEDS = ROOT / "seeds"
ENGINES = ("desk", "fts5")
CORPORA = ("synthetic", "real")
_CODE = {"synthetic": ("corpus.py", "vocab.py", "templates.py"), "real": ("realcorpus.py",)}


def _fingerprint(corpus: str, seed: int, size: int) -> str:
    code = b"".join((HERE / f).read_bytes() for f in _CODE[corpus])
    return hashlib.sha256(code + f"{seed}:{size}:{PER_FILE}".encode()).hexdigest()[:16]


def _stem(corpus: str, size: int) -> str:
    return f"{size}" if corpus == "synthetic" else f"{corpus}-{size}"


def ensure_corpus(work: Path, size: int, seed: int, corpus: str = "synthetic") -> Path:
    """The corpus folder for size, generated unless an identical one is already there."""
    folder = work / f"corpus-{_stem(corpus, size)}"
    stamp = folder / "fingerprint"
    want = _fingerprint(corpus, seed, size)
    if stamp.exists() and stamp.read_text() == want:
        return folder
    shutil.rmtree(folder, ignore_errors=True)
    if corpus == "real":
        realcorpus.RealGenerator(seed).write(size, folder / "files")
    else:
        Generator(seed).write(size, folder / "files")
    stamp.write_text(want)
    return folder


FOLDER_FILES = 200  # a folder of one-abstract files (an exported reading list, one per paper)


def ensure_folder(work: Path, corpus: Path, kind: str, count: int = FOLDER_FILES) -> Path:
    """A folder of ``count`` one-abstract list files, cut from the corpus's first file (its text)."""
    folder = work / f"folder-{kind}-{count}"
    stamp = folder / "fingerprint"
    source = sorted((corpus / "files").glob("*.txt"))[0]
    want = f"{source.stat().st_size}:{source.stat().st_mtime_ns}:{count}"
    if stamp.exists() and stamp.read_text() == want:
        return folder
    shutil.rmtree(folder, ignore_errors=True)
    (folder / "files").mkdir(parents=True)
    paragraphs = [p.strip() for p in source.read_text(encoding="utf-8").split("\n\n")[1:] if p.strip()]
    for k, text in enumerate(paragraphs[:count]):
        (folder / "files" / f"paper-{k:04d}.txt").write_text(f"Reading List {k} Papers\n\n{text}\n")
    stamp.write_text(want)
    return folder


def write_queries(work: Path, size: int, seed: int, corpus: str = "synthetic") -> tuple[Path, dict[str, Any]]:
    """The query set as the workers' JSON file: synthetic queries come from the first
    min(size, 1000) abstracts; real-text ones from the real titles (60 typed, 50 prefix forms)."""
    if corpus == "real":
        qlist = realcorpus.RealGenerator(seed).queries()
        typing = realcorpus.typing_sequences(qlist)
    else:
        qs = queries.build(Generator(seed), pool=min(size, queries.POOL))
        qlist, typing = [asdict(q) for q in qs], queries.typing_sequences(qs)
    spec = {"queries": qlist, "typing": typing, "per_file": PER_FILE}
    path = work / f"queries-{_stem(corpus, size)}.json"
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


def run_size(size: int, args: argparse.Namespace, kind: str = "synthetic") -> dict[str, Any]:
    """Every measurement for one corpus size of one corpus kind."""
    work: Path = args.work
    corpus = ensure_corpus(work, size, args.seed, kind)
    qpath, spec = write_queries(work, size, args.seed, kind)
    result: dict[str, Any] = {
        "machine": machine(),
        "corpus": kind,
        "size": size,
        "seed": args.seed,
        "queries": len(spec["queries"]),
        "keystrokes": sum(map(len, spec["typing"])),
        "reps": args.reps,
    }
    for engine in args.engines:
        target = work / f"{engine}-{_stem(kind, size)}"
        shutil.rmtree(target, ignore_errors=True)
        print(f"[{kind} {size}] {engine}: import", file=sys.stderr, flush=True)
        common = ["--engine", engine, "--target", str(target)]
        imported = worker(["import", *common, "--corpus", str(corpus / "files")], args.timeout)
        print(f"[{kind} {size}] {engine}: search", file=sys.stderr, flush=True)
        searched = worker(
            ["search", *common, "--queries", str(qpath), "--reps", str(args.reps)], args.timeout
        )
        result[engine] = {"import": imported, "search": searched}
        folder = ensure_folder(work, corpus, kind)
        print(f"[{kind} {size}] {engine}: a folder of {FOLDER_FILES} files", file=sys.stderr, flush=True)
        into = work / f"{engine}-folder-{kind}"
        shutil.rmtree(into, ignore_errors=True)
        phase = ["import", "--engine", engine, "--target", str(into), "--corpus", str(folder / "files")]
        result[engine]["folder"] = worker(phase, args.timeout)
    if "desk" in args.engines:
        library = work / f"desk-{_stem(kind, size)}"
        ms, proc = desk_cli(library, "check", timeout=args.timeout)
        result["cli"] = {"check_ms": ms, "check_exit": proc.returncode if proc else None}
        ms, proc = desk_cli(library, "search", spec["queries"][0]["text"], "--json", timeout=args.timeout)
        took = json.loads(proc.stdout).get("took_ms") if proc and proc.returncode == 0 else None
        result["cli"].update(search_process_ms=ms, search_took_ms=took)
        print(f"[{kind} {size}] CLI commands, whole process", file=sys.stderr, flush=True)
        runs = 1 if args.quick else 11
        result["cli"]["commands"] = cli_start.measure_all(library, runs)
        result["cli"]["command_runs"] = runs
        if args.window:
            print(f"[{kind} {size}] window cold start", file=sys.stderr, flush=True)
            result["window_seeds"] = coldstart.probe(seeds_library(work, args.timeout))
            # The window left to settle, then WINDOW_QUERIES of the benchmark's queries typed into
            # it: the memory a user's window holds (the first-results RSS alone under-reports it).
            typed = [str(q["text"]) for q in spec["queries"]][:WINDOW_QUERIES]
            result["window"] = coldstart.probe(library, timeout=min(600.0, args.timeout), queries=typed)
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
    p.add_argument("--corpora", help="synthetic,real (default both; --quick: synthetic)")
    p.add_argument("--no-window", dest="window", action="store_false", help="skip the window cold start")
    args = p.parse_args(argv)
    args.sizes = [int(s) for s in (args.sizes or ("1000" if args.quick else "1000,10000")).split(",")]
    args.reps = args.reps or (1 if args.quick else 3)
    args.engines = [e for e in args.engines.split(",") if e in ENGINES]
    args.corpora = [
        c for c in (args.corpora or ("synthetic" if args.quick else ",".join(CORPORA))).split(",")
    ]
    if unknown := [c for c in args.corpora if c not in CORPORA]:
        p.error(f"unknown corpus {', '.join(unknown)} (choose from {', '.join(CORPORA)})")
    args.work.mkdir(parents=True, exist_ok=True)
    args.out.mkdir(parents=True, exist_ok=True)
    failed = False
    for size in args.sizes:
        tables: dict[str, list[report.Row]] = {}
        for kind in args.corpora:
            if kind == "real" and not realcorpus.available():
                print(f"  real-text corpus skipped: {realcorpus.DEV_CORPUS} is not there", flush=True)
                continue
            started = time.perf_counter()
            result = run_size(size, args, kind)
            rows = report.build_rows(size, result)
            tables[kind] = rows
            result["rows"] = [r.as_json() for r in rows]
            result["run_seconds"] = round(time.perf_counter() - started, 1)
            result["loadavg_after"] = os.getloadavg()
            out = args.out / f"results-{_stem(kind, size)}.json"
            out.write_text(json.dumps(_clean(result), indent=1))
            failed = _notes(result, kind, out) or failed
        if tables:
            print(report.table_by_corpus(size, tables), flush=True)
            print(flush=True)
    return 1 if failed else 0


def _notes(result: dict[str, Any], kind: str, out: Path) -> bool:
    """Print a run's warnings, errors and load; True when an engine phase failed."""
    for k in ("window_seeds", "window"):
        if "error" in result.get(k, {}):
            print(f"  [{kind}] window n/a ({k}): {result[k]['error']}", flush=True)
    for engine in ENGINES:
        search = result.get(engine, {}).get("search", {})
        if search.get("engine_errors"):
            samples = "; ".join(search.get("engine_error_samples", []))
            print(
                f"  [{kind}] WARNING: {engine} logged {search['engine_errors']} errors while searching:"
                f" {samples}"
            )
    errors = _errors(result)
    for e in errors:
        print(f"  [{kind}] error: {e}", flush=True)
    load = "/".join(f"{x:.1f}" for x in result["machine"]["loadavg"])
    print(f"  [{kind}] load average at start {load} on {result['machine']['cpus']} CPUs", flush=True)
    print(f"  [{kind}] ({result['run_seconds']} s; JSON: {out})", flush=True)
    return bool(errors)


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
