"""A read-only command's quick end: its output whole, and never while other work is under way."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

PROGRAM = """
import sys, threading, time
from pathlib import Path
from desk.core.runtime.exiting import exit_if_idle
mark = Path(sys.argv[1])
if sys.argv[2] == "busy":
    def work():
        time.sleep(0.3)
        mark.write_text("done")
    threading.Thread(target=work).start()  # not a daemon: the process must wait for it
print("x" * 200_000, end="")  # more than a pipe holds: flushed before the end
exit_if_idle(3)
print("returned", file=sys.stderr)
sys.exit(4)
"""


@pytest.mark.parametrize("state", ["idle", "busy"])
def test_the_process_ends_at_once_only_when_nothing_else_is_at_work(tmp_path: Path, state: str) -> None:
    mark = tmp_path / "mark"
    proc = subprocess.run(
        [sys.executable, "-c", PROGRAM, str(mark), state], capture_output=True, text=True, timeout=120
    )
    assert proc.stdout == "x" * 200_000
    if state == "idle":
        assert proc.returncode == 3 and "returned" not in proc.stderr
    else:
        assert proc.returncode == 4 and "returned" in proc.stderr and mark.read_text() == "done"


def test_a_listing_ends_whole_through_a_pipe(seeded_dir: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "desk", "--library", str(seeded_dir), "list", "--json"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert len(json.loads(proc.stdout)["papers"]) == 94


def test_an_import_ended_without_teardown_leaves_its_library_whole(tmp_path: Path, seeds_dir: Path) -> None:
    """`desk import` ends its process without the interpreter's teardown: every paper, the index
    and the near-duplicate cache it wrote are there for the next command, and `desk check` agrees."""
    import os

    library = tmp_path / "lib"
    env = dict(os.environ, DESK_SENTENCE_ENCODER="0")
    run = [sys.executable, "-m", "desk", "--library", str(library)]
    imported = subprocess.run([*run, "import", "--json", str(seeds_dir)], capture_output=True, text=True,
                              timeout=300, env=env)  # fmt: skip
    assert imported.returncode == 0, imported.stderr
    added = json.loads(imported.stdout)["added"]
    assert added == 94
    listed = subprocess.run([*run, "list", "--json"], capture_output=True, text=True, timeout=300, env=env)
    assert len(json.loads(listed.stdout)["papers"]) == added
    checked = subprocess.run([*run, "check"], capture_output=True, text=True, timeout=300, env=env)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    found = subprocess.run([*run, "search", "--json", "graph neural network"], capture_output=True,
                           text=True, timeout=300, env=env)  # fmt: skip
    assert found.returncode == 0 and json.loads(found.stdout)["results"], found.stderr
