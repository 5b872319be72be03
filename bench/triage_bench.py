"""Triage speed figures: a tag or star on 1,000 papers → searchable, and tag:/saved filters.

Needs a library of real text (bench/realcorpus.py, imported with `desk import`); the library is
upgraded in place if it is older. Times are wall clock in this process, from the call that
changes the papers to a search that returns all of them (the database commit, the index flush
for stars, and the search itself).

    python bench/realcorpus.py --size 100000 --out /tmp/real-100k
    desk --library /tmp/lib-100k import /tmp/real-100k
    python bench/triage_bench.py --library /tmp/lib-100k --reps 5

A library being worked through has papers read and starred: ``--read-share`` of the papers
are marked read and ``--star-share`` starred (in one step each, undone at the end) before the
filters are timed, so ``is:unread`` and ``is:starred`` carry realistic sets. Toggling (the
window's digit keys, ``toggle_tag``) is timed beside tag and untag. Figures carry the machine's
load average and this process's CPU time beside wall time (the machine may be shared).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import time
from pathlib import Path

from desk.core.library.facade import Library

QUERIES = (
    "tag:bench",
    "is:unread",
    "tag:bench is:unread",
    "tag:bench segmentation",
    "tag:bench is:unread diffusion model",
    '-tag:bench "point cloud"',
    "has:tag transformer",
    "tag:bench OR is:starred",
)


def _p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def _until_searchable(lib: Library, query: str, want: int) -> None:
    """Search once: ``query`` must find ``want`` papers at the first try (no polling)."""
    total = lib.search_ids(query, limit=50).total
    if total != want:
        raise SystemExit(f"{query!r} found {total}, expected {want}")


def measure(lib: Library, reps: int, size: int, starred: frozenset[int] = frozenset()) -> dict[str, object]:
    """The figures on an open library whose ``starred`` papers are the only ones starred."""
    rng = random.Random(15)
    ids = [i for i in lib.paper_ids() if i not in starred]
    out: dict[str, object] = {"papers": len(ids), "selection": size}
    timings: dict[str, list[float]] = {
        "tag": [], "untag": [], "toggle_on": [], "toggle_off": [], "star": [], "unstar": []
    }  # fmt: skip
    for _ in range(reps):
        chosen = rng.sample(ids, size)
        for label, change, query, want in (
            ("tag", lambda c=chosen: lib.tags.add(c, "bench"), "tag:bench", size),
            ("untag", lambda c=chosen: lib.tags.remove(c, "bench"), "tag:bench", 0),
            ("toggle_on", lambda c=chosen: lib.tags.toggle(c, "bench"), "tag:bench", size),
            ("toggle_off", lambda c=chosen: lib.tags.toggle(c, "bench"), "tag:bench", 0),
            ("star", lambda c=chosen: lib.set_starred(c, True), "is:starred", len(starred) + size),
            ("unstar", lambda c=chosen: lib.set_starred(c, False), "is:starred", len(starred)),
        ):
            started = time.perf_counter()
            change()
            _until_searchable(lib, query, want)
            timings[label].append(time.perf_counter() - started)
    out["to_searchable_s"] = {k: {"median": statistics.median(v), "max": max(v)} for k, v in timings.items()}
    lib.tags.add(rng.sample(ids, size), "bench")
    lib.saved_searches.save("bench unread", "tag:bench is:unread")
    lib.saved_searches.save("bench diffusion", "tag:bench diffusion")
    search_ms: dict[str, dict[str, float]] = {}
    every: list[float] = []
    cpu_started = time.process_time()
    for query in (*QUERIES, 'saved:"bench unread"', 'saved:"bench diffusion" model'):
        lib.search(query, limit=50)  # warm
        walls = []
        for _ in range(max(5, reps * 4)):
            started = time.perf_counter()
            lib.search(query, limit=50)
            walls.append((time.perf_counter() - started) * 1000)
        search_ms[query] = {"median": statistics.median(walls), "p95": _p95(walls)}
        every += walls
    out["search_ms"] = search_ms
    out["search_ms_all"] = {"median": statistics.median(every), "p95": _p95(every), "n": len(every)}
    out["search_cpu_ms_mean"] = (time.process_time() - cpu_started) * 1000 / (len(every) + len(search_ms))
    started = time.perf_counter()
    lib.saved_searches.all()  # the sidebar's counts
    out["saved_searches_counted_ms"] = (time.perf_counter() - started) * 1000
    for sort in ("title", "collection", "recent", "starred"):
        started = time.perf_counter()
        lib.search("tag:bench", limit=50, sort=sort)
        out[f"sorted_by_{sort}_ms"] = (time.perf_counter() - started) * 1000
    undo_started = time.perf_counter()
    lib.history.undo()  # the saved searches
    lib.history.undo()
    lib.history.undo()  # the tag on 1,000
    out["undo_tag_1000_s"] = time.perf_counter() - undo_started
    return out


def main(argv: list[str] | None = None) -> int:
    """Open (upgrading if needed) the library and print the figures as JSON."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--library", type=Path, required=True)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--size", type=int, default=1000)
    ap.add_argument("--read-share", type=float, default=0.3, help="papers marked read first")
    ap.add_argument("--star-share", type=float, default=0.02, help="papers starred first")
    ap.add_argument("--out", type=Path, default=None, help="also write the JSON here")
    args = ap.parse_args(argv)
    started = time.perf_counter()
    with Library(args.library) as lib:
        opened = time.perf_counter() - started
        rng = random.Random(7)
        ids = lib.paper_ids()
        read = rng.sample(ids, int(len(ids) * args.read_share))
        starred = rng.sample(ids, int(len(ids) * args.star_share))
        lib.set_read(read, True)
        lib.set_starred(starred, True)
        figures: dict[str, object] = {
            "open_s": opened, "load_before": os.getloadavg(), "read": len(read), "starred": len(starred)
        }  # fmt: skip
        figures |= measure(lib, args.reps, args.size, frozenset(starred))
        figures["load_after"] = os.getloadavg()
        lib.set_starred(starred, False)  # as it was
        lib.set_read(read, False)
    text = json.dumps(figures, indent=2)
    print(text)
    if args.out is not None:
        args.out.write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
