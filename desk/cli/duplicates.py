"""Near-duplicate commands: dupes, merge, distinct, unmerge."""

from __future__ import annotations

import argparse

from desk.cli.commands import json_flag, opened, paper_id
from desk.cli.output import emit_json, say, summary_line


def dupes_args(p: argparse.ArgumentParser) -> None:
    json_flag(p)


def run_dupes(args: argparse.Namespace) -> int:
    """desk dupes"""
    with opened(args) as lib:
        groups = lib.near_duplicates()
        if args.json:
            found = [{"ids": list(g.ids), "similarity": round(g.similarity, 4)} for g in groups]
            emit_json({"groups": found})
            return 0
        if not groups:
            say("No near-duplicates to review.")
        for g in groups:
            kind = "same text after cleanup" if g.exact_after_cleanup else f"{g.similarity:.0%} alike"
            say(f"{' '.join(map(str, g.ids))}  ({kind})")
            for p in lib.summaries(list(g.ids)).values():
                say(f"  {summary_line(p)}")
    return 0


def merge_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("keep", metavar="KEEP_ID", type=paper_id, help="the paper to keep")
    p.add_argument("others", metavar="OTHER_ID", type=paper_id, nargs="+", help="papers folded into it")


def run_merge(args: argparse.Namespace) -> int:
    """desk merge KEEP_ID OTHER_ID..."""
    with opened(args) as lib:
        lib.merge(args.keep, args.others)
        say(f"Merged {', '.join(map(str, args.others))} into {args.keep} (undo: desk unmerge {args.keep})")
    return 0


def distinct_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("a", metavar="ID", type=paper_id)
    p.add_argument("b", metavar="ID", type=paper_id)


def run_distinct(args: argparse.Namespace) -> int:
    """desk distinct ID ID"""
    with opened(args) as lib:
        lib.mark_distinct(args.a, args.b)
    return 0


def unmerge_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("id", metavar="ID", type=paper_id, help="the kept paper, or one merged into it")


def run_unmerge(args: argparse.Namespace) -> int:
    """desk unmerge ID"""
    with opened(args) as lib:
        restored = lib.unmerge(args.id)
        say(f"Brought back {', '.join(map(str, restored))}")
    return 0
