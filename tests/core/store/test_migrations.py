"""Upgrading from every earlier schema version: frozen steps, the same tables as a new library."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import pytest
from sqlalchemy import create_engine

from desk.core.library.facade import Library
from desk.core.runtime.paths import DATABASE_NAME
from desk.core.store import migrations
from desk.core.store.models import Base
from desk.core.text import dedup_key, derive_title
from desk.core.text.normalize import stored_key

ABSTRACT = (
    "We study how a small library of frozen migration steps keeps old databases readable. "
    "Our method, called STEPWISE, upgrades each version in one transaction."
)


def _schema(path: Path) -> set[tuple[str, str, str]]:
    """Every table and index of a database, with its SQL whitespace-normalised."""
    conn = sqlite3.connect(path)
    try:
        rows = conn.execute("SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL").fetchall()
    finally:
        conn.close()
    return {(t, n, re.sub(r"\s+", " ", re.sub(r"\s*,\s*", ", ", s)).strip()) for t, n, s in rows}


def _library_at(version: int, path: Path) -> None:
    """A database built the way desk at that version built it, holding one paper with a source."""
    engine = create_engine(f"sqlite:///{path}")
    with engine.begin() as conn:
        migrations.upgrade(conn, 0, version)
        key = dedup_key(ABSTRACT) if version < 3 else stored_key(dedup_key(ABSTRACT))
        conn.exec_driver_sql(
            "INSERT INTO paper (key, abstract_raw, abstract, derived_title, starred, read, note, rev,"
            " created_at, updated_at) VALUES (?, ?, ?, 'Frozen steps', 1, 0, 'my note', 1,"
            " '2026-01-01 00:00:00', '2026-01-01 00:00:00')",
            (key, ABSTRACT, ABSTRACT),
        )
        conn.exec_driver_sql(
            "INSERT INTO import_record (sha256, file, path, collection, encoding, paragraphs, added,"
            " merged, imported_at) VALUES ('ab', 'old.txt', '/x/old.txt', 'Old 2020 Papers', 'utf-8',"
            " 1, 1, 0, '2026-01-01 00:00:00')"
        )
        conn.exec_driver_sql(
            'INSERT INTO source (paper_id, file, "index", collection, import_id)'
            " VALUES (1, 'old.txt', 0, 'Old 2020 Papers', 1)"
        )
    engine.dispose()


def test_a_new_library_has_exactly_the_tables_the_models_describe(tmp_path: Path) -> None:
    with Library(tmp_path / "new"):
        pass
    engine = create_engine(f"sqlite:///{tmp_path / 'models.sqlite3'}")
    Base.metadata.create_all(engine)
    engine.dispose()
    assert _schema(tmp_path / "new" / DATABASE_NAME) == _schema(tmp_path / "models.sqlite3")


def test_no_step_builds_tables_from_todays_models() -> None:
    import inspect

    from desk.core.store import schema_steps

    source = inspect.getsource(schema_steps)
    assert "create_all" not in source and "__table__" not in source
    assert sorted(migrations.MIGRATIONS) == list(range(1, migrations.SCHEMA_VERSION + 1))


@pytest.mark.slow
@pytest.mark.parametrize("version", range(1, migrations.SCHEMA_VERSION))
def test_every_earlier_version_upgrades_to_the_new_librarys_shape(tmp_path: Path, version: int) -> None:
    old = tmp_path / "old"
    old.mkdir()
    _library_at(version, old / DATABASE_NAME)
    with Library(old) as lib:
        assert lib.check() == []
        assert lib.listing_mended == 0  # step 8 wrote the papers' list objects as the triggers do
        (paper,) = lib.list_papers()
        # Step 9 derives the title and short name anew from the abstract (no user title here).
        assert paper.starred and paper.title == derive_title(ABSTRACT, "STEPWISE")
        assert paper.short_name == "STEPWISE"
        assert lib.paper(paper.id).note == "my note"
        assert [r.paper.id for r in lib.search("STEPWISE").rows] == [paper.id]
        # The same text imported again lands on the upgraded paper (its key was carried over).
        again = tmp_path / "again.txt"
        again.write_text(f"New 2027 Papers\n\n{ABSTRACT}\n", encoding="utf-8")
        assert lib.import_paths([again]).added == 0
    assert list((old / "backups").glob(f"before-migration-v{version}-*.sqlite3"))
    with Library(tmp_path / "new"):
        pass
    assert _schema(old / DATABASE_NAME) == _schema(tmp_path / "new" / DATABASE_NAME)
