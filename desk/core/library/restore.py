"""Put a backup back in place of a library's database, keeping a copy of what was there.

A backup is checked whole before anything changes: SQLite's integrity check, and the tables
and columns desk's own migrations make at the backup's schema version. It is then brought to
this desk's schema in a scratch copy, and put in place inside one write transaction on the
library (the lock every desk writer takes): an import or a star running meanwhile waits, or
says the library is busy, and never lands half in the old state and half in the new. Every
derived store (the search index, the caches, both vector stores) is dropped inside that
transaction, and inside the vector stores' write lock (semantic/keys.py): the backup gives its
ids back, so a row kept by id would answer for a paper that is no longer there. They are rebuilt
on open.
"""

from __future__ import annotations

import contextlib
import shutil
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy import create_engine, inspect

from desk.core.runtime.errors import DeskError, LibraryBusy
from desk.core.runtime.paths import BACKUP_DIR_NAME, CACHE_DIR_NAME, DATABASE_NAME, INDEX_DIR_NAME
from desk.core.search.schema import remove_marker
from desk.core.semantic import encoded, encoded_files, store
from desk.core.semantic.background import LOCK_NAME as BUILD_LOCK_NAME
from desk.core.semantic.keys import write_lock
from desk.core.store.backup import online_copy
from desk.core.store.database import BUSY_TIMEOUT_MS
from desk.core.store.migrations import SCHEMA_VERSION, migrate, upgrade


def expected_tables(version: int) -> dict[str, set[str]]:
    """The tables (and their columns) desk's migrations create at schema ``version``."""
    engine = create_engine("sqlite://")
    try:
        with engine.begin() as conn:
            upgrade(conn, 0, version)
            found = inspect(conn)
            return {t: {c["name"] for c in found.get_columns(t)} for t in found.get_table_names()}
    finally:
        engine.dispose()


def _tables(conn: sqlite3.Connection, schema: str = "main") -> dict[str, set[str]]:
    names = [
        r[0]
        for r in conn.execute(f"SELECT name FROM {schema}.sqlite_master WHERE type = 'table'")
        if not r[0].startswith("sqlite_")
    ]
    return {t: {r[1] for r in conn.execute(f'PRAGMA {schema}.table_info("{t}")')} for t in names}


def validate_backup(path: Path) -> int:
    """The schema version of path; DeskError unless it is a sound desk database this desk can open."""
    if not path.is_file():
        raise DeskError(f"{path} does not exist or is not a file")
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            ok = conn.execute("PRAGMA integrity_check(1)").fetchone()[0]
            version = int(conn.execute("PRAGMA user_version").fetchone()[0])
            tables = _tables(conn) if ok == "ok" else {}
        finally:
            conn.close()
    except sqlite3.DatabaseError as exc:
        raise DeskError(f"{path.name} is not a desk backup ({exc})") from exc
    if ok != "ok":
        raise DeskError(f"{path.name} is damaged ({ok}); it was not restored")
    if version > SCHEMA_VERSION:
        raise DeskError(f"{path.name} was written by a newer desk (schema {version}); it was not restored")
    if version < 1:
        raise DeskError(
            f"{path.name} is not a desk backup (it has no desk schema version); it was not restored"
        )
    for table, columns in expected_tables(version).items():
        missing = columns - tables.get(table, set())
        if table not in tables or missing:
            what = (
                f"table {table}"
                if table not in tables
                else f"columns {', '.join(sorted(missing))} of {table}"
            )
            raise DeskError(f"{path.name} is not a desk backup (it lacks the {what}); it was not restored")
    return version


def _staged_copy(backup: Path, directory: Path) -> Path:
    """The backup copied beside the library and brought to this desk's schema."""
    staged = directory / f".restoring-{datetime.now(UTC).strftime('%Y%m%d%H%M%S%f')}.sqlite3"
    online_copy(backup, staged)
    engine = create_engine(f"sqlite:///{staged}")
    try:
        migrate(engine, staged, directory / BACKUP_DIR_NAME)
    finally:
        engine.dispose()
    return staged


def _keep_copy(target: Path, directory: Path) -> Path:
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    saved = directory / BACKUP_DIR_NAME / f"before-restore-{stamp}.sqlite3"
    saved.parent.mkdir(parents=True, exist_ok=True)
    return saved


def _drop_derived(directory: Path) -> None:
    """Remove every store derived from the database (call inside ``write_lock``)."""
    index = directory / INDEX_DIR_NAME
    if index.is_dir():
        with contextlib.suppress(OSError):
            remove_marker(index)  # first: a kill from here on leaves an index that reads CORRUPT
    shutil.rmtree(index, ignore_errors=True)
    shutil.rmtree(directory / CACHE_DIR_NAME, ignore_errors=True)
    # Each vector store's manifest first: a kill from here on leaves a store that reads as
    # incomplete, and is rebuilt.
    for folder, manifest in (
        (store.DIR_NAME, store.MANIFEST_NAME),
        (encoded.DIR_NAME, encoded_files.MANIFEST_NAME),
    ):
        with contextlib.suppress(OSError):
            (directory / folder / manifest).unlink(missing_ok=True)
    shutil.rmtree(directory / store.DIR_NAME, ignore_errors=True)
    encoder_store = directory / encoded.DIR_NAME
    if encoder_store.is_dir():  # its build lock stays: a builder at work holds it
        for path in encoder_store.iterdir():
            if path.name != BUILD_LOCK_NAME:
                with contextlib.suppress(OSError):
                    shutil.rmtree(path) if path.is_dir() else path.unlink()


def _swap_in_one_transaction(target: Path, staged: Path, saved: Path) -> bool:
    """Replace target's rows by staged's under the write lock; False when target is not a sound
    database of this schema (then it is copied over page by page instead)."""
    conn = sqlite3.connect(target, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None)
    try:
        if conn.execute("PRAGMA quick_check(1)").fetchone()[0] != "ok":
            return False
        if int(conn.execute("PRAGMA user_version").fetchone()[0]) != SCHEMA_VERSION:
            return False
        conn.execute("PRAGMA foreign_keys = OFF")
        conn.execute("ATTACH DATABASE ? AS staged", (f"file:{staged}?mode=ro",))
        if _tables(conn) != _tables(conn, "staged"):
            return False
        try:
            conn.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            raise LibraryBusy(
                "the library is busy: another desk is writing to it; try the restore again"
            ) from exc
        try:
            online_copy(target, saved)  # what was there, for the way back (no writer can commit now)
            for table in _tables(conn):
                conn.execute(f'DELETE FROM main."{table}"')
                conn.execute(f'INSERT INTO main."{table}" SELECT * FROM staged."{table}"')
            with contextlib.suppress(sqlite3.OperationalError):  # no AUTOINCREMENT table: none
                conn.execute("DELETE FROM main.sqlite_sequence")
                conn.execute("INSERT INTO main.sqlite_sequence SELECT * FROM staged.sqlite_sequence")
            if conn.execute("PRAGMA main.foreign_key_check").fetchone() is not None:
                raise DeskError("the backup's rows do not fit together; it was not restored")
            with write_lock(target.parent):  # no vector store is written from the old rows after this
                _drop_derived(target.parent)
                conn.execute("COMMIT")
        except BaseException:
            with contextlib.suppress(sqlite3.Error):
                conn.execute("ROLLBACK")
            raise
        return True
    finally:
        conn.close()


def restore_library(directory: Path, backup: Path) -> Path | None:
    """Replace the library's database with backup; returns where the previous one was saved."""
    validate_backup(backup)
    directory.mkdir(parents=True, exist_ok=True)
    target = directory / DATABASE_NAME
    staged = _staged_copy(backup, directory)
    try:
        if target.exists() and target.stat().st_size > 0:
            saved = _keep_copy(target, directory)
            if _swap_in_one_transaction(target, staged, saved):
                return saved
            # A damaged or older database: copied page by page (the backup API locks per step).
            with contextlib.suppress(sqlite3.Error, OSError):
                online_copy(target, saved)
        else:
            saved = None
        with write_lock(directory):
            _drop_derived(directory)
            src = sqlite3.connect(f"file:{staged}?mode=ro", uri=True)
            dst = sqlite3.connect(target, timeout=BUSY_TIMEOUT_MS / 1000)
            try:
                src.backup(dst)
            finally:
                src.close()
                dst.close()
        return saved if saved is not None and saved.exists() else None
    finally:
        for suffix in ("", "-wal", "-shm", "-journal"):
            Path(f"{staged}{suffix}").unlink(missing_ok=True)
