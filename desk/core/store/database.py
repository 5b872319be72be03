"""The SQLite engine: WAL, real transactions, busy waiting, sessions and backups."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import create_engine, event
from sqlalchemy.exc import DBAPIError, OperationalError
from sqlalchemy.orm import Session, sessionmaker

from desk.core.runtime import failures
from desk.core.runtime.errors import DeskError, LibraryBusy, LibraryDamaged, LibraryReadOnly
from desk.core.runtime.files import replace_file
from desk.core.runtime.paths import INDEX_DIR_NAME
from desk.core.store import listing
from desk.core.store.backup import online_copy
from desk.core.store.migrations import SCHEMA_VERSION, migrate

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


def _on_connect_read_only(dbapi_connection: sqlite3.Connection, _record: Any) -> None:
    dbapi_connection.isolation_level = None
    dbapi_connection.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")


def _on_begin(conn: Any) -> None:
    # Writers take the write lock up front so two copies queue instead of deadlocking.
    options = conn.get_execution_options()
    if options.get("desk_nowait", False):  # a rehearsal: the lock now or not at all
        conn.exec_driver_sql("PRAGMA busy_timeout = 0")
        try:
            conn.exec_driver_sql("BEGIN IMMEDIATE")
        finally:
            conn.exec_driver_sql(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        return
    conn.exec_driver_sql("BEGIN IMMEDIATE" if options.get("desk_write", False) else "BEGIN")


class Database:
    """One library database file: the engine, read and write sessions, and backups."""

    def __init__(self, path: Path, backup_dir: Path | None = None) -> None:
        self.path = path
        self.read_only = False
        """Opened for reading only: the library folder cannot be written (writes say so)."""
        _refuse_emptied(path)
        self._version_conn: sqlite3.Connection | None = None  # see data_version
        self._version_lock = threading.Lock()
        try:
            self._open(f"sqlite:///{path}", _on_connect)
            migrate(self.engine, path, backup_dir or path.parent / "backups")
        except DeskError:
            self.engine.dispose()
            raise
        except (DBAPIError, sqlite3.Error, OSError) as exc:
            self.engine.dispose()
            plain = failures.translate(exc, path)
            if isinstance(plain, LibraryReadOnly) and self._open_read_only():
                return
            if plain is None:
                why = failures.message_of(exc)
                plain = LibraryDamaged(
                    f"{path} cannot be opened as a desk library ({why}): {failures.way_out(path.parent)}"
                )
            raise plain from exc

    def _open(self, url: str, on_connect: Any) -> None:
        self.engine = create_engine(url, future=True)
        event.listen(self.engine, "connect", on_connect)
        event.listen(self.engine, "begin", _on_begin)
        self._write_engine = self.engine.execution_options(desk_write=True)
        self._read = sessionmaker(self.engine, expire_on_commit=False)
        self._write = sessionmaker(self._write_engine, expire_on_commit=False)
        self._rehearse = sessionmaker(self._write_engine.execution_options(desk_nowait=True))

    def _open_read_only(self) -> bool:
        """Open a library in a folder that cannot be written, for reading (True when it can be).

        SQLite reads a WAL database there only as an immutable file, which is exact when no
        ``-wal`` file holds commits not yet copied into the database file.
        """
        wal = Path(f"{self.path}-wal")
        if not self.path.is_file() or (wal.exists() and wal.stat().st_size > 0):
            return False
        self._open(f"sqlite:///file:{self.path}?mode=ro&immutable=1&uri=true", _on_connect_read_only)
        try:
            with self.engine.connect() as conn:
                if int(conn.exec_driver_sql("PRAGMA user_version").scalar() or 0) != SCHEMA_VERSION:
                    raise LibraryReadOnly(
                        f"the library folder is read-only: {self.path.parent} cannot be written, and the "
                        "library needs an upgrade before this desk can read it"
                    )
        except (DBAPIError, sqlite3.Error):
            self.engine.dispose()
            return False
        self.read_only = True
        return True

    def _plain(self, exc: BaseException) -> BaseException:
        """``exc`` as a plain-words DeskError when it is a failure of the disk or the file."""
        plain = failures.translate(exc, self.path)
        if isinstance(plain, LibraryBusy) and isinstance(exc, OperationalError):
            return LibraryBusy(
                "the library is busy: another desk kept it locked for "
                f"{BUSY_TIMEOUT_MS / 1000:g} s; try again in a moment"
            )
        return plain or exc

    @contextmanager
    def reading(self) -> Iterator[Session]:
        """A session for one unit of read-only work."""
        try:
            with self._read() as session, session.begin():
                yield session
        except (DBAPIError, sqlite3.Error) as exc:
            plain = self._plain(exc)
            if plain is exc:
                raise
            raise plain from exc

    @contextmanager
    def writing(self) -> Iterator[Session]:
        """A session for one unit of work that writes; committed at the end, rolled back on error."""
        if self.read_only:
            raise LibraryReadOnly(f"the library folder is read-only: {self.path.parent} cannot be written")
        try:
            with self._write() as session, session.begin():
                yield session
        except (DBAPIError, sqlite3.Error) as exc:
            plain = self._plain(exc)
            if plain is exc:
                raise
            raise plain from exc

    @contextmanager
    def rehearsing(self) -> Iterator[Session]:
        """A write session that is always rolled back: nothing it does is written.

        For running a change's statements once before a user makes one, so that SQLAlchemy has
        compiled them (it keeps what it compiled per statement shape). The write lock is taken
        only if it is free at once (LibraryBusy otherwise): a rehearsal never waits for another
        process, and holds the lock for the few milliseconds its statements take.
        """
        if self.read_only:
            raise LibraryReadOnly(f"the library folder is read-only: {self.path.parent} cannot be written")
        try:
            with self._rehearse() as session:
                session.begin()
                try:
                    session.connection()  # BEGIN IMMEDIATE here: the lock now, or LibraryBusy
                    yield session
                finally:
                    session.rollback()
        except (DBAPIError, sqlite3.Error) as exc:
            plain = self._plain(exc)
            if plain is exc:
                raise
            raise plain from exc

    def integrity_problems(self) -> list[str]:
        """SQLite's own integrity and foreign-key checks, in plain words; empty when the file is sound."""
        problems: list[str] = []
        try:
            with self.engine.connect() as conn:
                rows = conn.exec_driver_sql("PRAGMA integrity_check(100)").fetchall()
                found = [
                    ln.strip()
                    for r in rows
                    if r[0] != "ok"
                    for ln in str(r[0]).splitlines()
                    if ln.strip() and not ln.startswith("***")
                ]
                problems += [f"database: {ln}" for ln in found[:5]]
                if len(found) > 5:
                    problems.append("database: … and more problems")
                if not problems:
                    fk = conn.exec_driver_sql("PRAGMA foreign_key_check").fetchall()
                    problems += [f"database: broken reference in {r[0]} row {r[1]}" for r in fk]
        except (DBAPIError, sqlite3.Error) as exc:
            plain = self._plain(exc)
            if plain is exc:
                raise
            if not isinstance(plain, LibraryDamaged):
                raise plain from exc
            problems.append(f"database: {failures.message_of(exc)}")
        if problems:
            problems.insert(0, f"database: {self.path} is damaged; {failures.way_out(self.path.parent)}")
        return problems

    def is_sound(self) -> bool:
        """Whether SQLite's quick check passes (reads every page, faster than integrity_check)."""
        return _quick_check(self.path) is None

    def backup_to(self, dest: Path, *, force: bool = False) -> None:
        """Copy the live database to dest with SQLite's online backup (consistent while in use).

        The copy is checked before it takes dest's place: a damaged library is refused (a
        damaged copy would replace a good backup) unless ``force``. A symlink is written
        through; any other non-regular dest (a FIFO, a device, a folder) is refused.
        """

        def write(tmp: Path) -> None:
            online_copy(self.path, tmp, timeout_s=BUSY_TIMEOUT_MS / 1000)
            # The full check: the quick one reads every page but not whether each index holds
            # its table's rows (a scribbled page of ix_paper_key passed it, and was copied).
            damage = _quick_check(tmp, full=True)
            if damage is not None and not force:
                raise LibraryDamaged(
                    f"the library database {self.path} is damaged ({failures.first_problem(damage)}), so a "
                    f"copy would be damaged too; nothing was written to {dest}. "
                    f"{failures.way_out_sentence(self.path.parent)} `desk backup --force` copies it anyway"
                )

        try:
            replace_file(dest, write)
        except (DBAPIError, sqlite3.Error) as exc:
            plain = self._plain(exc)
            if plain is exc:
                raise
            raise plain from exc

    def mend_listing(self) -> int:
        """Write every paper's kept `desk list --json` object again (``desk.core.store.listing``) when
        any disagrees with the papers' rows; how many disagreed (0: nothing was written). The
        triggers keep them in every transaction: this mends a database edited without them. A
        read-only library's are only counted."""
        with self.reading() as session:
            wrong = listing.differences(_driver_connection(session))
        if wrong and not self.read_only:
            with self.writing() as session:
                listing.rebuild(_driver_connection(session))
        return len(wrong)

    def data_version(self) -> int:
        """A number that changes whenever another connection (another process too) committed.

        SQLite's `PRAGMA data_version`, asked on a connection kept for this alone (the pool's
        connections change from call to call, and the counter is per connection); it holds no lock.
        """
        with self._version_lock:
            if self._version_conn is None:
                where = f"file:{self.path}?mode=ro&immutable=1" if self.read_only else f"file:{self.path}"
                self._version_conn = sqlite3.connect(where, uri=True, check_same_thread=False)
            row = self._version_conn.execute("PRAGMA data_version").fetchone()
        return int(row[0])

    def close(self) -> None:
        """Release every connection."""
        with self._version_lock:
            if self._version_conn is not None:
                self._version_conn.close()
                self._version_conn = None
        self.engine.dispose()


def _driver_connection(session: Session) -> Any:
    """The sqlite3 connection under a session's transaction (statements run inside it)."""
    return session.connection().connection.driver_connection


def _quick_check(path: Path, *, full: bool = False) -> str | None:
    """The first problem SQLite's quick check (``full``: its integrity check, which also matches
    every index against its table) finds in the file at path, or None."""
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            row = conn.execute(f"PRAGMA {'integrity_check' if full else 'quick_check'}(1)").fetchone()
        finally:
            conn.close()
    except sqlite3.DatabaseError as exc:
        return str(exc)
    return None if row and row[0] == "ok" else str(row[0] if row else "no answer")


def _refuse_emptied(path: Path) -> None:
    """A library whose database became an empty file is not silently a new, empty library."""
    try:
        emptied = path.stat().st_size == 0
    except FileNotFoundError:
        return
    index = path.parent / INDEX_DIR_NAME
    if emptied and index.is_dir() and any(index.iterdir()):
        raise LibraryDamaged(
            f"the library database {path} is an empty file (0 bytes): the papers it held are not in it. "
            f"{failures.way_out_sentence(path.parent)} To start an empty library here, delete that file"
        )
