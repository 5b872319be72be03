"""A full disk during a star, a note or an undo: said in plain words, nothing lost, and the index
written again once there is room (a tmpfs of a few MB, filled to a chosen number of free bytes).

At some fillings SQLite says "disk I/O error" (its -wal or -shm file cannot grow), which desk
called a damaged database; at others the index failed half-way through a commit and Whoosh kept
its write lock, so every later index write in that process said "LockError".
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from desk.core.library.facade import Library
from desk.core.runtime.errors import DeskError
from desk.core.runtime.paths import INDEX_DIR_NAME
from desk.core.search.manifest import writer_busy

sys.path.insert(0, str(Path(__file__).parent))
from test_faults import mounted

pytestmark = [pytest.mark.faults, pytest.mark.slow]

NOTE = "quokkanote written on a nearly full disk " * 80
LONG_NOTE = "quokkanote, a longer note " * 220


def desk(library: Path, *args: str) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-m", "desk.cli.main", "--library", str(library), *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300)


def _fresh_on(disk: Path, template: Path, free_kb: int) -> Path:
    """A copy of ``template`` on ``disk``, and a file filling the disk but ``free_kb``."""
    for p in disk.iterdir():
        shutil.rmtree(p) if p.is_dir() else p.unlink()
    library = disk / "L"
    shutil.copytree(template, library)
    st = os.statvfs(disk)
    with open(disk / "filler", "wb") as f:
        f.write(b"\0" * max(0, st.f_bavail * st.f_frsize - free_kb * 1024))
    return library


def _plain_failure(proc: subprocess.CompletedProcess[str]) -> bool:
    lines = proc.stderr.strip().splitlines()
    return (
        proc.returncode == 1
        and len(lines) == 1
        and lines[0].startswith("desk: the disk is full")
        and "LockError" not in proc.stderr
    )


@pytest.mark.parametrize("free_kb", [0, 4, 8, 16, 32, 64, 96, 128, 160, 256])
def test_star_note_and_undo_on_a_full_disk_say_so_and_lose_nothing(
    free_kb: int, seeded_template: Path, tmp_path: Path
) -> None:
    disk = tmp_path / "disk"
    disk.mkdir()
    with mounted(["-t", "tmpfs", "-o", "size=8m", "tmpfs"], disk):
        library = _fresh_on(disk, seeded_template, free_kb)
        steps: list[str] = []
        for args, step in ((["star", "3"], "star"), (["note", "4", "--set", NOTE], "note"), (["undo"], None)):
            proc = desk(library, *args)
            said = (free_kb, args[0], proc.returncode, proc.stderr)
            assert "Traceback" not in proc.stderr and "LockError" not in proc.stderr, said
            assert "damaged" not in proc.stderr, said
            if proc.returncode == 0:
                if step is None:
                    steps.pop()
                else:
                    steps.append(step)
                for line in proc.stderr.strip().splitlines():  # the index may fall behind: said so
                    assert "the disk is full" in line, said
            elif step is None and not steps:  # opening may need room first
                assert "nothing to undo" in proc.stderr or _plain_failure(proc), said
            else:
                assert _plain_failure(proc), said
        (disk / "filler").unlink()  # room again: every write that said it succeeded is there
        with Library(library) as lib:
            assert lib.paper(3).starred == ("star" in steps), (free_kb, steps)
            assert (lib.paper(4).note == NOTE) == ("note" in steps), (free_kb, steps)
            assert lib.check() == [], free_kb
            noted = {h.id for h in lib.search_ids("quokkanote", limit=10).hits}
            assert noted == ({4} if "note" in steps else set()), (free_kb, steps)


def test_an_index_write_that_fails_on_a_full_disk_leaves_no_lock_behind(
    seeded_template: Path, tmp_path: Path
) -> None:
    """A note whose index commit fails for want of room (at some fillings half-way through the
    commit) leaves the index's write lock free; with room again the next note is in the index."""
    disk = tmp_path / "disk"
    disk.mkdir()
    behind = 0
    with mounted(["-t", "tmpfs", "-o", "size=8m", "tmpfs"], disk):
        for free_kb in range(100, 162, 2):
            library = _fresh_on(disk, seeded_template, free_kb)
            with Library(library) as lib:
                try:
                    lib.set_note(3, LONG_NOTE)
                except DeskError as exc:  # the database itself had no room: nothing changed
                    assert "the disk is full" in str(exc), free_kb
                    continue
                if lib.index_behind is None:
                    continue
                behind += 1
                # Whoosh lets go of its write lock last, after closing files a full disk can fail
                # to close: a lock this process kept made every later index write of it wait
                # half a minute and fail with "LockError" (until a rebuild moved the index).
                assert not writer_busy(library / INDEX_DIR_NAME), free_kb
                assert "the disk is full" in lib.index_behind, (free_kb, lib.index_behind)
                (disk / "filler").unlink()
                lib.set_note(4, NOTE)
                assert lib.index_behind is None, (free_kb, lib.index_behind)
                hits = {h.id for h in lib.search_ids("quokkanote", limit=10).hits}
                assert hits == {3, 4}, free_kb
    assert behind > 0  # the fillings tried include some where the index could not be written


def test_an_index_that_cannot_be_locked_is_said_in_words(tmp_path: Path) -> None:
    """Whoosh's LockError is no answer: on a full disk it is the disk; else another desk."""
    from whoosh.index import LockError

    from desk.core.runtime import failures

    assert failures.reason(LockError(), tmp_path) == "another desk is writing it"
    disk = tmp_path / "disk"
    disk.mkdir()
    with mounted(["-t", "tmpfs", "-o", "size=1m", "tmpfs"], disk):
        st = os.statvfs(disk)
        (disk / "filler").write_bytes(b"\0" * (st.f_bavail * st.f_frsize))
        assert failures.reason(LockError(), disk) == "the disk is full"
