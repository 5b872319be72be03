"""Schema versions in PRAGMA user_version: create, upgrade step by step (backup first), refuse newer.

A new library runs every step from version 1, so it has exactly the tables an old library has
after upgrading; each step's DDL is frozen in ``desk.core.store.schema_steps``.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy import Connection, Engine, inspect

from desk.core.runtime.errors import LibraryDamaged, LibraryTooNew
from desk.core.store import schema_steps
from desk.core.store.backup import online_copy
from desk.core.store.schema_version import SCHEMA_VERSION

# MIGRATIONS[n] upgrades a database at version n - 1 to version n, inside one transaction.
MIGRATIONS: dict[int, Callable[[Connection], None]] = {
    1: schema_steps.upgrade_1_base_tables,
    2: schema_steps.upgrade_2_merges,
    3: schema_steps.upgrade_3_hashed_keys,
    4: schema_steps.upgrade_4_tags_history_trash,
    5: schema_steps.upgrade_5_covering_indexes,
    6: schema_steps.upgrade_6_paper_digest,
    7: schema_steps.upgrade_7_list_row_index,
    8: schema_steps.upgrade_8_paper_listing,
    9: schema_steps.upgrade_9_paper_metadata,
    10: schema_steps.upgrade_10_rederived_titles,
}


def user_version(conn: Connection) -> int:
    """The schema version recorded in the database file."""
    return int(conn.exec_driver_sql("PRAGMA user_version").scalar() or 0)


def backup_before_migration(db_path: Path, backup_dir: Path, version: int) -> Path:
    """Copy the database (online backup) before changing its schema; returns the copy's path."""
    backup_dir.mkdir(parents=True, exist_ok=True)
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    dest = backup_dir / f"before-migration-v{version}-{stamp}.sqlite3"
    online_copy(db_path, dest)
    return dest


def upgrade(conn: Connection, from_version: int, to_version: int | None = None) -> None:
    """Run the steps from_version+1 .. to_version (default: the newest) on conn; record the version.

    The caller owns the transaction.
    """
    if to_version is None:
        to_version = SCHEMA_VERSION
    for step in range(from_version + 1, to_version + 1):
        MIGRATIONS[step](conn)
    conn.exec_driver_sql(f"PRAGMA user_version = {to_version}")


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
    if version == 0 and has_tables:
        raise LibraryDamaged(f"{db_path} holds tables but is not a desk library; it was left untouched")
    if version > 0 and db_path.exists() and db_path.stat().st_size > 0:
        backup_before_migration(db_path, backup_dir, version)
    with engine.begin() as conn:
        upgrade(conn, version)
