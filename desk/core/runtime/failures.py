"""Failures of the disk and the database file, said in plain words (no SQL, no traceback)."""

from __future__ import annotations

import errno
import os
import sqlite3
from pathlib import Path

from desk.core.runtime.errors import DeskError, DiskFull, LibraryBusy, LibraryDamaged, LibraryReadOnly
from desk.core.runtime.paths import BACKUP_DIR_NAME

_DAMAGE = (
    "malformed",
    "not a database",
    "file is encrypted",
    "database corrupt",
    "disk i/o error",
)


def message_of(exc: BaseException) -> str:
    """The driver's message of a database error, without SQLAlchemy's SQL and parameters."""
    orig = getattr(exc, "orig", None)
    return str(orig if orig is not None else exc).split("\n", 1)[0]


def _message(exc: BaseException) -> str:
    return message_of(exc).lower()


def first_problem(text: str) -> str:
    """The first line of an SQLite integrity report that says something."""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip() and not ln.startswith("***")]
    return lines[0] if lines else text.strip()


def _sound(path: Path) -> bool:
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            row = conn.execute("PRAGMA quick_check(1)").fetchone()
            tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        finally:
            conn.close()
    except sqlite3.Error:
        return False
    return bool(row) and row[0] == "ok" and "paper" in tables


def way_out(library: Path) -> str:
    """What a user can do about a damaged database, naming the newest sound backup if there is one."""
    folder = library / BACKUP_DIR_NAME
    backups = sorted(
        (p for p in folder.glob("*.sqlite3") if p.is_file()), key=lambda p: p.stat().st_mtime, reverse=True
    )
    sound = next((p for p in backups[:5] if _sound(p)), None)
    restore = (
        f"put a backup back with `desk restore {sound}` (backups are in {folder})"
        if sound is not None
        else "put a backup back with `desk restore FILE`"
    )
    return f"{restore}, or copy what can still be read into a new library with `desk salvage DEST`"


def way_out_sentence(library: Path) -> str:
    """way_out() as a sentence of its own."""
    text = way_out(library)
    return text[0].upper() + text[1:] + "."


FULL_BELOW = 1 << 20
"""Free bytes under which a disk counts as full: SQLite's journal, the index's segments and the
caches need more than that to write anything."""


def disk_full(folder: Path) -> bool:
    """Whether the disk holding ``folder`` is full (or out of inodes), as far as can be told."""
    try:
        st = os.statvfs(folder)
    except OSError:
        return False
    out_of_inodes = st.f_files > 0 and st.f_favail == 0
    return st.f_bavail * st.f_frsize < FULL_BELOW or out_of_inodes


def _writable(folder: Path) -> bool:
    return os.access(folder, os.W_OK) and not _read_only_mount(folder)


def _read_only_mount(folder: Path) -> bool:
    try:
        return bool(os.statvfs(folder).f_flag & os.ST_RDONLY)
    except OSError:
        return False


def translate(exc: BaseException, database: Path) -> DeskError | None:
    """The plain-words error for a failure on the library whose database is ``database``, or
    None when it is not a failure of the disk or of the database file."""
    if isinstance(exc, DeskError):
        return exc
    library = database.parent
    if isinstance(exc, OSError) and not isinstance(exc, sqlite3.Error):
        where = Path(exc.filename) if exc.filename else library
        if exc.errno in (errno.ENOSPC, errno.EDQUOT):
            return DiskFull(f"the disk is full: {where} could not be written")
        if exc.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
            return LibraryReadOnly(f"the library folder is read-only: {where} cannot be written")
        return None
    text = _message(exc)
    if "database or disk is full" in text or "disk is full" in text:
        return DiskFull(f"the disk is full: {database} could not be written")
    if "disk i/o error" in text and disk_full(library):
        # SQLite says "disk I/O error", not "disk is full", when the -wal or -shm file cannot
        # grow: on a full disk that is no damage, and calling it so would send the user to salvage.
        return DiskFull(f"the disk is full: {database} could not be written")
    if "locked" in text or "busy" in text:
        return LibraryBusy("the library is busy: another desk is writing to it; try again in a moment")
    if (
        "readonly" in text
        or "read-only" in text
        or ("unable to open database file" in text and not _writable(library))
    ):
        return LibraryReadOnly(f"the library folder is read-only: {library} cannot be written")
    if "could not decode to utf-8" in text:  # SQLite's text bytes were changed under it
        return LibraryDamaged(
            f"the library database {database} is damaged (a text is not valid UTF-8): {way_out(library)}"
        )
    if any(word in text for word in _DAMAGE) or "unable to open database file" in text:
        why = text.split("\n", 1)[0][:200]
        return LibraryDamaged(f"the library database {database} is damaged ({why}): {way_out(library)}")
    return None


def reason(exc: BaseException, where: Path | None = None) -> str:
    """Why derived data (the index, a cache) in folder ``where`` could not be written, in a few
    words: never an exception's class name when the disk is full or another desk holds the lock."""
    if isinstance(exc, DeskError):
        return str(exc)
    if isinstance(exc, OSError):
        if exc.errno in (errno.ENOSPC, errno.EDQUOT):
            return "the disk is full"
        if exc.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
            return "its folder is read-only"
        return exc.strerror or type(exc).__name__
    if where is not None and disk_full(where):
        return "the disk is full"
    if type(exc).__name__ == "LockError":  # Whoosh's: its write lock stayed taken past the wait
        return "another desk is writing it"
    return type(exc).__name__
