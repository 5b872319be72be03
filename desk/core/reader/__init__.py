"""Reading list files: bytes to text, text to a header and abstracts (or a rich format's entries),
folders to list files.

A bare list (``parse.py``) gives abstracts; BibTeX, RIS, CSV/TSV, JSON and JSON lines
(``formats.py`` and a module per format) also give each paper's metadata (``entries.Metadata``).
A JSON-lines file (the arXiv snapshot: millions of lines) is read as a stream of parts
(``read_list_parts``), never whole.

May import: runtime, text.
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import os
import stat
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from desk.core.reader.decode import decode_list_bytes
from desk.core.reader.entries import Metadata
from desk.core.reader.formats import (
    JSON_LINES,
    LIST_SUFFIXES,
    RICH_SUFFIXES,
    TEXT,
    WHAT_DESK_READS,
    FormatError,
    RichList,
    collect,
    common_collection,
    read_rich,
    skip_lines,
    sniff,
)
from desk.core.reader.json_records import read_json_lines
from desk.core.reader.parse import MAX_ABSTRACT_CHARS, parse_list_text
from desk.core.runtime.paths import shown_name

__all__ = [
    "MAX_ABSTRACT_CHARS",
    "MAX_FILE_BYTES",
    "Metadata",
    "ParsedList",
    "ReadError",
    "decode_list_bytes",
    "find_list_files",
    "parse_list_text",
    "read_list_file",
    "read_list_parts",
    "total_size",
]

MAX_FILE_BYTES: int = 32 * 1024 * 1024
#: A JSON-lines file is read in parts of this many lines, each imported in its own transaction.
PART_LINES = 10_000
#: A JSON line longer than this is skipped unread (a record is a few kilobytes; a broken file may
#: hold a gigabyte without a newline).
MAX_LINE_BYTES = 4 * 1024 * 1024
_HEAD_BYTES = 1024 * 1024

_MB = 1024 * 1024


class ReadError(Exception):
    """A list file that cannot be imported; the message is plain words for a user."""

    def __init__(self, path: Path, reason: str) -> None:
        super().__init__(path, reason)
        self.path = path
        self.reason = reason

    def __str__(self) -> str:
        return f"{shown_name(self.path.name or str(self.path))}: {self.reason}"


@dataclass(frozen=True)
class ParsedList:
    """One list file, read: its collection, optional header and cleaned abstracts."""

    path: Path
    name: str
    collection: str
    header: str | None
    abstracts: tuple[str, ...]
    encoding: str
    sha256: str
    # Paragraphs left out (their number in the file, counting the header, and why in plain
    # words): the file's other abstracts are imported all the same.
    skipped: tuple[tuple[int, str], ...] = ()
    #: What the list says about each abstract (a rich format's; empty for a bare list).
    metadata: tuple[Metadata, ...] = ()
    format: str = TEXT
    #: The position of the first abstract among the file's (a part of a JSON-lines file starts later).
    first_index: int = 0


def read_list_file(path: Path) -> ParsedList:
    """Read, decode and parse one list file; raise only ``ReadError``, whatever the file holds."""
    path = Path(path)
    data = _read_bytes(path)
    try:
        return _parse(path, data)
    except ReadError:
        raise
    except Exception as exc:  # the caller's contract is ReadError only, even on a bug in a dependency
        raise ReadError(path, f"could not be read ({type(exc).__name__})") from exc


def _read_bytes(path: Path) -> bytes:
    try:
        info = path.stat()
        if stat.S_ISDIR(info.st_mode):
            raise ReadError(path, "is a folder, not a list file")
        if not stat.S_ISREG(info.st_mode):
            raise ReadError(path, "is not a regular file")
        if info.st_size > MAX_FILE_BYTES:
            raise ReadError(path, _too_large(info.st_size))
        with path.open("rb") as handle:
            # One byte over the limit tells a file that grew since stat() without reading it all.
            data = handle.read(MAX_FILE_BYTES + 1)
    except FileNotFoundError:
        raise ReadError(path, "was not found") from None
    except PermissionError:
        raise ReadError(path, "cannot be opened: permission denied") from None
    except IsADirectoryError:
        raise ReadError(path, "is a folder, not a list file") from None
    except OSError as exc:
        raise ReadError(path, f"cannot be read: {exc.strerror or exc}") from None
    except ValueError:  # a path with a NUL byte in it
        raise ReadError(path, "is not a valid file name") from None
    if len(data) > MAX_FILE_BYTES:
        raise ReadError(path, _too_large(len(data)))
    return data


def _too_large(size: int) -> str:
    return f"is {size / _MB:.1f} MB; list files over {MAX_FILE_BYTES // _MB} MB are not imported"


def _parse(path: Path, data: bytes) -> ParsedList:
    try:
        text, encoding = decode_list_bytes(data)
    except ValueError as exc:
        raise ReadError(path, str(exc)) from None
    if not text.strip():
        raise ReadError(path, "is empty")
    suffix = path.suffix.lower()
    fmt = sniff(text, suffix)
    if fmt != TEXT:
        try:
            return _rich(path, data, encoding, read_rich(text, fmt, suffix))
        except FormatError as exc:
            if str(exc) != TEXT:
                raise ReadError(path, str(exc)) from None
    if suffix in RICH_SUFFIXES:
        raise ReadError(path, f"holds no paper desk can read; {WHAT_DESK_READS}")
    collection, header, abstracts = parse_list_text(
        text, default_collection=shown_name(path.stem or path.name)
    )
    if not abstracts:
        if header is None:
            raise ReadError(path, "holds no text")
        raise ReadError(path, f"holds only a header (“{header}”) and no abstracts")
    first_number = 2 if header is not None else 1
    kept: list[str] = []
    skipped: list[tuple[int, str]] = []
    for number, abstract in enumerate(abstracts, start=first_number):
        if len(abstract) > MAX_ABSTRACT_CHARS:
            skipped.append((number, _too_long(number, len(abstract))))
        else:
            kept.append(abstract)
    if not kept:
        raise ReadError(path, skipped[0][1] if len(skipped) == 1 else _all_too_long(len(skipped)))
    return ParsedList(
        path=path,
        name=shown_name(path.name),
        collection=collection,
        header=header,
        abstracts=tuple(kept),
        encoding=encoding,
        sha256=hashlib.sha256(data).hexdigest(),
        skipped=tuple(skipped),
    )


def _rich(path: Path, data: bytes, encoding: str, rich: RichList) -> ParsedList:
    if not rich.abstracts:
        raise ReadError(path, _nothing_read(rich))
    return ParsedList(
        path=path,
        name=shown_name(path.name),
        collection=common_collection(rich.metadata) or shown_name(path.stem or path.name),
        header=None,
        abstracts=rich.abstracts,
        encoding=encoding,
        sha256=hashlib.sha256(data).hexdigest(),
        skipped=tuple(skip_lines(rich)),
        metadata=rich.metadata,
        format=rich.format,
    )


def _nothing_read(rich: RichList) -> str:
    if not rich.entries:
        return f"holds no paper desk can read; {WHAT_DESK_READS}"
    if not rich.broken:
        count = rich.entries
        entries = "entries" if count != 1 else "entry"
        return f"holds {count} {entries} but none with an abstract; desk needs one for each paper"
    first = rich.broken[0][1]
    return f"none of its {rich.entries} entries could be read (the first: {first})"


def read_list_parts(path: Path) -> Iterator[ParsedList]:
    """The parts of a list file: one ParsedList for most files, one per PART_LINES lines of a
    JSON-lines file (each with its own hash, so a file imported halfway is finished by importing
    it again). Raises ``ReadError`` as ``read_list_file`` does, and for a file with no paper."""
    path = Path(path)
    if _is_json_lines(path):
        yield from _json_lines_parts(path)
    else:
        yield read_list_file(path)


def _is_json_lines(path: Path) -> bool:
    try:
        if not path.is_file():
            return False
        with path.open("rb") as handle:
            head = handle.read(_HEAD_BYTES)
    except (OSError, ValueError):
        return False
    if head.startswith(b"\xef\xbb\xbf"):
        head = head[3:]
    text = head.decode("utf-8", "ignore")
    return sniff(text, path.suffix.lower()) == JSON_LINES


def _lines(handle: Any) -> Iterator[bytes | None]:
    """The lines of a binary file, each at most MAX_LINE_BYTES (None for a longer one, read past)."""
    while line := handle.readline(MAX_LINE_BYTES + 1):
        if len(line) > MAX_LINE_BYTES and not line.endswith(b"\n"):
            while (more := handle.readline(_HEAD_BYTES)) and not more.endswith(b"\n"):
                pass
            yield None
        else:
            yield line


def _decoded(lines: list[bytes | None], first: int) -> Iterator[str | tuple[int, str]]:
    for number, line in enumerate(lines, start=first):
        if line is None:
            yield number, f"line {number} is over {MAX_LINE_BYTES // _MB} MB; it was skipped"
            continue
        try:
            yield line.decode("utf-8").lstrip("\ufeff")
        except UnicodeDecodeError:
            yield number, f"line {number} is not UTF-8 text; it was skipped"


def _json_lines_parts(path: Path) -> Iterator[ParsedList]:
    name, collection = shown_name(path.name), shown_name(path.stem or path.name)
    first_line, first_index, part, yielded = 1, 0, 0, False
    pending: list[tuple[int, str]] = []
    last: RichList | None = None
    try:
        with path.open("rb") as handle:
            lines = _lines(handle)
            while chunk := list(itertools.islice(lines, PART_LINES)):
                digest = hashlib.sha256(b"desk json lines part %d\0" % part)
                for line in chunk:
                    digest.update(line if line is not None else b"\0too long\0")
                texts = list(_decoded(chunk, first_line))
                bad = [t for t in texts if isinstance(t, tuple)]
                good = [t if isinstance(t, str) else "" for t in texts]
                last = collect(JSON_LINES, read_json_lines(good, first_line), first_line)
                pending += bad + list(skip_lines(last, noun="line"))
                if last.abstracts:
                    yield ParsedList(
                        path=path, name=name, collection=collection, header=None,
                        abstracts=last.abstracts, encoding="utf-8", sha256=digest.hexdigest(),
                        skipped=tuple(sorted(pending)), metadata=last.metadata, format=JSON_LINES,
                        first_index=first_index,
                    )  # fmt: skip
                    yielded, pending = True, []
                    first_index += len(last.abstracts)
                first_line += len(chunk)
                part += 1
    except OSError as exc:
        raise ReadError(path, f"cannot be read: {exc.strerror or exc}") from None
    if not yielded:
        if pending:
            raise ReadError(path, f"holds no paper desk can read (the first problem: {pending[0][1]})")
        raise ReadError(path, f"holds no paper desk can read; {WHAT_DESK_READS}")
    if pending:  # what was left out after the last part with papers
        yield ParsedList(
            path=path, name=name, collection=collection, header=None, abstracts=(), encoding="utf-8",
            sha256="", skipped=tuple(sorted(pending)), format=JSON_LINES, first_index=first_index,
        )  # fmt: skip


def _too_long(number: int, length: int) -> str:
    return (
        f"paragraph {number} is {length:,} characters long, over the limit of {MAX_ABSTRACT_CHARS:,} "
        "for one abstract (are blank lines missing between abstracts?)"
    )


def _all_too_long(count: int) -> str:
    return (
        f"each of its {count} paragraphs is over the limit of {MAX_ABSTRACT_CHARS:,} characters "
        "for one abstract (are blank lines missing between abstracts?)"
    )


def find_list_files(paths: Iterable[Path]) -> Iterator[Path]:
    """Yield list files: given files as they are, files of the list formats' extensions (``.txt``,
    ``.bib``, ``.ris``, ``.csv``, ``.tsv``, ``.json``, ``.jsonl``) found in given folders.

    Folders are walked recursively in sorted order, skipping hidden entries and following
    symbolic links without looping. A path that does not exist is yielded so that
    ``read_list_file`` can report it. No file is yielded twice.
    """
    seen_dirs: set[tuple[int, int]] = set()
    seen_files: set[tuple[int, int]] = set()
    for given in paths:
        path = Path(given)
        if path.is_dir():
            yield from _walk(path, seen_dirs, seen_files)
        elif _first_visit(path, seen_files):
            yield path


def total_size(files: Iterable[Path]) -> int:
    """The bytes of ``files`` together (one that cannot be read counts 0: it is reported when it is read)."""
    total = 0
    for path in files:
        with contextlib.suppress(OSError):
            total += path.stat().st_size
    return total


def _walk(top: Path, seen_dirs: set[tuple[int, int]], seen_files: set[tuple[int, int]]) -> Iterator[Path]:
    # An explicit stack: a recursion per folder level would fail on very deep trees.
    stack = [top]
    while stack:
        folder = stack.pop()
        if not _first_visit(folder, seen_dirs):
            continue
        try:
            with os.scandir(folder) as scan:
                entries = sorted(scan, key=lambda entry: entry.name)
        except OSError:
            continue
        subfolders: list[Path] = []
        for entry in entries:
            if entry.name.startswith("."):
                continue
            try:
                is_dir = entry.is_dir()
                is_file = not is_dir and entry.is_file()
            except OSError:
                continue
            path = folder / entry.name
            if is_dir:
                subfolders.append(path)
            elif is_file and _is_list_name(entry.name) and _first_visit(path, seen_files):
                yield path
        stack.extend(reversed(subfolders))


def _is_list_name(name: str) -> bool:
    dot = name.rfind(".")
    return dot > 0 and name[dot:].lower() in LIST_SUFFIXES


def _first_visit(path: Path, seen: set[tuple[int, int]]) -> bool:
    """Record a file or folder by identity; False when it was seen before. Unstat-able paths count as new."""
    try:
        info = path.stat()
    except (OSError, ValueError):
        return True
    key = (info.st_dev, info.st_ino)
    if key in seen:
        return False
    seen.add(key)
    return True
