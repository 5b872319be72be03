"""Schema versions, refusal of newer libraries, and backups before migrations."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from desk.core.library.facade import Library
from desk.core.runtime.errors import LibraryDamaged, LibraryTooNew
from desk.core.runtime.paths import DATABASE_NAME
from desk.core.store import migrations


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


def test_version_2_keys_become_digests_and_reimports_still_match(seeded_dir: Path, seeds_dir: Path) -> None:
    from sqlalchemy import text

    from desk.core.text import dedup_key
    from desk.core.text.normalize import stored_key

    # A version-2 library kept each paper's duplicate key as text (and merged-away keys as aliases).
    conn = sqlite3.connect(seeded_dir / DATABASE_NAME)
    rows = conn.execute("SELECT id, abstract_raw FROM paper").fetchall()
    for paper_id, raw in rows:
        conn.execute("UPDATE paper SET key = ? WHERE id = ?", (dedup_key(raw), paper_id))
    alias_text = dedup_key("An abstract once merged into paper one. It had its own words.")
    conn.execute(
        "INSERT INTO merge_record (keep_id, merged_ids, snapshot, created_at) VALUES (?, ?, '{}', ?)",
        (rows[0][0], "9", "2026-01-01"),
    )
    conn.execute("INSERT INTO key_alias (key, paper_id, merge_id) VALUES (?, ?, 1)", (alias_text, rows[0][0]))
    conn.execute("DROP TRIGGER paper_real_title")  # version 9's
    conn.execute("DROP TABLE paper_meta")
    conn.execute("DROP TABLE paper_author")
    listing_triggers = conn.execute(
        "SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'paper_listing_%'"
    )
    for (trigger,) in listing_triggers.fetchall():
        conn.execute(f"DROP TRIGGER {trigger}")  # version 8's
    conn.execute("DROP TABLE paper_listing")
    conn.execute("DROP TABLE paper_listing_deferred")
    for table in ("trash_entry", "removed_list", "history_step", "saved_search", "paper_tag", "tag"):
        conn.execute(f"DROP TABLE {table}")  # version 4's tables
    for index in ("ix_paper_rev", "ix_paper_noted", "ix_source_collection_paper"):
        conn.execute(f"DROP INDEX {index}")  # version 5's
    for trigger in ("paper_digest_insert", "paper_digest_delete", "paper_digest_update"):
        conn.execute(f"DROP TRIGGER {trigger}")  # version 6's
    conn.execute("DROP TABLE paper_digest")
    conn.execute("DROP INDEX ix_paper_row")  # version 7's
    conn.execute("PRAGMA user_version = 2")
    conn.commit()
    conn.close()
    with Library(seeded_dir) as lib:
        assert lib.check() == []
        with lib.db.reading() as session:
            keys = dict(session.execute(text("SELECT id, key FROM paper")).all())
            aliases = [k for (k,) in session.execute(text("SELECT key FROM key_alias")).all()]
        assert keys == {paper_id: stored_key(dedup_key(raw)) for paper_id, raw in rows}
        assert aliases == [stored_key(alias_text)]
        assert lib.import_paths([seeds_dir]).added == 0  # the same files: nothing new
        assert lib.import_paths([_list_with(seeded_dir.parent, rows[5][1])]).added == 0  # same text, new file
    assert list((seeded_dir / "backups").glob("before-migration-v2-*.sqlite3"))


def _list_with(folder: Path, abstract: str) -> Path:
    path = folder / "again.txt"
    path.write_text(f"Another Conference 2027 Papers\n\n{abstract}\n", encoding="utf-8")
    return path
