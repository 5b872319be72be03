"""Version 4 (tags, saved searches, history, trash) from a library made by desk at version 3."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

from desk.core.library.facade import Library
from desk.core.runtime.paths import DATABASE_NAME
from desk.core.store import migrations


def _schema(path: Path) -> set[tuple[str, str, str]]:
    """Every table and index of a database, with its SQL whitespace-normalised."""
    conn = sqlite3.connect(path)
    rows = conn.execute("SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL").fetchall()
    conn.close()
    return {(t, n, re.sub(r"\s+", " ", re.sub(r"\s*,\s*", ", ", s)).strip()) for t, n, s in rows}


# Made by main at e637bf5 (schema 3): one seed list imported, papers 1-3 starred, 2 and 4 read,
# a note on 3, 4 retitled, 6 merged into 5, 7 and 8 said not to be duplicates (sqlite3 .dump).
V3_DUMP = Path(__file__).resolve().parents[1] / "data" / "library-v3.sql"


def _v3_library(path: Path) -> Path:
    path.mkdir()
    conn = sqlite3.connect(path / DATABASE_NAME)
    conn.executescript(V3_DUMP.read_text(encoding="utf-8"))
    conn.close()
    return path


def test_a_version_3_library_is_backed_up_then_upgraded_keeping_everything(tmp_path: Path) -> None:
    old = _v3_library(tmp_path / "old")
    conn = sqlite3.connect(old / DATABASE_NAME)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == 3
    conn.close()
    with Library(old) as lib:
        assert lib.check() == []
        assert lib.count() == 18
        assert [p.id for p in lib.list_papers(starred=True)] == [1, 2, 3]
        assert lib.paper(3).note == "a *note* — ünïcode" and lib.paper(4).title == "My title"
        assert lib.paper(2).read and lib.paper(4).read
        assert (7, 8) in lib.duplicates.distinct_pairs()
        assert lib.history.undo() is None  # nothing before version 4 is in the history
        change = lib.tags.add([1, 2, 3], "upgraded")
        assert change.added == (1, 2, 3)
        assert sorted(r.paper.id for r in lib.search("tag:upgraded").rows) == [1, 2, 3]
        assert lib.duplicates.unmerge(5) == [6]  # a version-3 merge still undoes
        assert lib.check() == []
    backups = list((old / "backups").glob("before-migration-v3-*.sqlite3"))
    assert len(backups) == 1
    conn = sqlite3.connect(backups[0])
    assert conn.execute("PRAGMA user_version").fetchone()[0] == 3
    assert conn.execute("SELECT count(*) FROM paper").fetchone()[0] == 18
    conn.close()
    with Library(tmp_path / "new"):
        pass
    assert migrations.SCHEMA_VERSION >= 4  # a later step keeps what version 4 made
    assert _schema(old / DATABASE_NAME) == _schema(tmp_path / "new" / DATABASE_NAME)
