"""Schema versions, refusal of newer libraries, and backups before migrations."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from desk.core.db import migrations
from desk.core.errors import LibraryDamaged, LibraryTooNew
from desk.core.library import Library
from desk.core.paths import DATABASE_NAME


def test_new_library_has_current_schema_version_and_wal(tmp_path: Path) -> None:
    with Library(tmp_path / "L"):
        pass
    conn = sqlite3.connect(tmp_path / "L" / DATABASE_NAME)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == migrations.SCHEMA_VERSION
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    conn.close()


def test_newer_library_is_refused_untouched(seeded_dir: Path) -> None:
    db = seeded_dir / DATABASE_NAME
    conn = sqlite3.connect(db)
    conn.execute(f"PRAGMA user_version = {migrations.SCHEMA_VERSION + 1}")
    conn.commit()
    conn.close()
    before = db.read_bytes()
    with pytest.raises(LibraryTooNew, match="newer desk"):
        Library(seeded_dir)
    assert db.read_bytes() == before


def test_not_a_database_is_refused_plainly(tmp_path: Path) -> None:
    lib_dir = tmp_path / "L"
    lib_dir.mkdir()
    (lib_dir / DATABASE_NAME).write_bytes(b"hello, this is not sqlite" * 200)
    with pytest.raises(LibraryDamaged):
        Library(lib_dir)


def test_older_schema_is_migrated_after_a_backup(seeded_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ran: list[int] = []

    def step(conn) -> None:  # a real schema change: a new table
        conn.exec_driver_sql("CREATE TABLE migration_probe (id INTEGER PRIMARY KEY)")
        ran.append(1)

    monkeypatch.setattr(migrations, "SCHEMA_VERSION", migrations.SCHEMA_VERSION + 1)
    monkeypatch.setitem(migrations.MIGRATIONS, migrations.SCHEMA_VERSION, step)
    with Library(seeded_dir) as lib:
        assert lib.count() == 94
    assert ran == [1]
    backups = list((seeded_dir / "backups").glob("before-migration-*.sqlite3"))
    assert len(backups) == 1
    conn = sqlite3.connect(backups[0])
    assert conn.execute("SELECT count(*) FROM paper").fetchone()[0] == 94
    conn.close()


def test_failed_migration_rolls_back(seeded_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def step(conn) -> None:
        conn.exec_driver_sql("CREATE TABLE half_done (id INTEGER)")
        raise RuntimeError("boom")

    old = migrations.SCHEMA_VERSION
    monkeypatch.setattr(migrations, "SCHEMA_VERSION", old + 1)
    monkeypatch.setitem(migrations.MIGRATIONS, old + 1, step)
    with pytest.raises(RuntimeError):
        Library(seeded_dir)
    conn = sqlite3.connect(seeded_dir / DATABASE_NAME)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == old
    assert not conn.execute("SELECT name FROM sqlite_master WHERE name='half_done'").fetchall()
    conn.close()
