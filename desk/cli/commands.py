"""One function per command; each opens the library, calls Library, prints."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from desk.cli.output import (
    detail_json,
    emit_json,
    emit_list_json,
    page_json,
    say,
    summary_json,
    summary_line,
    warn,
)
from desk.cli.progress import Bar
from desk.core.records.page import SORTS, ResultPage
from desk.core.runtime.errors import DeskError
from desk.core.runtime.paths import resolve_library_dir

if TYPE_CHECKING:
    from desk.core.library.facade import Library
    from desk.core.library.quick import QuickLibrary
    from desk.core.obsidian import VaultReport


@dataclass(frozen=True)
class Command:
    """A subcommand: its name, help, arguments and what it runs."""

    name: str
    help: str
    arguments: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace], int]


def progress_printer(label: str, unit: str = "papers") -> Bar:
    """A progress bar for ``label`` on stderr when it is a terminal (nothing otherwise)."""
    return Bar(label, unit)


@contextmanager
def opened(args: argparse.Namespace, *, full_check: bool = False) -> Iterator[Library]:
    """The library named by --library / $DESK_LIBRARY / the default, index repaired (``full_check``:
    checked in full even when its stamp says it is current)."""
    # Imported here, not at the top: the worker processes an import starts re-import the
    # `desk` script's module, and need none of the database or search code to start.
    from desk.core.library.facade import Library

    progress = progress_printer("Rebuilding the search index")
    lib = Library(resolve_library_dir(args.library), progress=progress, full_check=full_check)
    try:
        if lib.repaired and lib.count():
            warn(f"desk: {lib.repaired}; rebuilt it from the database")
        yield lib
        if lib.index_behind:
            warn(f"desk: {lib.index_behind}; it catches up when it can be written")
    finally:
        lib.close()


@contextmanager
def reading(args: argparse.Namespace, *, quick: bool = True) -> Iterator[QuickLibrary | Library]:
    """For a command that only reads: plain SQLite when the index is known to be current (no ORM,
    Whoosh or numpy loaded: desk.core.library.quick), else the whole Library as ``opened`` gives it."""
    from desk.core.library.quick import QuickLibrary

    reader = QuickLibrary.open(resolve_library_dir(args.library)) if quick else None
    if reader is None:
        with opened(args) as lib:
            yield lib
        return
    with reader:
        yield reader


@contextmanager
def writing_quickly(args: argparse.Namespace) -> Iterator[QuickLibrary | None]:
    """For an edit of what the index does not hold (a star, a tag): a plain-SQLite writer in one
    ``BEGIN IMMEDIATE`` transaction, committed when the block ends without an error, when the index
    is known to be current (desk.core.edits.statements); None: open the whole Library instead."""
    from desk.core.library.quick import QuickLibrary

    writer = QuickLibrary.open(resolve_library_dir(args.library), write=True)
    if writer is None:
        yield None
        return
    with writer:
        yield writer
        writer.commit()


def with_vectors(lib: Library) -> None:
    """Bring the semantic vectors up to date before a search (the first command after an import builds
    LSA's, with progress on a terminal; the sentence encoder's, minutes of work in a large library,
    are left to a builder process, said on a terminal); a store that cannot be written only costs
    the semantic part."""
    done = lib.discovery.ensure_vectors(progress_printer("Building the semantic vectors"), detach=True)
    if done is not None and (done.startswith("rebuilt") or done.startswith("could not")):
        warn(f"desk: the semantic vectors {done}")
    if lib.discovery.encoding_elsewhere and sys.stderr.isatty():
        warn(f"desk: note: {lib.discovery.encoding_elsewhere}")


def json_flag(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", action="store_true", help="print one JSON object")


MAX_ID = (1 << 63) - 1  # SQLite's largest integer


def paper_id(text: str) -> int:
    """An ID argument: a whole number SQLite can hold (else a usage error in plain words)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a paper id (ids are whole numbers)") from None
    if not 0 < value <= MAX_ID:
        raise argparse.ArgumentTypeError(f"{text} is not a paper id (ids run from 1 to {MAX_ID})")
    return value


def ids_arguments(p: argparse.ArgumentParser, many: bool = True) -> None:
    p.add_argument("ids", metavar="ID", type=paper_id, nargs="+" if many else 1, help="paper id")


# -- import ------------------------------------------------------------------------------------
IMPORT_FORMATS = """\
A list file is UTF-8 text (CRLF, a BOM, Windows-1252, Latin-1 and GBK are read too):

  ICML 2026 Papers          the collection: a first short line that reads as no abstract
                            (a blank line)
  <abstract 1, one line>    one paper per paragraph, paragraphs apart by blank lines

  <abstract 2>

With no such first line every paragraph is an abstract and the collection is the file's name.
BibTeX (PMLR proceedings), OpenReview JSON, arXiv JSON lines, CSV/TSV with a header row and RIS
are found from their content, with titles, authors, year, venue and links. A folder is walked
for .txt files. A file imported again adds nothing; a broken entry or file is named and skipped."""

SEARCH_LANGUAGE = """\
the query language:
  diffusion policy          papers holding the words (stemmed: policies finds policy)
  "exact phrase"            the words side by side;  diffus*  words starting so
  a OR b, a AND b, NOT a, -a, ( … )
  title:word  abstract:word  note:word  short:RACER  collection:icml  title:"two words"
  is:starred  is:unread  is:read  has:note  tag:name  tag:"two words"  has:tag
  in:"ICML 2026 Papers"     one collection;  saved:"name"  a saved search's matches
A word no paper uses is searched with its closest spelling ("did you mean" in the output)."""


def import_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("paths", metavar="PATH", nargs="+", type=Path, help="a .txt list or a folder of them")
    json_flag(p)
    p.epilog = IMPORT_FORMATS
    p.formatter_class = argparse.RawDescriptionHelpFormatter  # the layout above as written


def run_import(args: argparse.Namespace) -> int:
    """desk import PATH..."""
    from desk.core.reader import find_list_files, total_size
    from desk.core.runtime.processes import WorkerPool

    # The workers of a big import start up (each a new interpreter loading its code) while
    # this process loads the library's code and opens it: before it, not after.
    with WorkerPool() as workers:
        if total_size(find_list_files(args.paths)) >= workers.tuning.start_workers_from_bytes:
            workers.start()
        with opened(args) as lib:
            report = lib.import_paths(
                args.paths,
                progress=progress_printer("Importing", "files"),
                dedup_progress=progress_printer("Near-duplicates", ""),
                merge_progress=progress_printer("Merging the search index", "merges"),
                workers=workers,
            )
            encoding = lib.discovery.encode_in_background() if report.added else None
    if args.json:
        emit_json(report.as_json())
    else:
        from desk.core.importing.summary import import_summary

        for line in import_summary(report, review="desk dupes"):
            say(line)
    for err in report.errors:
        # A paragraph left out of a file that was imported: the file itself was not skipped.
        skipped = "" if err.paragraph is not None else "skipped "
        warn(f"desk: {skipped}{err.file}: {err.error}")
    if encoding and sys.stderr.isatty():
        warn(f"desk: note: {encoding}")
    return 1 if report.errors else 0


# -- reading -----------------------------------------------------------------------------------
def sort_flag(p: argparse.ArgumentParser) -> None:
    p.add_argument("--sort", choices=SORTS, default="relevance", help="the order (default: relevance)")


def list_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--starred", action="store_true", help="only starred papers")
    sort_flag(p)
    json_flag(p)


def run_list(args: argparse.Namespace) -> int:
    """desk list [--starred]"""
    with reading(args, quick=args.sort == "relevance") as lib:
        from desk.core.library.quick import QuickLibrary

        if args.json and isinstance(lib, QuickLibrary):
            emit_list_json(lib.list_json(starred=args.starred))  # the same text, written by SQLite
            return 0
        papers = lib.list_papers(starred=args.starred, sort=args.sort)
    if args.json:
        emit_json({"papers": [summary_json(p) for p in papers]})
    else:
        for p in papers:
            say(summary_line(p))
    return 0


def show_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("id", metavar="ID", type=paper_id)
    json_flag(p)


def run_show(args: argparse.Namespace) -> int:
    """desk show ID"""
    with reading(args) as lib:
        paper = lib.paper(args.id)
    if args.json:
        emit_json(detail_json(paper))
        return 0
    say(summary_line(paper))
    if paper.short_name:
        say(f"Short name: {paper.short_name}")
    for s in paper.sources:
        say(f"Source: {s.collection} — {s.place}")
    if paper.tags:
        say(f"Tags: {', '.join(paper.tags)}")
    say()
    say(paper.abstract)
    if paper.note:
        say()
        say("Note:")
        say(paper.note)
    return 0


def search_args(p: argparse.ArgumentParser) -> None:
    p.epilog = SEARCH_LANGUAGE
    p.formatter_class = argparse.RawDescriptionHelpFormatter  # the table above as written
    p.add_argument("query", metavar="QUERY", help="words and the query language below")
    p.add_argument("--limit", type=int, default=20, metavar="N", help="how many hits (default 20)")
    sort_flag(p)
    json_flag(p)


def print_page(page: ResultPage, as_json: bool) -> None:
    """A page of hits (search, related, recommend) as lines, or as the search JSON."""
    if as_json:
        emit_json(page_json(page))
        return
    if page.message:
        warn(f"desk: {page.message}")
    if page.hint:
        warn(f"desk: {page.hint}")
    if page.suggestion:
        say(f"Did you mean: {page.suggestion}" + (" (showing results for it)" if page.corrected else ""))
    say(f"{page.total} {'hit' if page.total == 1 else 'hits'} in {page.took_ms:.1f} ms")
    for row in page.rows:
        say(summary_line(row.paper))
        say(f"         {row.snippet}")


def run_search(args: argparse.Namespace) -> int:
    """desk search QUERY"""
    from desk.core.library.quick import QuickLibrary
    from desk.core.search.compiler import nothing_to_search

    problem = nothing_to_search(args.query)
    if problem is not None:  # it would list every paper as a hit
        raise DeskError(problem)
    directory = resolve_library_dir(args.library)
    reader = QuickLibrary.open(directory)
    if reader is not None:  # the index is current: search it with plain SQLite beside (quick_search.py)
        from desk.core.library.quick_search import search

        with reader:
            page = search(reader, directory, args.query, max(args.limit, 0), args.sort)
        if page is not None:
            print_page(page, args.json)
            return 0
    with opened(args) as lib:
        with_vectors(lib)
        print_page(lib.search(args.query, limit=max(args.limit, 0), sort=args.sort), args.json)
    return 0


def related_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("id", metavar="ID", type=paper_id)
    p.add_argument("--limit", type=int, default=10, metavar="N")
    json_flag(p)


def run_related(args: argparse.Namespace) -> int:
    """desk related ID"""
    with opened(args) as lib:
        with_vectors(lib)
        print_page(lib.discovery.related(args.id, limit=max(args.limit, 0)), args.json)
    return 0


def stats_args(p: argparse.ArgumentParser) -> None:
    json_flag(p)


def run_stats(args: argparse.Namespace) -> int:
    """desk stats"""
    with reading(args) as lib:
        s = lib.stats()
    if args.json:
        emit_json(
            {
                "papers": s.papers,
                "sources": s.sources,
                "starred": s.starred,
                "read": s.read,
                "notes": s.notes,
                "collections": s.collections,
                "tags": s.tags,
            }
        )
    else:
        say(
            f"{s.papers} papers from {s.sources} sources; {s.starred} starred, {s.read} read, "
            f"{s.notes} with notes"
        )
        for name, n in s.collections.items():
            say(f"  {n:>6}  {name}")
    return 0


# -- writing -----------------------------------------------------------------------------------
def flag_command(attr: str, value: bool) -> Callable[[argparse.Namespace], int]:
    def run(args: argparse.Namespace) -> int:
        with writing_quickly(args) as writer:
            if writer is not None:
                from desk.core.edits import statements

                changes = statements.set_flags(writer.connection, args.ids, attr, value)
                if changes:
                    statements.record_step(writer.connection, *statements.field_step(changes, attr, value))
                return 0
        with opened(args) as lib:
            setter = lib.set_starred if attr == "starred" else lib.set_read
            setter(args.ids, value)
        return 0

    return run


def note_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("id", metavar="ID", type=paper_id)
    p.add_argument("--set", dest="text", required=True, metavar="TEXT", help='the note ("" clears it)')


def run_note(args: argparse.Namespace) -> int:
    """desk note ID --set TEXT"""
    return _set_text(args, "note", args.text)


def _set_text(args: argparse.Namespace, field: str, value: str | None) -> int:
    """A note or a title: with plain SQLite when the index is current (the edit's statements, then
    quick_index.flush writes the index), else the whole Library."""
    with writing_quickly(args) as writer:
        if writer is not None:
            from desk.core.edits import statements

            changed = statements.set_texts(writer.connection, [args.id], field, value)
            if changed:
                statements.record_step(writer.connection, *statements.field_step(changed, field, value))
    if writer is not None:
        if changed:
            from desk.core.library.quick_index import flush

            behind = flush(resolve_library_dir(args.library))
            if behind:
                warn(f"desk: {behind}; it catches up when it can be written")
        return 0
    with opened(args) as lib:
        if field == "note":
            lib.set_note(args.id, args.text)
        else:
            lib.set_title(args.id, args.text)
    return 0


def retitle_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("id", metavar="ID", type=paper_id)
    p.add_argument("text", metavar="TEXT", help='the title ("" goes back to the derived one)')


def run_retitle(args: argparse.Namespace) -> int:
    """desk retitle ID TEXT"""
    from desk.core.text.control_chars import one_line

    return _set_text(args, "user_title", one_line(args.text or "") or None)  # Library.set_title's


def export_args(p: argparse.ArgumentParser) -> None:
    which = p.add_mutually_exclusive_group()
    which.add_argument("--starred", action="store_true", help="the starred papers (the default)")
    which.add_argument("--query", metavar="Q", help="the results of a search")
    which.add_argument("--tag", metavar="T", help="the papers carrying a tag, in its order")
    p.add_argument(
        "-o",
        "--output",
        type=Path,
        metavar="FILE",
        help="write to FILE instead of stdout (obsidian: a folder)",
    )
    p.add_argument(
        "--format",
        choices=("markdown", "bibtex", "csv", "json", "obsidian"),
        default="markdown",
        help="(default: markdown; obsidian: one note per paper in the folder -o DIR)",
    )


def run_export(args: argparse.Namespace) -> int:
    """desk export [--starred | --query Q | --tag T] [--format F] [-o FILE | -o DIR for obsidian]"""
    if args.format == "obsidian" and args.output is None:
        warn("desk export: --format obsidian writes one note per paper: give the folder with -o DIR")
        return 2
    with opened(args) as lib:
        if args.tag is not None:
            ids, what = lib.tags.papers(args.tag), f"papers tagged “{args.tag}”"
        elif args.query is not None:
            result = lib.search_ids(args.query, limit=max(lib.count(), 1))
            ids, what = [h.id for h in result.hits], f"results of “{args.query}”"
        else:
            ids, what = lib.paper_ids(starred=True), "starred papers"
        if args.format == "obsidian":
            return _report_vault(lib.export_obsidian(ids, args.output))
        text = lib.export_as(ids, fmt=args.format, what=what)
    hint = (
        " (star some with `desk star ID`, or export --query Q / --tag T)" if what == "starred papers" else ""
    )
    empty = f"desk: note: there are no {what} to export{hint}" if not ids else None
    if args.output is None:
        sys.stdout.write(text)
        if empty:
            warn(empty)
    else:
        from desk.core.runtime.files import write_text
        from desk.core.runtime.paths import shown_path

        write_text(args.output, text)
        if empty:  # said once the (empty) file is written: a script's export is still a file
            warn(empty)
        warn(f"desk: wrote {len(ids)} paper{'' if len(ids) == 1 else 's'} to {shown_path(args.output)}")
    return 0


def _report_vault(report: VaultReport) -> int:
    """One line of what an Obsidian export did (and one per file it left alone)."""
    from desk.core.runtime.paths import shown_path

    for line in report.left:
        warn(f"desk: {line}")
    n = report.written
    done = f"{report.added} new, {report.updated} updated, {report.unchanged} unchanged"
    warn(f"desk: wrote {n} note{'' if n == 1 else 's'} to {shown_path(report.folder)} ({done})")
    return 0


def no_arguments(_p: argparse.ArgumentParser) -> None:
    return None
