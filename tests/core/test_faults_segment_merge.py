"""Fault injection: kill -9 inside an import's closing segment merge (search.segment_merge).

Nine imports leave nine segments of 600 papers; the tenth `desk import` stores its list, then
merges the ten into one on a worker process (in a staging folder) and commits it. The kill
comes at a random moment after that staging folder appears: in the merge, in its commit, or
just after. Then the library opens, `desk check` passes, the stars and notes written before are
there, the tenth list is there whole or not at all (whole if the import said it succeeded),
and a search finds every paper (`check` compares the index with the database paper by paper).
``DESK_FAULT_SEED`` and ``DESK_FAULT_TRIALS`` as in test_faults.py.
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from desk.core.library.facade import Library
from desk.core.runtime.paths import INDEX_DIR_NAME
from desk.core.search.staging import STAGE_PREFIX

sys.path.insert(0, str(Path(__file__).parent))
from test_durability import write_lists
from test_faults import SEED, TRIALS, assert_sound, cli, commit_some_writes, run

pytestmark = [pytest.mark.faults, pytest.mark.slow]

PER_FILE = 600  # above the tiny segments a commit folds, below what the workers index


@pytest.fixture(scope="module")
def nine_segments(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A library of nine imports (nine segments of one size class) and the tenth list."""
    root = tmp_path_factory.mktemp("segment-merge-faults")
    lists = root / "lists"
    write_lists(lists, files=10, per_file=PER_FILE, seed=SEED % 1000)
    files = sorted(lists.glob("*.txt"))
    library = root / "library"
    with Library(library) as lib:
        for f in files[:9]:
            assert lib.import_paths([f]).added == PER_FILE
        assert len(lib.index._index()._segments()) == 9
    return library, files[9]


def _kill_in_the_merge(cmd: list[str], index: Path, delay: float) -> tuple[int | None, bool]:
    """Run cmd; once a staging folder appears in ``index`` (the merge's), kill -9 its process
    group ``delay`` seconds later. (exit status if it finished first, whether the merge was seen)."""
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
    seen = False
    deadline = time.monotonic() + 120
    try:
        while proc.poll() is None and time.monotonic() < deadline:
            if any(p.name.startswith(STAGE_PREFIX) for p in index.iterdir()):
                seen = True
                break
            time.sleep(0.005)
        if proc.poll() is None:
            try:
                proc.wait(timeout=delay)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=60)
                return None, seen
        return proc.returncode, seen
    finally:
        if proc.stderr is not None:
            err = proc.stderr.read().decode("utf-8", "replace")
            proc.stderr.close()
            assert "Traceback" not in err, err


def test_kill_9_inside_the_closing_segment_merge(nine_segments: tuple[Path, Path], tmp_path: Path) -> None:
    template, tenth = nine_segments
    rng = random.Random(f"{SEED}-segment-merge")
    killed_in_merge = 0
    for trial in range(TRIALS + 2):
        library = tmp_path / f"library-{trial}"
        shutil.copytree(template, library)
        committed = commit_some_writes(library, rng)
        with Library(library) as lib:
            before = lib.count()
        delay = rng.choice([0.0, rng.uniform(0.0, 0.4), rng.uniform(0.2, 1.5)])
        rc, seen = _kill_in_the_merge(cli(library, "import", str(tenth)), library / INDEX_DIR_NAME, delay)
        assert rc in (None, 0), (SEED, trial, rc)
        killed_in_merge += int(rc is None and seen)
        check = run(library, "check")  # a fresh process: it sweeps the staging folder, checks in full
        assert check.returncode == 0, (SEED, trial, delay, check.stderr)
        assert_sound(library, committed)
        with Library(library) as lib:
            count = lib.count()
            assert count in (before, before + PER_FILE), (SEED, trial, count)
            if rc == 0:
                assert count == before + PER_FILE, (SEED, trial)
            assert lib.search_ids("problem", limit=0).total == count, (SEED, trial)  # every paper found
        assert not any(p.name.startswith(STAGE_PREFIX) for p in (library / INDEX_DIR_NAME).iterdir())
    assert killed_in_merge > 0, SEED  # at least one kill came while the merge was under way
