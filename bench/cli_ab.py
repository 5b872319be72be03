"""Before/after of whole-process desk commands: two checkouts, each on its own copy of a library.

The two sides run interleaved, run by run (old, new, then new, old, ...), so a shared machine's
load weighs on both alike; each side's child CPU time is reported beside the wall time. The
commands are bench/cli_start.py's. A side's code is imported from its checkout even where an
editable install of desk points elsewhere.

Usage: ``python bench/cli_ab.py --old CHECKOUT LIBRARY --new CHECKOUT LIBRARY [--runs 11]
[--old-env NAME=VALUE] [--new-env NAME=VALUE] [COMMAND ...]`` (e.g. ``search note``: only those);
the libraries should be copies of one build. ``--old-env``/``--new-env`` set a variable for one
side (one checkout, two settings: ``--old-env DESK_SENTENCE_ENCODER=0`` against the encoder on).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from cli_start import COMMANDS

BOOT = (
    "import sys; sys.meta_path = [f for f in sys.meta_path if 'editable' not in str(f)]; "
    "sys.path.insert(0, {code!r}); sys.argv = ['desk'] + {argv!r}; import desk; "
    "assert desk.__file__.startswith({code!r}), desk.__file__; "
    "from desk.cli.main import entry; entry()"
)


def run(code: Path, argv: list[str], extra: dict[str, str] | None = None) -> tuple[float, float]:
    """(wall seconds, child CPU seconds) of one desk command run from checkout ``code``."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"} | (extra or {})
    started = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-c", BOOT.format(code=str(code), argv=argv)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=env,
    )
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - started
    assert proc.stderr is not None
    err = proc.stderr.read().decode("utf-8", "replace")
    proc.stderr.close()
    if status != 0:
        raise SystemExit(f"desk {' '.join(argv)} from {code} failed: {err[-500:]}")
    return wall, usage.ru_utime + usage.ru_stime


def main(argv: list[str] | None = None) -> int:
    """Measure each command on both sides and print one line per command."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--old", nargs=2, type=Path, metavar=("CHECKOUT", "LIBRARY"), required=True)
    p.add_argument("--new", nargs=2, type=Path, metavar=("CHECKOUT", "LIBRARY"), required=True)
    p.add_argument("--runs", type=int, default=11)
    p.add_argument("--old-env", action="append", default=[], metavar="NAME=VALUE")
    p.add_argument("--new-env", action="append", default=[], metavar="NAME=VALUE")
    p.add_argument("commands", nargs="*", help="command names to run (default: all)")
    args = p.parse_args(argv)
    sides = {"old": args.old, "new": args.new}
    envs = {
        side: dict(pair.split("=", 1) for pair in pairs)
        for side, pairs in (("old", args.old_env), ("new", args.new_env))
    }
    stamp = time.time_ns()
    print(f"load {os.getloadavg()[0]:.2f}", flush=True)
    for command in COMMANDS:
        if args.commands and command[0] not in args.commands:
            continue
        times: dict[str, tuple[list[float], list[float]]] = {side: ([], []) for side in sides}

        def once(side: str, n: int, command: tuple[str, ...] = command) -> tuple[float, float]:
            code, library = sides[side]
            words = [w.replace("{n}", f"{stamp}-{side}-{n}") for w in command]
            return run(code, ["--library", str(library), *words], envs[side])

        for side in sides:
            once(side, 0)  # warm-up: the page cache
        for n in range(1, args.runs + 1):
            for side in ("old", "new") if n % 2 else ("new", "old"):
                wall, cpu = once(side, n)
                times[side][0].append(wall)
                times[side][1].append(cpu)
        line = f"  desk {' '.join(command)[:30]:<30}"
        for side, (walls, cpus) in times.items():
            walls.sort()
            p95 = walls[min(len(walls) - 1, round(0.95 * (len(walls) - 1)))]
            line += (
                f" | {side} p50 {statistics.median(walls) * 1000:5.0f} p95 {p95 * 1000:5.0f}"
                f" CPU {statistics.median(cpus) * 1000:4.0f}"
            )
        print(f"{line} (load {os.getloadavg()[0]:.2f})", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
