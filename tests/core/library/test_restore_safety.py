"""Restore checks a backup whole before swapping it in, and runs under the write lock."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from desk.core.library.facade import Library
from desk.core.runtime.paths import DATABASE_NAME

sys.path.insert(
    0,
    str(
        Path(__file__).resolve().parents[1] if Path(__file__).parent.name != "core" else Path(__file__).parent
    ),
)
from test_durability import write_lists


def desk(library: Path, *args: str) -> list[str]:
    return [sys.executable, "-m", "desk.cli.main", "--library", str(library), *args]


def test_restore_refuses_a_file_that_is_not_a_whole_desk_library(seeded_dir: Path, tmp_path: Path) -> None:
    fake = tmp_path / "fake.sqlite3"
    conn = sqlite3.connect(fake)
    conn.execute("CREATE TABLE paper (id INTEGER PRIMARY KEY, abstract TEXT)")
    conn.execute("PRAGMA user_version = 3")
    conn.commit()
    conn.close()
    before = (seeded_dir / DATABASE_NAME).read_bytes()
    proc = subprocess.run(desk(seeded_dir, "restore", str(fake)), capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1 and "is not a desk backup" in proc.stderr and "Traceback" not in proc.stderr
    assert (seeded_dir / DATABASE_NAME).read_bytes() == before
    with Library(seeded_dir) as lib:
        assert lib.count() == 94 and lib.check() == []


@pytest.mark.slow
def test_restore_puts_back_every_row_and_keeps_what_was_there(seeded_dir: Path, tmp_path: Path) -> None:
    with Library(seeded_dir) as lib:
        ids = lib.paper_ids()
        lib.set_starred(ids[:4], True)
        lib.duplicates.merge(ids[10], [ids[11]])
        backup = lib.backup(tmp_path / "b.sqlite3")
        lib.set_note(ids[0], "after the backup")
        lib.duplicates.unmerge(ids[10])
    proc = subprocess.run(
        desk(seeded_dir, "restore", str(backup)), capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr
    with Library(seeded_dir) as lib:
        assert lib.count() == 93 and lib.paper_ids(starred=True) == ids[:4]
        assert lib.paper(ids[0]).note == "" and lib.check() == []
        assert lib.duplicates.unmerge(ids[10]) == [ids[11]]  # the merge record came back with it
    kept = sorted((seeded_dir / "backups").glob("before-restore-*.sqlite3"))
    assert kept and sqlite3.connect(kept[-1]).execute("SELECT count(*) FROM paper").fetchone()[0] == 94


@pytest.mark.slow
def test_a_restore_and_an_import_at_once_end_in_one_state_or_the_other(
    seeded_dir: Path, tmp_path: Path
) -> None:
    with Library(seeded_dir) as lib:
        backup = lib.backup(tmp_path / "b.sqlite3")
    lists = tmp_path / "lists"
    write_lists(lists, files=6, per_file=150, seed=5)
    before = _paper_count(seeded_dir)
    importing = subprocess.Popen(desk(seeded_dir, "import", str(lists)), stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while importing.poll() is None and _paper_count(seeded_dir) == before and time.monotonic() < deadline:
        time.sleep(0.02)  # until the import committed its first list: the restore comes mid-import
    restoring = subprocess.run(
        desk(seeded_dir, "restore", str(backup)), capture_output=True, text=True, timeout=300
    )
    _, err = importing.communicate(timeout=300)
    assert "Traceback" not in err and "Traceback" not in restoring.stderr
    assert restoring.returncode in (0, 1) and importing.returncode in (0, 1)
    check = subprocess.run(desk(seeded_dir, "check"), capture_output=True, text=True, timeout=300)
    assert check.returncode == 0, check.stderr
    conn = sqlite3.connect(seeded_dir / DATABASE_NAME)
    per_file = dict(conn.execute("SELECT file, count(*) FROM source GROUP BY file"))
    records = dict(conn.execute("SELECT file, paragraphs FROM import_record"))
    conn.close()
    for name in (p.name for p in lists.glob("*.txt")):
        # each list is there whole, or not at all; and only with its import record
        assert per_file.get(name, 0) in (0, records.get(name, -1)), (
            name,
            per_file.get(name),
            records.get(name),
        )
    stats = json.loads(
        subprocess.run(desk(seeded_dir, "stats", "--json"), capture_output=True, text=True).stdout
    )
    assert stats["papers"] >= 94


def _paper_count(library: Path) -> int:
    """How many papers the library's database holds, read beside whatever writes it."""
    conn = sqlite3.connect(f"file:{library / DATABASE_NAME}?mode=ro", uri=True, timeout=30)
    try:
        return int(conn.execute("SELECT count(*) FROM paper").fetchone()[0])
    finally:
        conn.close()
