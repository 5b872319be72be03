"""Reading list files: bytes to text, text to a header and abstracts, folders to list files.

May import: runtime, text.
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from desk.core.reader.decode import decode_list_bytes
from desk.core.reader.parse import parse_list_text
from desk.core.runtime.paths import shown_name

__all__ = [
    "MAX_ABSTRACT_CHARS",
    "MAX_FILE_BYTES",
    "ParsedList",
    "ReadError",
    "decode_list_bytes",
    "find_list_files",
    "parse_list_text",
    "read_list_file",
]

MAX_FILE_BYTES: int = 32 * 1024 * 1024
MAX_ABSTRACT_CHARS: int = 100_000

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
    """Yield list files: given files as they are, ``*.txt`` files found in given folders.

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
            elif is_file and entry.name.lower().endswith(".txt") and _first_visit(path, seen_files):
                yield path
        stack.extend(reversed(subfolders))


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
