"""Import + index alone, beside FTS5, and before/after: import rate on one corpus.

    python bench/import_ab.py --corpora real --size 10000 --reps 3
    python bench/import_ab.py --size 10000 --reps 3 --old /tmp/base   # another checkout, interleaved

Each repetition imports the corpus into a fresh folder with ``worker.py import`` (the runner's
own import phase, one process per engine) for desk, for the ``--old`` checkout's desk when given
(``PYTHONPATH`` at it, so its worker processes load it too) and for FTS5, one after the other,
so a load from other processes weighs on all of them alike. Per run: abstracts per second, CPU
seconds of the process and its worker processes (user + system, ``getrusage`` of the finished
children), and the load average before it. Prints the median per engine, and the JSON of every
run with ``--json FILE``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

import run

HERE = Path(__file__).resolve().parent


def import_once(
    engine: str, corpus: Path, target: Path, checkout: Path | None, timeout: float
) -> dict[str, Any]:
    """One ``worker.py import`` in a fresh process: its JSON plus the load before it and its CPU."""
    shutil.rmtree(target, ignore_errors=True)
    env = dict(os.environ)
    if checkout is not None:
        env["PYTHONPATH"] = str(checkout)
    load = os.getloadavg()[0]
    cmd = [sys.executable, str(HERE / "worker.py"), "import", "--engine", engine]
    cmd += ["--corpus", str(corpus), "--target", str(target)]
    before = os.times()
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=HERE, env=env)
    after = os.times()
    lines = proc.stdout.strip().splitlines()
    if proc.returncode != 0 or not lines:
        return {"error": " | ".join(proc.stderr.strip().splitlines()[-4:]), "load": load}
    result: dict[str, Any] = json.loads(lines[-1])
    result["load"] = load
    # The whole process tree, start-up included (worker.py's own figure starts at the import).
    result["process_cpu_seconds"] = (after.children_user - before.children_user) + (
        after.children_system - before.children_system
    )
    shutil.rmtree(target, ignore_errors=True)
    return result


def main(argv: list[str] | None = None) -> int:
    """CLI entry point."""
    p = argparse.ArgumentParser(description="import + index only: desk (and an older desk) beside FTS5")
    p.add_argument("--corpus", choices=run.CORPORA, default="real")
    p.add_argument("--size", type=int, default=10_000)
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--old", type=Path, help="another checkout (its folder holding desk/), run interleaved")
    p.add_argument("--no-fts", action="store_true", help="leave FTS5 out")
    p.add_argument("--work", type=Path, default=Path("/tmp/desk-bench"), help="corpora and libraries")
    p.add_argument("--timeout", type=float, default=1800.0)
    p.add_argument("--json", type=Path, help="write every run's figures here")
    args = p.parse_args(argv)
    args.work.mkdir(parents=True, exist_ok=True)
    corpus = run.ensure_corpus(args.work, args.size, args.seed, args.corpus) / "files"
    engines: list[tuple[str, str, Path | None]] = [("desk", "desk", None)]
    if args.old is not None:
        engines.append(("desk-old", "desk", args.old.resolve()))
    if not args.no_fts:
        engines.append(("fts5", "fts5", None))
    runs: dict[str, list[dict[str, Any]]] = {label: [] for label, _, _ in engines}
    for rep in range(args.reps):
        for label, engine, checkout in engines:
            target = args.work / f"import-ab-{label}"
            result = import_once(engine, corpus, target, checkout, args.timeout)
            runs[label].append(result)
            print(f"rep {rep + 1} {label}: {_line(result)}", file=sys.stderr, flush=True)
    print(f"{args.corpus} {args.size}, {args.reps} runs each, medians:")
    for label, results in runs.items():
        good = [r for r in results if "error" not in r]
        if not good:
            print(f"  {label}: failed ({results[-1].get('error')})")
            continue
        print(f"  {label}: " + _line({k: statistics.median(r[k] for r in good) for k in _FIGURES}))
    if args.json is not None:
        args.json.write_text(json.dumps({"corpus": args.corpus, "size": args.size, "runs": runs}, indent=1))
    return 0


_FIGURES = ("rate", "seconds", "cpu_seconds", "process_cpu_seconds", "cores_busy", "load")


def _line(result: dict[str, Any]) -> str:
    if "error" in result:
        return f"error: {result['error']}"
    return (
        f"{result['rate']:,.0f}/s, {result['seconds']:.2f} s, CPU {result['cpu_seconds']:.2f} s in the "
        f"import ({result['process_cpu_seconds']:.2f} s whole process), "
        f"cores busy {result['cores_busy']:.2f}, load {result['load']:.1f}"
    )


if __name__ == "__main__":
    sys.exit(main())
