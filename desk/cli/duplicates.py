"""Near-duplicate commands: dupes, merge (one group, or every group of a kind), distinct, unmerge."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from desk.cli.commands import json_flag, opened, paper_id, progress_printer
from desk.cli.output import emit_json, say, summary_line, warn

if TYPE_CHECKING:  # the detector (numpy, MinHash) loads only when a duplicates command runs
    from desk.core.dedup import Candidate
    from desk.core.edits.merge_plan import PlannedMerge

#: merge_plan.MERGEABLE_KINDS, named here so that building the parser loads no detector.
MERGE_KINDS = ("exact", "truncation")


def dupes_args(p: argparse.ArgumentParser) -> None:
    json_flag(p)


def group_json(g: Candidate) -> dict[str, Any]:
    """A group as `desk dupes --json` gives it: what it is and each link that holds it."""
    from desk.core.dedup import describe_group, describe_link

    return {
        "ids": list(g.ids),
        "similarity": round(g.similarity, 4),
        "kind": g.kind,
        "containment": round(g.containment, 4),
        "description": describe_group(g),
        "pairs": [
            {
                "ids": [link.a, link.b],
                "kind": link.match.kind,
                "similarity": round(link.match.similarity, 4),
                "containment": round(link.match.containment, 4),
                "description": describe_link(link.a, link.b, link.match),
            }
            for link in g.links
        ],
    }


def run_dupes(args: argparse.Namespace) -> int:
    """desk dupes"""
    from desk.core.dedup import describe_group

    with opened(args) as lib:
        groups = lib.duplicates.groups(progress_printer("Near-duplicates", ""))
        if args.json:
            emit_json({"groups": [group_json(g) for g in groups]})
            return 0
        if not groups:
            say("No near-duplicates to review.")
        for g in groups:
            say(f"{' '.join(map(str, g.ids))}  ({g.kind}: {describe_group(g)})")
            for p in lib.summaries(list(g.ids)).values():
                say(f"  {summary_line(p)}")
    return 0


def merge_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("keep", metavar="KEEP_ID", type=paper_id, nargs="?", help="the paper to keep")
    p.add_argument("others", metavar="OTHER_ID", type=paper_id, nargs="*", help="papers folded into it")
    p.add_argument(
        "--all-kind",
        choices=MERGE_KINDS,
        help="merge every group of this kind, each into its longest text (see --preview)",
    )
    p.add_argument("--preview", action="store_true", help="with --all-kind: show the merges, make none")
    p.add_argument("--yes", action="store_true", help="with --all-kind: merge without asking")


def _show_plan(planned: list[PlannedMerge]) -> None:
    for step in planned:
        say(f"keep {step.keep} <- {' '.join(map(str, step.others))}  ({step.description})")


def run_merge(args: argparse.Namespace) -> int:
    """desk merge KEEP_ID OTHER_ID... | desk merge --all-kind KIND [--preview | --yes]"""
    if args.all_kind is None:
        if args.keep is None or not args.others or args.preview or args.yes:
            warn("desk merge: give KEEP_ID OTHER_ID..., or --all-kind KIND [--preview | --yes]")
            return 2
        with opened(args) as lib:
            lib.duplicates.merge(args.keep, args.others)
            say(
                f"Merged {', '.join(map(str, args.others))} into {args.keep} (undo: desk unmerge {args.keep})"
            )
        return 0
    if args.keep is not None:
        warn("desk merge: --all-kind takes no ids")
        return 2
    with opened(args) as lib:
        planned = lib.duplicates.plan(args.all_kind)
        if not planned:
            say(f"No {args.all_kind} groups to merge.")
            return 0
        _show_plan(planned)
        papers = sum(len(step.others) for step in planned)
        if args.preview:
            say(f"{len(planned)} merges would fold {papers} papers (nothing changed; --yes merges them)")
            return 0
        if not args.yes:
            if not sys.stdin.isatty():
                warn("desk: nothing merged: add --yes to merge these, or --preview to only list them")
                return 1
            answer = input(f"Merge these {len(planned)} groups ({papers} papers)? [y/N] ")
            if answer.strip().lower() not in ("y", "yes"):
                say("Nothing merged.")
                return 1
        done = lib.duplicates.merge_all(args.all_kind)
        say(f"Merged {sum(len(s.others) for s in done)} papers in {len(done)} groups (undo: desk unmerge ID)")
    return 0


def distinct_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("a", metavar="ID", type=paper_id)
    p.add_argument("b", metavar="ID", type=paper_id)
    p.add_argument("--undo", action="store_true", help='take back "not a duplicate" for the two papers')


def run_distinct(args: argparse.Namespace) -> int:
    """desk distinct ID ID [--undo]"""
    with opened(args) as lib:
        if args.undo:
            lib.duplicates.unmark_distinct(args.a, args.b)
            say(f"{args.a} and {args.b} can be offered as duplicates again")
        else:
            lib.duplicates.mark_distinct(args.a, args.b)
    return 0


def unmerge_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("id", metavar="ID", type=paper_id, help="the kept paper, or one merged into it")


def run_unmerge(args: argparse.Namespace) -> int:
    """desk unmerge ID"""
    with opened(args) as lib:
        restored = lib.duplicates.unmerge(args.id)
        say(f"Brought back {', '.join(map(str, restored))}")
    return 0
