"""Version 9: derived titles and short names re-derived on upgrade, the titles users set kept."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from sqlalchemy import create_engine

from desk.core.library.facade import Library
from desk.core.runtime.paths import DATABASE_NAME
from desk.core.store import migrations
from desk.core.text import derive_title, find_short_name
from desk.core.text.normalize import stored_key

NAMED = (
    "Routing queries between language models wastes compute. We propose LANTERN, a router that "
    "sends each query to the cheapest model likely to answer it. LANTERN halves the cost of a "
    "strong baseline at equal accuracy."
)
RETITLED = (
    "We study how sparse attention behaves on long documents. And we find that most heads attend "
    "locally, so a sliding window keeps accuracy while cutting memory."
)
TRASHED = (
    "Graph neural networks (GNNs) oversmooth on deep stacks. We introduce SPRING, a residual "
    "scheme that keeps node features apart, and show SPRING trains 64 layers deep."
)


def _paper(conn: object, pid: int, abstract: str, title: str, short: str | None, user: str | None) -> None:
    conn.exec_driver_sql(  # type: ignore[attr-defined]
        "INSERT INTO paper (id, key, abstract_raw, abstract, derived_title, user_title, short_name, starred,"
        " read, note, rev, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, 0, 0, '', 3,"
        " '2026-01-01 00:00:00', '2026-01-01 00:00:00')",
        (pid, stored_key(f"k{pid}"), abstract, abstract, title, user, short),
    )
    conn.exec_driver_sql(  # type: ignore[attr-defined]
        'INSERT INTO source (paper_id, file, "index", collection, import_id)'
        " VALUES (?, 'old.txt', ?, 'Old 2026 Papers', 1)",
        (pid, pid),
    )


def _version_8_library(path: Path) -> None:
    """A library as desk at schema 8 left it: titles and names by the old rules, one retitled paper,
    one paper in the trash."""
    path.mkdir()
    engine = create_engine(f"sqlite:///{path / DATABASE_NAME}")
    with engine.begin() as conn:
        migrations.upgrade(conn, 0, 8)
        conn.exec_driver_sql(
            "INSERT INTO import_record (sha256, file, path, collection, encoding, paragraphs, added,"
            " merged, imported_at) VALUES ('ab', 'old.txt', '/x/old.txt', 'Old 2026 Papers', 'utf-8',"
            " 3, 3, 0, '2026-01-01 00:00:00')"
        )
        _paper(conn, 1, NAMED, "Neural: Routing queries", "Neural", None)
        _paper(conn, 2, RETITLED, "And we find that most heads attend", "AND", "Sparse heads, read by me")
        snapshot = {
            "id": 3, "key": stored_key("k3"), "abstract_raw": TRASHED, "abstract": TRASHED,
            "derived_title": "That: oversmooth", "user_title": None, "short_name": "GNNs", "starred": False,
            "read": False, "note": "", "rev": 1, "created_at": "2026-01-01T00:00:00",
            "updated_at": "2026-01-01T00:00:00", "sources": [["old.txt", 3, "Old 2026 Papers", 1]],
            "tags": [], "aliases": [], "distinct": [],
        }  # fmt: skip
        conn.exec_driver_sql(
            "INSERT INTO trash_entry (paper_id, title, has_note, snapshot, list_id, removed_at)"
            " VALUES (3, 'That: oversmooth', 0, ?, NULL, '2026-01-02 00:00:00')",
            (json.dumps(snapshot),),
        )
    engine.dispose()


def test_upgrading_rederives_titles_and_names_keeping_the_users_title(tmp_path: Path) -> None:
    old = tmp_path / "old"
    _version_8_library(old)
    with Library(old) as lib:
        assert lib.check() == []  # the index was built from the new titles, the listing agrees
        named, retitled = lib.paper(1), lib.paper(2)
        assert named.short_name == "LANTERN" and named.title == derive_title(NAMED, "LANTERN")
        assert named.title.startswith("LANTERN: ")
        assert retitled.title == "Sparse heads, read by me"  # the user's own title is kept
        assert retitled.short_name is None  # "AND" was no name
        assert [r.paper.id for r in lib.search("name:lantern").rows] == [1]
        assert not lib.search("name:neural").rows
        (trashed,) = lib.trash.papers()
        assert trashed.paper.title == derive_title(TRASHED, find_short_name(TRASHED))
        assert trashed.paper.short_name == "SPRING"
        assert lib.trash.restore([3]) == [3]
        assert lib.paper(3).short_name == "SPRING" and lib.paper(3).title == trashed.paper.title
        assert lib.check() == []
    conn = sqlite3.connect(old / DATABASE_NAME)
    try:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == migrations.SCHEMA_VERSION
        row = conn.execute("SELECT derived_title, user_title, rev FROM paper WHERE id = 2").fetchone()
        derived, user, rev = row
        assert user == "Sparse heads, read by me" and not derived.startswith("And") and rev == 4
    finally:
        conn.close()
    (backup,) = (old / "backups").glob("before-migration-v8-*.sqlite3")
    conn = sqlite3.connect(backup)
    try:  # the copy taken first holds the library as it was
        assert conn.execute("SELECT short_name FROM paper WHERE id = 1").fetchone()[0] == "Neural"
    finally:
        conn.close()


def test_a_library_at_the_new_version_is_not_rederived_again(tmp_path: Path) -> None:
    old = tmp_path / "old"
    _version_8_library(old)
    with Library(old):
        pass
    conn = sqlite3.connect(old / DATABASE_NAME)
    conn.execute("UPDATE paper SET derived_title = 'Kept as it is' WHERE id = 1")
    conn.commit()
    conn.close()
    with Library(old) as lib:
        assert lib.paper(1).title == "Kept as it is"
