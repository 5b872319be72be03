"""Whole-process wall time of desk commands (a CLI command within 0.2 s at 10k).

Runs each command ``--runs`` times as its own process (as a shell or a script would), after one
warm-up run, and reports p50/p95/max of the wall time, like ``hyperfine`` does.

Usage: ``python bench/cli_start.py --library DIR [--runs 20] [--json] [--python PYTHON]``; the
library should be imported first (e.g. ``python bench/realcorpus.py --size 10000 --out F && desk
--library DIR import F``).
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

COMMANDS = (
    ("stats",),
    ("search", "diffusion model"),
    ("list", "--json"),
    ("show", "1", "--json"),
    ("star", "1"),  # a write (after the first run the star is already set: the open and the check)
    # Writes that change something every run ({n}: the run's number): a new tag on a paper, a
    # note (indexed text: its commit to the index is part of the command).
    ("tag", "1", "bench {n}"),
    ("note", "1", "--set", "Read with the group, run {n}."),
)


def measure(
    library: Path, command: tuple[str, ...], runs: int, python: str = sys.executable
) -> dict[str, float]:
    """p50/p95/max wall seconds of ``desk COMMAND --library LIBRARY`` over ``runs`` processes."""
    stamp = f"{os.getpid()}-{time.time_ns()}"  # {n} differs from every earlier run's too

    def argv(n: int) -> list[str]:
        words = [word.replace("{n}", f"{stamp}-{n}") for word in command]
        return [python, "-m", "desk", "--library", str(library), *words]

    # Bytecode cached as an installed desk has it (PYTHONDONTWRITEBYTECODE would compile every run).
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["DESK_LIBRARY"] = str(library)
    # The library as the working folder: `python -m desk` finds desk where --python has it
    # installed, not in a checkout it is run from. One warm-up run: the page cache.
    subprocess.run(argv(0), capture_output=True, check=True, env=env, cwd=library)
    times: list[float] = []
    cpu: list[float] = []
    for n in range(1, runs + 1):
        before = os.times()
        started = time.perf_counter()
        subprocess.run(
            argv(n), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True, env=env, cwd=library
        )
        times.append(time.perf_counter() - started)
        after = os.times()
        cpu.append(sum(after[2:4]) - sum(before[2:4]))  # the child's user + system time
    times.sort()
    p95 = times[min(len(times) - 1, round(0.95 * (len(times) - 1)))]
    return {"p50": statistics.median(times), "p95": p95, "max": times[-1], "cpu_p50": statistics.median(cpu)}


def measure_all(library: Path, runs: int, python: str = sys.executable) -> dict[str, dict[str, float]]:
    """Every command of COMMANDS measured on library, by its words ("list --json")."""
    return {" ".join(c): measure(library, c, runs, python) for c in COMMANDS}


def main(argv: list[str] | None = None) -> int:
    """Measure each command and print a table (or one JSON object)."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--library", type=Path, required=True)
    p.add_argument("--runs", type=int, default=20)
    p.add_argument("--json", action="store_true")
    p.add_argument(
        "--python",
        default=sys.executable,
        help="the interpreter of the desk to measure: an installed one's (pipx, uv, a venv with"
        " `pip install .`) has no editable-install finder to go through at every import",
    )
    args = p.parse_args(argv)
    out = measure_all(args.library, args.runs, args.python)
    load = os.getloadavg()[0]
    if args.json:
        print(json.dumps({"commands": out, "load": load}))
    else:
        print(f"whole-process wall time over {args.runs} runs (load {load:.2f})")
        for name, t in out.items():
            print(
                f"  desk {name:<24} p50 {t['p50'] * 1000:6.0f} ms  p95 {t['p95'] * 1000:6.0f} ms"
                f"  (CPU p50 {t['cpu_p50'] * 1000:4.0f} ms)"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
