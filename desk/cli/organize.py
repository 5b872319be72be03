"""Commands for working through papers: tags, saved searches, undo and redo."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from desk.cli.commands import json_flag, opened, reading, writing_quickly
from desk.cli.output import emit_json, say, warn

if TYPE_CHECKING:
    from desk.core.records.detail import TagChange


class _TagArguments(argparse.Action):
    """``ID... NAME``: the last word is the tag, every one before it a paper id."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: object,
        _opt: object = None,
    ) -> None:
        words = list(values) if isinstance(values, list) else []
        if len(words) < 2:
            parser.error("give one or more paper ids, then the tag's name")
        try:
            ids = [int(w) for w in words[:-1]]
        except ValueError:
            parser.error("paper ids are numbers; the tag's name comes last (quote it when it has spaces)")
        namespace.ids, namespace.name = ids, words[-1]


def tag_args(p: argparse.ArgumentParser) -> None:
    p.usage = "%(prog)s ID... NAME"
    p.add_argument(
        "words", metavar="ID... NAME", nargs="+", action=_TagArguments, help="paper ids, then the tag"
    )


def _what(ids: tuple[int, ...]) -> str:
    return f"{len(ids)} paper(s)" if len(ids) != 1 else f"paper {ids[0]}"


def _tagged(args: argparse.Namespace, *, add: bool) -> TagChange:
    """Tag or untag: the edit's statements on plain SQLite when the index is current, else the Library."""
    with writing_quickly(args) as writer:
        if writer is not None:
            from desk.core.edits import statements
            from desk.core.records.detail import TagChange

            edit = statements.set_tag(writer.connection, args.ids, args.name, add)
            if edit.changed:
                statements.record_step(writer.connection, *statements.tag_step(edit))
            return TagChange(edit.name, edit.changed if add else (), () if add else edit.changed)
    with opened(args) as lib:
        return lib.tags.add(args.ids, args.name) if add else lib.tags.remove(args.ids, args.name)


def run_tag(args: argparse.Namespace) -> int:
    """desk tag ID... NAME"""
    change = _tagged(args, add=True)
    skipped = len(set(args.ids)) - len(change.added)
    say(f"Tagged {_what(change.added)} “{change.name}”" + (f" ({skipped} had it already)" if skipped else ""))
    return 0


def run_untag(args: argparse.Namespace) -> int:
    """desk untag ID... NAME"""
    change = _tagged(args, add=False)
    skipped = len(set(args.ids)) - len(change.removed)
    say(
        f"Untagged {_what(change.removed)} “{change.name}”"
        + (f" ({skipped} did not have it)" if skipped else "")
    )
    return 0


def tags_args(p: argparse.ArgumentParser) -> None:
    json_flag(p)


def run_tags(args: argparse.Namespace) -> int:
    """desk tags"""
    from desk.core.library.quick import QuickLibrary

    with reading(args) as lib:
        found = lib.tag_counts() if isinstance(lib, QuickLibrary) else lib.tags.counts()
    if args.json:
        emit_json({"tags": [{"name": t.name, "count": t.count} for t in found]})
        return 0
    if not found:
        say("No tags yet (desk tag ID... NAME adds one).")
    for n, t in enumerate(found, start=1):
        key = f"{n}" if n <= 9 else " "
        say(f"{key} {t.count:>6}  {t.name}")
    return 0


def saved_args(p: argparse.ArgumentParser) -> None:
    json_flag(p)


def run_saved(args: argparse.Namespace) -> int:
    """desk saved"""
    with opened(args) as lib:
        found = lib.saved_searches.all()
        totals = [lib.search_ids(s.query, limit=0).total for s in found]
    if args.json:
        items = [{"name": s.name, "query": s.query, "count": n} for s, n in zip(found, totals, strict=True)]
        emit_json({"saved": items})
        return 0
    if not found:
        say("No saved searches (desk save-search NAME QUERY adds one).")
    for s, n in zip(found, totals, strict=True):
        say(f"{n:>6}  {s.name}: {s.query}")
    return 0


def save_search_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("name", metavar="NAME")
    p.add_argument("query", metavar="QUERY")


def run_save_search(args: argparse.Namespace) -> int:
    """desk save-search NAME QUERY"""
    with opened(args) as lib:
        lib.saved_searches.save(args.name, args.query)
        total = lib.search_ids(args.query, limit=0).total
    say(f"Saved “{args.name}”: {args.query} ({total} paper(s) now)")
    return 0


def _history_step(args: argparse.Namespace, backwards: bool) -> int:
    with opened(args) as lib:
        done = lib.history.undo() if backwards else lib.history.redo()
    if done is None:
        warn(f"desk: nothing to {'undo' if backwards else 'redo'}")
        return 1
    say(done.description)
    return 0


def run_undo(args: argparse.Namespace) -> int:
    """desk undo"""
    return _history_step(args, True)


def run_redo(args: argparse.Namespace) -> int:
    """desk redo"""
    return _history_step(args, False)
