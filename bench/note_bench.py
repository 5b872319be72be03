"""The "note → searchable" and "star → searchable" in the window's Library, on one library.

The runner's own measure (``worker._until`` over ``engines.DeskEngine``: the change made through
``Library``, then ``note:WORD`` / ``is:starred`` searched until the paper is found), repeated
``--trials`` times on one library, with the load average and this process's CPU time beside:

    python bench/note_bench.py --library /tmp/lib-100k --trials 20 [--profile out.prof]

Every trial writes a new note (a word never used before), as a user's typing does; each star is
taken off again after its trial. The library is changed (notes written): run it on a copy, the
same history on both sides of a comparison.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from engines import DeskEngine
from stats import cpu_seconds, summary
from worker import _until


def measure(
    library: Path, trials: int, profile: Path | None = None, fold_inline: bool = False
) -> dict[str, object]:
    """p50/p95/max ms of note → searchable and star → searchable over ``trials`` papers each.

    As the window does, edits commit without folding earlier edits' small segments and the fold
    runs in the pause after each one (``Library.fold_edits``, not timed); ``fold_inline``: each
    edit's commit folds them itself, as a one-shot command's does.
    """
    engine = DeskEngine(library, per_file=5000, defer_folds=not fold_inline)
    try:
        engine.search("diffusion model")  # the window has searched before the first note
        ids = engine.some_ids(trials)
        base = time.time_ns() % 1_000_000  # words no earlier run of this script used
        folded = 0
        profiler = cProfile.Profile() if profile else None
        cpu = cpu_seconds()
        if profiler:
            profiler.enable()
        notes = []
        for k, paper in enumerate(ids):
            engine.view(paper)  # the window shows a paper before its note can be typed
            notes.append(_until(engine, "note", paper, base + k))
            folded += engine.lib.fold_edits()  # the window's idle moment after an edit
        if profiler:
            profiler.disable()
        note_cpu = cpu_seconds() - cpu
        stars = []
        for k, paper in enumerate(ids):
            engine.view(paper)
            stars.append(_until(engine, "star", paper, base + k))
            engine.lib.set_starred([paper], False)  # so that is:starred's top 50 holds the next one
            folded += engine.lib.fold_edits()
        if profiler and profile:
            profiler.dump_stats(str(profile))
    finally:
        engine.close()
    return {
        "library": str(library),
        "open_ms": engine.open_ms,
        "rehearse_ms": engine.rehearse_ms,  # after the first search, as the window after its first results
        "note_to_searchable_ms": summary(notes),
        "note_cpu_ms_each": note_cpu * 1000 / max(1, len(notes)),
        "star_to_searchable_ms": summary(stars),
        "notes_ms": [round(n, 1) for n in notes],
        "folds": "inline" if fold_inline else "deferred",
        "papers_folded_after_edits": folded,
        "load": os.getloadavg(),
    }


def main(argv: list[str] | None = None) -> int:
    """CLI entry point: print the figures as JSON."""
    p = argparse.ArgumentParser(description="note/star → searchable in the Library, on one library")
    p.add_argument("--library", type=Path, required=True)
    p.add_argument("--trials", type=int, default=20)
    p.add_argument("--profile", type=Path, help="write a cProfile of the notes here")
    p.add_argument("--fold-inline", action="store_true", help="each edit's commit folds (a command's way)")
    args = p.parse_args(argv)
    print(json.dumps(measure(args.library, args.trials, args.profile, args.fold_inline), indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
