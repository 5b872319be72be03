"""The SQLite engine: WAL, real transactions, busy waiting, sessions and backups."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.exc import DatabaseError, OperationalError
from sqlalchemy.orm import Session, sessionmaker

from desk.core.db.backup import online_copy
from desk.core.db.migrations import migrate
from desk.core.errors import LibraryBusy, LibraryDamaged

BUSY_TIMEOUT_MS = 10_000


def _on_connect(dbapi_connection: sqlite3.Connection, _record: Any) -> None:
    # Let SQLAlchemy's begin event issue BEGIN itself, so DDL and reads are transactional too.
    dbapi_connection.isolation_level = None
    cur = dbapi_connection.cursor()
    cur.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    cur.execute("PRAGMA foreign_keys = ON")
    cur.execute("PRAGMA journal_mode = WAL")
    cur.execute("PRAGMA synchronous = NORMAL")
    cur.close()


def _on_begin(conn: Any) -> None:
    # Writers take the write lock up front so two copies queue instead of deadlocking.
    write = conn.get_execution_options().get("desk_write", False)
    conn.exec_driver_sql("BEGIN IMMEDIATE" if write else "BEGIN")


class Database:
    """One library database file: the engine, read and write sessions, and backups."""

    def __init__(self, path: Path, backup_dir: Path | None = None) -> None:
        self.path = path
        self.engine: Engine = create_engine(f"sqlite:///{path}", future=True)
        event.listen(self.engine, "connect", _on_connect)
        event.listen(self.engine, "begin", _on_begin)
        self._write_engine = self.engine.execution_options(desk_write=True)
        self._read = sessionmaker(self.engine, expire_on_commit=False)
        self._write = sessionmaker(self._write_engine, expire_on_commit=False)
        self._version_conn: sqlite3.Connection | None = None  # see data_version
        self._version_lock = threading.Lock()
        try:
            migrate(self.engine, path, backup_dir or path.parent / "backups")
        except OperationalError as exc:
            self.engine.dispose()
            if "locked" in str(exc):
                raise LibraryBusy("the library is busy: another desk is writing to it; try again") from exc
            raise LibraryDamaged(f"{path} cannot be opened as a desk library: {exc.orig}") from exc
        except DatabaseError as exc:
            self.engine.dispose()
            raise LibraryDamaged(f"{path} is not a desk library (or it is damaged): {exc.orig}") from exc

    @contextmanager
    def reading(self) -> Iterator[Session]:
        """A session for one unit of read-only work."""
        with self._read() as session, session.begin():
            yield session

    @contextmanager
    def writing(self) -> Iterator[Session]:
        """A session for one unit of work that writes; committed at the end, rolled back on error."""
        try:
            with self._write() as session, session.begin():
                yield session
        except OperationalError as exc:
            if "locked" in str(exc) or "busy" in str(exc):
                raise LibraryBusy(
                    "the library is busy: another desk kept it locked for "
                    f"{BUSY_TIMEOUT_MS / 1000:g} s; try again in a moment"
                ) from exc
            raise

    def integrity_problems(self) -> list[str]:
        """SQLite's own integrity and foreign-key checks; empty when the file is sound."""
        problems: list[str] = []
        with self.engine.connect() as conn:
            rows = conn.exec_driver_sql("PRAGMA integrity_check").fetchall()
            problems += [f"database: {r[0]}" for r in rows if r[0] != "ok"]
            fk = conn.exec_driver_sql("PRAGMA foreign_key_check").fetchall()
            problems += [f"database: broken reference in {r[0]} row {r[1]}" for r in fk]
        return problems

    def backup_to(self, dest: Path) -> None:
        """Copy the live database to dest with SQLite's online backup (consistent while in use)."""
        dest.parent.mkdir(parents=True, exist_ok=True)
        tmp = dest.with_name(dest.name + ".part")
        tmp.unlink(missing_ok=True)
        online_copy(self.path, tmp, timeout_s=BUSY_TIMEOUT_MS / 1000)
        tmp.replace(dest)

    def data_version(self) -> int:
        """A number that changes whenever another connection (another process too) committed.

        SQLite's `PRAGMA data_version`, asked on a connection kept for this alone (the pool's
        connections change from call to call, and the counter is per connection); it holds no lock.
        """
        with self._version_lock:
            if self._version_conn is None:
                self._version_conn = sqlite3.connect(self.path, check_same_thread=False)
            row = self._version_conn.execute("PRAGMA data_version").fetchone()
        return int(row[0])

    def close(self) -> None:
        """Release every connection."""
        with self._version_lock:
            if self._version_conn is not None:
                self._version_conn.close()
                self._version_conn = None
        self.engine.dispose()
