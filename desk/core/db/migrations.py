"""Schema versions in PRAGMA user_version: create, upgrade step by step (backup first), refuse newer."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy import Connection, Engine, inspect

from desk.core.db.models import Base
from desk.core.errors import LibraryDamaged, LibraryTooNew

SCHEMA_VERSION = 3


def _v2_merges(conn: Connection) -> None:
    """Version 2: merge records, key aliases and "not a duplicate" pairs (issue #5)."""
    from desk.core.db.models import DistinctPair, KeyAlias, MergeRecord

    for model in (MergeRecord, KeyAlias, DistinctPair):
        model.__table__.create(conn)  # type: ignore[attr-defined]


def _v3_hashed_keys(conn: Connection) -> None:
    """Version 3: duplicate keys stored as their digest (desk.core.text.normalize.stored_key)."""
    from desk.core.text.normalize import stored_key

    raw = conn.connection.driver_connection
    raw.create_function("desk_stored_key", 1, stored_key, deterministic=True)  # type: ignore[union-attr]
    conn.exec_driver_sql("UPDATE paper SET key = desk_stored_key(key)")
    conn.exec_driver_sql("UPDATE key_alias SET key = desk_stored_key(key)")


# MIGRATIONS[n] upgrades a database at version n - 1 to version n, inside one transaction.
MIGRATIONS: dict[int, Callable[[Connection], None]] = {2: _v2_merges, 3: _v3_hashed_keys}


def user_version(conn: Connection) -> int:
    """The schema version recorded in the database file."""
    return int(conn.exec_driver_sql("PRAGMA user_version").scalar() or 0)


def backup_before_migration(db_path: Path, backup_dir: Path, version: int) -> Path:
    """Copy the database (online backup) before changing its schema; returns the copy's path."""
    backup_dir.mkdir(parents=True, exist_ok=True)
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    dest = backup_dir / f"before-migration-v{version}-{stamp}.sqlite3"
    src = sqlite3.connect(db_path)
    try:
        out = sqlite3.connect(dest)
        try:
            src.backup(out)
        finally:
            out.close()
    finally:
        src.close()
    return dest


def migrate(engine: Engine, db_path: Path, backup_dir: Path) -> None:
    """Bring the database to SCHEMA_VERSION, or refuse one written by a newer desk."""
    with engine.connect() as conn:
        version = user_version(conn)
        has_tables = bool(inspect(conn).get_table_names())
    if version > SCHEMA_VERSION:
        raise LibraryTooNew(
            f"this library was written by a newer desk (schema {version}; this desk knows up to "
            f"{SCHEMA_VERSION}); it was left untouched — update desk to open it"
        )
    if version == SCHEMA_VERSION:
        return
    if version == 0 and not has_tables:
        with engine.begin() as conn:
            Base.metadata.create_all(conn)
            conn.exec_driver_sql(f"PRAGMA user_version = {SCHEMA_VERSION}")
        return
    if version == 0:
        raise LibraryDamaged(f"{db_path} holds tables but is not a desk library; it was left untouched")
    if db_path.exists() and db_path.stat().st_size > 0:
        backup_before_migration(db_path, backup_dir, version)
    with engine.begin() as conn:
        for step in range(version + 1, SCHEMA_VERSION + 1):
            MIGRATIONS[step](conn)
        conn.exec_driver_sql(f"PRAGMA user_version = {SCHEMA_VERSION}")
