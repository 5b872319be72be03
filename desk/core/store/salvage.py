"""Copy what can still be read from a damaged library database into a new library.

SQLite's own ``.recover`` (the sqlite3 command-line shell) reads every page, even ones the
damaged b-tree no longer reaches; it is used first when the shell on this machine has it (it
needs the ``sqlite_dbpage`` table, which some builds leave out). Either way the rows are then
copied table by table into a fresh desk database made by desk's own migrations: a range of
rows that cannot be read is cut in halves until only the unreadable rows are left out, rows
that no longer fit (a source whose paper was lost) are dropped, and the new library's search
index is built from what was saved.
"""

from __future__ import annotations

import logging
import shutil
import sqlite3
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy import create_engine

from desk.core.runtime.errors import DeskError
from desk.core.runtime.paths import DATABASE_NAME
from desk.core.store import listing
from desk.core.store.migrations import SCHEMA_VERSION, upgrade

log = logging.getLogger(__name__)
_TOP_ROWID = 1 << 62
_CHUNK = 512


@dataclass
class SalvageReport:
    """What a salvage saved."""

    destination: Path
    method: str  # "sqlite3 .recover" or "row by row"
    rows: dict[str, int] = field(default_factory=dict)
    dropped: dict[str, int] = field(default_factory=dict)
    """Rows left out because what they point at was lost (a source without its paper)."""
    unreadable_ranges: int = 0


def recover_available(shell: str | None = None) -> bool:
    """Whether the sqlite3 shell here can run ``.recover``."""
    shell = shell or shutil.which("sqlite3")
    if shell is None:
        return False
    probe = subprocess.run(
        [shell, ":memory:", "SELECT count(*) FROM sqlite_dbpage"], capture_output=True, text=True, timeout=30
    )
    return probe.returncode == 0


def _recover(source: Path, into: Path) -> bool:
    """Run the shell's ``.recover`` of source into a new database file; False when it cannot."""
    shell = shutil.which("sqlite3")
    if shell is None or not recover_available(shell):
        return False
    dump = into.with_suffix(".sql")
    try:
        with dump.open("wb") as out:
            done = subprocess.run(
                [shell, str(source), ".recover"], stdout=out, stderr=subprocess.PIPE, timeout=3600
            )
        if done.returncode != 0 or b"COMMIT" not in dump.read_bytes()[-4096:]:
            log.debug("sqlite3 .recover failed: %s", done.stderr[-500:])
            return False
        with dump.open("rb") as sql:
            load = subprocess.run([shell, str(into)], stdin=sql, capture_output=True, timeout=3600)
        return load.returncode == 0
    except (OSError, subprocess.SubprocessError):
        log.debug("sqlite3 .recover could not run", exc_info=True)
        return False
    finally:
        dump.unlink(missing_ok=True)


def _user_version(conn: sqlite3.Connection) -> int:
    try:
        version = int(conn.execute("PRAGMA user_version").fetchone()[0])
    except (sqlite3.Error, TypeError, ValueError):
        return SCHEMA_VERSION
    return version if 1 <= version <= SCHEMA_VERSION else SCHEMA_VERSION


def _columns(conn: sqlite3.Connection, schema: str, table: str) -> list[str]:
    try:
        return [r[1] for r in conn.execute(f'PRAGMA {schema}.table_info("{table}")')]
    except sqlite3.Error:
        return []


def _readable_rows(
    src: sqlite3.Connection, table: str, cols: list[str], report: SalvageReport
) -> Iterator[tuple]:
    """Every row of table that can be read, a range at a time; unreadable ranges are halved."""
    names = ", ".join(f'"{c}"' for c in cols)
    sql = f'SELECT {names} FROM "{table}" NOT INDEXED WHERE rowid >= ? AND rowid < ?'
    try:
        top = src.execute(f'SELECT max(rowid) FROM "{table}"').fetchone()[0]
        known, lo, hi = True, 0, (0 if top is None else int(top) + 1)
        low = src.execute(f'SELECT min(rowid) FROM "{table}"').fetchone()[0]
        lo = 0 if low is None else min(0, int(low))
    except sqlite3.Error:  # the tree cannot say where its rows end: halve the whole rowid range
        known, lo, hi = False, -_TOP_ROWID, _TOP_ROWID
    stack = [(lo, hi)]
    while stack:
        a, b = stack.pop()
        if known and b - a > _CHUNK:
            stack.append((a + _CHUNK, b))
            b = a + _CHUNK
        try:
            rows = src.execute(sql, (a, b)).fetchall()
        except sqlite3.Error:
            if b - a <= 1:
                report.unreadable_ranges += 1
                continue
            mid = a + (b - a) // 2
            stack += [(mid, b), (a, mid)]
            continue
        yield from rows


def _copy_tables(src_path: Path, dest_path: Path, report: SalvageReport) -> None:
    src = sqlite3.connect(f"file:{src_path}?mode=ro", uri=True)
    src.text_factory = lambda b: b.decode("utf-8", "replace")
    conn = sqlite3.connect(dest_path)
    try:
        conn.execute("PRAGMA foreign_keys = OFF")
        tables = [
            r[0]
            for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY rowid")
            if not r[0].startswith("sqlite_") and not r[0].startswith("paper_listing")  # derived: below
        ]
        for table in tables:
            wanted = _columns(conn, "main", table)
            have = set(_columns(src, "main", table))
            cols = [c for c in wanted if c in have]
            if not cols:
                continue
            names = ", ".join(f'"{c}"' for c in cols)
            insert = f'INSERT OR IGNORE INTO "{table}" ({names}) VALUES ({", ".join("?" * len(cols))})'
            copied = 0
            batch: list[tuple] = []
            for row in _readable_rows(src, table, cols, report):
                batch.append(row)
                if len(batch) >= _CHUNK:
                    copied += _insert(conn, insert, batch)
                    batch = []
            copied += _insert(conn, insert, batch)
            report.rows[table] = copied
        conn.commit()
        _drop_orphans(conn, report)
        listing.rebuild(conn)  # from the rows saved, not from the damaged file's own
        conn.execute("DELETE FROM index_queue")  # the new library's index is built whole
        conn.commit()
    finally:
        conn.close()
        src.close()


def _insert(conn: sqlite3.Connection, insert: str, rows: list[tuple]) -> int:
    before = conn.total_changes
    for row in rows:
        try:
            conn.execute(insert, row)
        except sqlite3.Error:  # a value damage made unfit for its column
            continue
    return conn.total_changes - before


def _drop_orphans(conn: sqlite3.Connection, report: SalvageReport) -> None:
    while True:
        broken = conn.execute("PRAGMA foreign_key_check").fetchall()
        if not broken:
            return
        for table, rowid, *_ in broken:
            conn.execute(f'DELETE FROM "{table}" WHERE rowid = ?', (rowid,))
            report.dropped[table] = report.dropped.get(table, 0) + 1
            report.rows[table] = report.rows.get(table, 1) - 1


def salvage(source: Path, destination: Path) -> SalvageReport:
    """Copy what can be read of the database file ``source`` into a new library folder
    ``destination`` (which must not exist, or be empty); the new library is ready to open."""
    if not source.is_file():
        raise DeskError(f"there is no library database at {source}")
    if destination.exists() and (not destination.is_dir() or any(destination.iterdir())):
        raise DeskError(f"{destination} is not empty: salvage into a new folder")
    destination.mkdir(parents=True, exist_ok=True)
    dest_db = destination / DATABASE_NAME
    with tempfile.TemporaryDirectory(prefix="desk-salvage-") as scratch:
        recovered = Path(scratch) / "recovered.sqlite3"
        readable, method = (
            (recovered, "sqlite3 .recover") if _recover(source, recovered) else (source, "row by row")
        )
        try:
            probe = sqlite3.connect(f"file:{readable}?mode=ro", uri=True)
            try:
                version = _user_version(probe)
            finally:
                probe.close()
        except sqlite3.Error:
            version = SCHEMA_VERSION
        engine = create_engine(f"sqlite:///{dest_db}")
        try:
            with engine.begin() as conn:
                upgrade(conn, 0, version)
        finally:
            engine.dispose()
        report = SalvageReport(destination, method)
        _copy_tables(readable, dest_db, report)
    return report
