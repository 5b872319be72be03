"""Put a backup back in place of a library's database, keeping a copy of what was there."""

from __future__ import annotations

import shutil
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

from desk.core.db.migrations import SCHEMA_VERSION
from desk.core.errors import DeskError
from desk.core.paths import BACKUP_DIR_NAME, CACHE_DIR_NAME, DATABASE_NAME, INDEX_DIR_NAME


def validate_backup(path: Path) -> None:
    """Raise DeskError unless path is a sound desk database this version can open."""
    if not path.is_file():
        raise DeskError(f"{path} does not exist or is not a file")
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            ok = conn.execute("PRAGMA integrity_check").fetchone()[0]
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        finally:
            conn.close()
    except sqlite3.DatabaseError as exc:
        raise DeskError(f"{path.name} is not a desk backup ({exc})") from exc
    if ok != "ok" or "paper" not in tables or version < 1:
        raise DeskError(f"{path.name} is not a sound desk backup")
    if version > SCHEMA_VERSION:
        raise DeskError(f"{path.name} was written by a newer desk (schema {version})")


def restore_library(directory: Path, backup: Path) -> Path | None:
    """Replace the library's database with backup; returns where the previous one was saved."""
    validate_backup(backup)
    directory.mkdir(parents=True, exist_ok=True)
    target = directory / DATABASE_NAME
    saved: Path | None = None
    if target.exists():
        stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
        saved = directory / BACKUP_DIR_NAME / f"before-restore-{stamp}.sqlite3"
        saved.parent.mkdir(parents=True, exist_ok=True)
    src = sqlite3.connect(f"file:{backup}?mode=ro", uri=True)
    dst = sqlite3.connect(target, timeout=10)
    try:
        if saved is not None:
            keep = sqlite3.connect(saved)
            try:
                dst.backup(keep)
            finally:
                keep.close()
        # The backup API writes through SQLite's own locking and WAL, so a reader never sees half a file.
        src.backup(dst)
    finally:
        src.close()
        dst.close()
    # Derived data describes the database that was there: drop it, it is rebuilt on open.
    shutil.rmtree(directory / INDEX_DIR_NAME, ignore_errors=True)
    shutil.rmtree(directory / CACHE_DIR_NAME, ignore_errors=True)
    return saved
