"""The index never stands in for the truth.

Opening tells an index holding other revisions from a current one (not just the count);
`desk check` reads every byte of the index it vouches for; an index that cannot be written
never fails a committed change nor blocks reading the database.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from desk.core.library.facade import Library
from desk.core.runtime.paths import DATABASE_NAME, INDEX_DIR_NAME


def desk(library: Path, *args: str) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-m", "desk.cli.main", "--library", str(library), *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300)


def _noted_in_index(lib: Library) -> int:
    return lib.search_ids("note:axolotl", limit=500).total


def test_an_index_of_other_revisions_with_the_same_count_is_rebuilt_on_open(seeded_dir: Path) -> None:
    """As a kill -9 during `desk restore` leaves it: the backup's database, the old index."""
    with Library(seeded_dir) as lib:
        ids = lib.paper_ids()
        for pid in ids[:10]:
            lib.set_note(pid, "axolotl")
        backup = lib.backup(seeded_dir.parent / "ten.sqlite3")
        for pid in ids[10:31]:
            lib.set_note(pid, "axolotl")
        assert _noted_in_index(lib) == 31
    src, dst = sqlite3.connect(backup), sqlite3.connect(seeded_dir / DATABASE_NAME)
    src.backup(dst)
    src.close()
    dst.close()
    with Library(seeded_dir) as lib:
        assert lib.repaired == "the search index holds other revisions than the database"
        assert _noted_in_index(lib) == 10
        assert lib.check() == []


def _damage_segments(index: Path, *, keep_times: bool = False) -> list[Path]:
    """Random bytes written inside every segment (same size; its time kept when ``keep_times``)."""
    segments = sorted(index.glob("*.seg"))
    assert segments
    for seg in segments:
        info = seg.stat()
        data = bytearray(seg.read_bytes())
        for k in range(len(data) // 3, len(data), max(1, len(data) // 40)):
            data[k] ^= 0xA5
        seg.write_bytes(bytes(data))
        if keep_times:
            os.utime(seg, ns=(info.st_atime_ns, info.st_mtime_ns))
    return segments


@pytest.mark.slow
def test_check_reads_the_segments_it_vouches_for(seeded_dir: Path) -> None:
    # Same sizes and times: only reading every byte again finds it (opening compares sizes and times).
    _damage_segments(seeded_dir / INDEX_DIR_NAME, keep_times=True)
    proc = desk(seeded_dir, "check")
    assert "Traceback" not in proc.stderr
    if "rebuilt it from the database" in proc.stderr:
        # The damage fell where opening reads (the revisions the index holds), so the open found
        # it first (unreadable, or other revisions) and rebuilt; check then vouches for the new
        # index. Which bytes a segment's layout puts there depends on how the import split its work.
        assert proc.returncode == 0, proc.stdout + proc.stderr
        assert "is damaged" in proc.stderr or "other revisions" in proc.stderr, proc.stderr
    else:  # opening saw nothing amiss: check read every byte it vouches for, and says so
        assert proc.returncode == 1, proc.stdout
        assert "is damaged" in proc.stderr
        assert "rebuilt from the database when the library next opens" in proc.stderr
    # ... and the next open does so: searches work again, check passes.
    proc = desk(seeded_dir, "search", "policy", "--json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["total"] > 0
    assert desk(seeded_dir, "check").returncode == 0


@pytest.mark.slow
def test_a_segment_changed_since_it_was_signed_is_rebuilt_on_open(seeded_dir: Path) -> None:
    _damage_segments(seeded_dir / INDEX_DIR_NAME)
    proc = desk(seeded_dir, "check")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "the search index is damaged; rebuilt it from the database" in proc.stderr
    assert json.loads(desk(seeded_dir, "search", "policy", "--json").stdout)["total"] > 0


@pytest.mark.slow
def test_an_index_without_its_signed_record_is_rebuilt_not_read(seeded_dir: Path) -> None:
    """A kill between a commit and its record, or a folder from elsewhere: never opened, rebuilt."""
    (seeded_dir / INDEX_DIR_NAME / "desk-files.json").unlink()
    _damage_segments(seeded_dir / INDEX_DIR_NAME)
    proc = desk(seeded_dir, "check")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "could not be verified as written by desk for this user" in proc.stderr
    assert "rebuilt it from the database" in proc.stderr
    assert desk(seeded_dir, "check").stderr == ""  # signed now: the next open reads it as it is


@pytest.mark.slow
def test_an_index_that_cannot_be_written_does_not_fail_a_committed_change(seeded_dir: Path) -> None:
    shutil.rmtree(seeded_dir / INDEX_DIR_NAME)
    (seeded_dir / INDEX_DIR_NAME).write_text("not a folder")  # the index can be neither read nor made
    with Library(seeded_dir) as lib:
        pid = lib.paper_ids()[3]
        assert lib.index_behind and "could not be rebuilt" in lib.index_behind
    note = desk(seeded_dir, "note", str(pid), "--set", "axolotl")
    assert note.returncode == 0, note.stderr
    assert "behind" in note.stderr and "Traceback" not in note.stderr
    shown = desk(seeded_dir, "show", str(pid), "--json")
    assert shown.returncode == 0 and json.loads(shown.stdout)["note"] == "axolotl"
    assert desk(seeded_dir, "stats").returncode == 0
    check = desk(seeded_dir, "check")
    assert check.returncode == 1 and "Traceback" not in check.stderr
    (seeded_dir / INDEX_DIR_NAME).unlink()  # the folder can be written again: it catches up
    found = desk(seeded_dir, "search", "note:axolotl", "--json")
    assert found.returncode == 0 and [r["id"] for r in json.loads(found.stdout)["results"]] == [pid]
    assert desk(seeded_dir, "check").returncode == 0


@contextmanager
def read_only(path: Path) -> Iterator[None]:
    """``path`` mounted read-only over itself (needs root and a mount namespace that allows it)."""
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("a read-only bind mount needs root")
    if subprocess.run(["mount", "--bind", str(path), str(path)], capture_output=True).returncode:
        pytest.skip("mount --bind is not allowed here")
    try:
        if subprocess.run(["mount", "-o", "remount,ro,bind", str(path)], capture_output=True).returncode:
            pytest.skip("a read-only remount is not allowed here")
        yield
    finally:
        subprocess.run(["umount", str(path)], capture_output=True)


@pytest.mark.slow
def test_a_read_only_index_folder_leaves_the_index_behind_not_the_truth(seeded_dir: Path) -> None:
    with Library(seeded_dir) as lib:
        ids = lib.paper_ids()[:2]
    with read_only(seeded_dir / INDEX_DIR_NAME):
        for pid in ids:
            note = desk(seeded_dir, "note", str(pid), "--set", "axolotl")
            assert note.returncode == 0, note.stderr
            assert "search index is behind" in note.stderr and "read-only" in note.stderr
        assert desk(seeded_dir, "stats").returncode == 0
        shown = [json.loads(desk(seeded_dir, "show", str(pid), "--json").stdout)["note"] for pid in ids]
        assert shown == ["axolotl", "axolotl"]
        check = desk(seeded_dir, "check")
        assert check.returncode == 1 and "2 changes not yet applied" in check.stderr
    found = desk(seeded_dir, "search", "note:axolotl", "--json")
    assert sorted(r["id"] for r in json.loads(found.stdout)["results"]) == sorted(ids)
    assert desk(seeded_dir, "check").returncode == 0


def test_the_folder_a_killed_whoosh_writer_leaves_is_swept_unless_a_writer_holds_the_lock(
    seeded_dir: Path,
) -> None:
    """A kill -9 inside a Whoosh commit leaves "<index>.tmp" (its pool's files); the next open
    removes it, but never while another process's writer holds the index's write lock."""
    import fcntl

    from desk.core.search.schema import INDEX_NAME

    index_dir = seeded_dir / "index"
    leftover = index_dir / f"{INDEX_NAME}.tmp"
    leftover.mkdir()
    (leftover / "pool.tmp").write_bytes(b"x")
    lock = open(index_dir / f"{INDEX_NAME}_WRITELOCK", "a+b")  # noqa: SIM115
    try:
        fcntl.flock(lock.fileno(), fcntl.LOCK_EX)
        with Library(seeded_dir) as lib:
            lib.index.sweep()
        assert leftover.is_dir()  # a live writer's folder is left alone
    finally:
        lock.close()
    with Library(seeded_dir) as lib:
        lib.index.sweep()
        assert lib.check() == []
    assert not leftover.exists()
