"""Commands for removing what you don't want: delete, remove-list, trash, restore-paper, empty-trash."""

from __future__ import annotations

import argparse
import sys

from desk.cli.commands import json_flag, opened, paper_id
from desk.cli.output import emit_json, say, summary_json, summary_line, warn


def _confirmed(question: str, yes: bool) -> bool | None:
    """True to go on; False when the person said no; None when no one can be asked (no terminal)."""
    if yes:
        return True
    if not sys.stdin.isatty():
        return None
    sys.stderr.write(f"{question} [y/N] ")
    sys.stderr.flush()
    answer = sys.stdin.readline().strip().lower()
    return answer in ("y", "yes")


def _refused(asked: bool | None, what: str) -> int:
    if asked is None:
        warn(f"desk: {what}; give --yes to go ahead")
    else:
        warn("desk: nothing was changed")
    return 1


def _yes_flag(p: argparse.ArgumentParser) -> None:
    p.add_argument("--yes", action="store_true", help="do not ask first")


def delete_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("ids", metavar="ID", type=paper_id, nargs="+", help="paper id")
    _yes_flag(p)


def run_delete(args: argparse.Namespace) -> int:
    """desk delete ID... [--yes]"""
    with opened(args) as lib:
        noted = lib.trash.papers_with_notes(args.ids)
        if noted:
            which = ", ".join(map(str, noted))
            asked = _confirmed(
                f"Paper(s) {which} have a note, which goes to the trash with them. Delete?", args.yes
            )
            if not asked:
                return _refused(asked, f"paper(s) {which} have a note")
        gone = lib.trash.delete(args.ids)
    say(f"Moved {len(gone)} paper(s) to the trash (desk undo, or desk restore-paper ID, brings them back)")
    return 0


def remove_list_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("target", metavar="FILE|COLLECTION", help="an imported file's name, or a collection")
    _yes_flag(p)


def run_remove_list(args: argparse.Namespace) -> int:
    """desk remove-list FILE|COLLECTION [--yes]"""
    with opened(args) as lib:
        plan = lib.trash.list_removal(args.target)
        if plan.with_notes:
            which = ", ".join(map(str, plan.with_notes))
            question = (
                f"Paper(s) {which} of this list have a note, which goes to the trash with them. Remove?"
            )
            asked = _confirmed(question, args.yes)
            if not asked:
                return _refused(asked, f"paper(s) {which} of this list have a note")
        done = lib.trash.remove_list(args.target)
    say(
        f"Removed {', '.join(done.files)}: {len(done.trashed)} paper(s) to the trash"
        + (f", {len(done.kept)} kept (also in another list)" if done.kept else "")
        + "; the file can be imported again"
    )
    return 0


def trash_args(p: argparse.ArgumentParser) -> None:
    json_flag(p)


def run_trash(args: argparse.Namespace) -> int:
    """desk trash"""
    with opened(args) as lib:
        found = lib.trash.papers()
    if args.json:
        emit_json({"papers": [summary_json(t.paper) for t in found]})
        return 0
    if not found:
        say("The trash is empty.")
    for t in found:
        why = f"  (with {t.removed_with})" if t.removed_with else ""
        say(f"{summary_line(t.paper)}{why}")
    return 0


def restore_paper_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("ids", metavar="ID", type=paper_id, nargs="+", help="id of a paper in the trash")


def run_restore_paper(args: argparse.Namespace) -> int:
    """desk restore-paper ID..."""
    with opened(args) as lib:
        back = lib.trash.restore(args.ids)
    folded = [i for i in back if i not in set(args.ids)]
    say(
        f"Restored {len(back)} paper(s)"
        + (f"; imported again since, now paper(s) {folded}" if folded else "")
    )
    return 0


def empty_trash_args(p: argparse.ArgumentParser) -> None:
    _yes_flag(p)


def run_empty_trash(args: argparse.Namespace) -> int:
    """desk empty-trash [--yes]"""
    with opened(args) as lib:
        held = len(lib.trash.papers())
        if not held:
            say("The trash is already empty.")
            return 0
        asked = _confirmed(
            f"Delete the {held} paper(s) in the trash for good? This cannot be undone.", args.yes
        )
        if not asked:
            return _refused(asked, "emptying the trash cannot be undone")
        gone = lib.trash.empty()
    say(f"Deleted {gone} paper(s) for good")
    return 0
