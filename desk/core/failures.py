"""Failures of the disk and the database file, said in plain words (no SQL, no traceback)."""

from __future__ import annotations

import errno
import os
import sqlite3
from pathlib import Path

from desk.core.errors import DeskError, DiskFull, LibraryBusy, LibraryDamaged, LibraryReadOnly
from desk.core.paths import BACKUP_DIR_NAME

_DAMAGE = (
    "malformed",
    "not a database",
    "file is encrypted",
    "database corrupt",
    "disk i/o error",
    "no such table",
    "no such column",
)


def _message(exc: BaseException) -> str:
    orig = getattr(exc, "orig", None)  # SQLAlchemy's wrapper: the driver's error, without the SQL
    return str(orig if orig is not None else exc).lower()


def way_out(library: Path) -> str:
    """What a user can do about a damaged database, naming the newest backup if there is one."""
    backups = sorted(
        (p for p in (library / BACKUP_DIR_NAME).glob("*.sqlite3") if p.is_file()),
        key=lambda p: p.stat().st_mtime,
    )
    restore = (
        f"put a backup back with `desk restore {backups[-1]}` (backups are in {library / BACKUP_DIR_NAME})"
        if backups
        else "put a backup back with `desk restore FILE`"
    )
    return f"{restore}, or copy what can still be read into a new library with `desk salvage DEST`"


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
    if "locked" in text or "busy" in text:
        return LibraryBusy("the library is busy: another desk is writing to it; try again in a moment")
    if (
        "readonly" in text
        or "read-only" in text
        or ("unable to open database file" in text and not _writable(library))
    ):
        return LibraryReadOnly(f"the library folder is read-only: {library} cannot be written")
    if any(word in text for word in _DAMAGE) or "unable to open database file" in text:
        why = text.split("\n", 1)[0]
        return LibraryDamaged(f"the library database {database} is damaged ({why}): {way_out(library)}")
    return None


def reason(exc: BaseException) -> str:
    """Why derived data (the index, a cache) could not be written, in a few words."""
    if isinstance(exc, DeskError):
        return str(exc)
    if isinstance(exc, OSError):
        if exc.errno in (errno.ENOSPC, errno.EDQUOT):
            return "the disk is full"
        if exc.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
            return "its folder is read-only"
        return exc.strerror or type(exc).__name__
    return type(exc).__name__
