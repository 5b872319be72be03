"""Library upkeep: reindex, check, backup, restore, install-desktop."""

from __future__ import annotations

import argparse
from pathlib import Path

from desk.cli.commands import opened, progress_printer
from desk.cli.output import say, warn
from desk.core.runtime.paths import resolve_library_dir


def run_reindex(args: argparse.Namespace) -> int:
    """desk reindex"""
    with opened(args) as lib:
        lib.reindex(progress_printer("Rebuilding the search index"))
        say(f"Rebuilt the search index: {lib.count()} papers")
    return 0


def run_check(args: argparse.Namespace) -> int:
    """desk check"""
    with opened(args, full_check=True) as lib:  # the open's own full check, then every byte
        problems = lib.check()
        count = lib.count()
        repaired = lib.discovery.vectors_repaired
        mended = lib.listing_mended
        unwritable = lib.discovery.vectors_unwritable
        encoding = lib.discovery.encoding_elsewhere
    if repaired:
        warn(f"desk: the semantic vectors were {repaired}")
    if mended:
        warn(f"desk: {mended} papers' kept list rows disagreed with the database; they were rewritten")
    if unwritable:
        warn(f"desk: note: {unwritable}")
    if encoding:
        warn(f"desk: note: {encoding}")
    for p in problems:
        warn(f"desk: {p}")
    if not problems:
        say(f"OK: the database is sound and the search index agrees with it ({count} papers)")
    return 1 if problems else 0


def backup_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", metavar="FILE", nargs="?", type=Path, help="where to write the copy")
    p.add_argument("--force", action="store_true", help="copy a damaged library too")


def run_backup(args: argparse.Namespace) -> int:
    """desk backup [FILE]"""
    with opened(args) as lib:
        dest = lib.backup(args.file, force=args.force)
    say(f"Backed up the library to {dest}")
    return 0


def restore_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", metavar="FILE", type=Path, help="a file made by desk backup")


def run_restore(args: argparse.Namespace) -> int:
    """desk restore FILE"""
    from desk.core.library.restore import restore_library

    saved = restore_library(resolve_library_dir(args.library), args.file)
    with opened(args) as lib:
        say(f"Restored {lib.count()} papers from {args.file}")
    if saved:
        say(f"The library as it was before is kept in {saved}")
    return 0


def run_install_desktop(args: argparse.Namespace) -> int:
    """desk install-desktop"""
    from desk.core.desktop import install_desktop

    for path in install_desktop():
        say(f"Installed {path}")
    return 0


def salvage_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("dest", metavar="DEST", type=Path, help="a new, empty folder for the salvaged library")


def run_salvage(args: argparse.Namespace) -> int:
    """desk salvage DEST: copy what can be read of a damaged library into a new one."""
    from desk.core.library.facade import Library
    from desk.core.runtime.paths import DATABASE_NAME
    from desk.core.store.salvage import salvage

    source = resolve_library_dir(args.library) / DATABASE_NAME
    report = salvage(source, args.dest)
    with Library(args.dest) as lib:
        stats = lib.stats()
        problems = lib.check()
    lost = f"; {report.unreadable_ranges} unreadable row(s) left out" if report.unreadable_ranges else ""
    dropped = sum(report.dropped.values())
    orphans = f"; {dropped} row(s) whose paper was lost dropped" if dropped else ""
    say(
        f"Salvaged {stats.papers} papers ({stats.starred} starred, {stats.notes} with notes) "
        f"into {args.dest} ({report.method}{lost}{orphans})"
    )
    say(f"Open it with `desk --library {args.dest}`; the damaged library was left as it was")
    for p in problems:
        warn(f"desk: {p}")
    return 1 if problems else 0
