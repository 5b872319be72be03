"""Fault injection: kill -9 at a random moment of `desk merge --all-kind truncation --yes`.

After each kill the library opens, `desk check` passes, every write reported before is there,
the library is wholly as it was before the merge-all or wholly as after it (a full snapshot of
what a user sees: tests/core/edits/test_merge_undo.py), and undo and redo still give back exactly
each state. ``DESK_FAULT_SEED`` and ``DESK_FAULT_TRIALS`` as in
test_faults.py.
"""

from __future__ import annotations

import random
import shutil
import sys
from pathlib import Path

import pytest

from desk.core.library.facade import Library

sys.path.insert(0, str(Path(__file__).parent))
from dedup_texts import head
from test_faults import SEED, TRIALS, assert_sound, cli, commit_some_writes, kill_at, run
from test_merge_undo import differences, library_state

pytestmark = [pytest.mark.faults, pytest.mark.slow]


@pytest.fixture(scope="module")
def cut_template(seeded_template: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The seeded library and a list of cut copies of every paper, with notes, stars and tags on
    copies and kept papers (what a merge carries and an undo must give back)."""
    path = tmp_path_factory.mktemp("merge-all-faults") / "library"
    shutil.copytree(seeded_template, path)
    cuts = path.parent / "cut.txt"
    with Library(path) as lib:
        papers = lib.papers(lib.paper_ids())
        cuts.write_text("Cut copies\n\n" + "\n\n".join(head(p.abstract, 0.6) for p in papers) + "\n")
        copies = lib.import_paths([cuts]).added
        assert copies == len(papers)
        ids = lib.paper_ids()
        copy_ids = ids[-copies:]
        lib.tags.add(copy_ids[::3] + ids[:10], "to read")
        lib.set_starred(copy_ids[1::4], True)
        for pid in copy_ids[2::5]:
            lib.set_note(pid, f"a note on the copy {pid}")
        assert len(lib.duplicates.plan("truncation")) == copies
    return path


def _merged_copy(library: Path, where: Path) -> dict:
    """The state merge-all leaves, made on a copy of the library."""
    shutil.rmtree(where, ignore_errors=True)
    shutil.copytree(library, where)
    with Library(where) as lib:
        assert lib.duplicates.merge_all("truncation")
    return library_state(where)


def test_kill_9_during_a_merge_all_leaves_one_state_that_undo_and_redo_restore(
    cut_template: Path, tmp_path: Path
) -> None:
    rng = random.Random(f"{SEED}-merge-all")
    library = tmp_path / "library"
    shutil.copytree(cut_template, library)
    for trial in range(TRIALS + 2):
        committed = commit_some_writes(library, rng)
        before = library_state(library)
        after = _merged_copy(library, tmp_path / "reference")
        delay = rng.uniform(0.2, 2.0)
        rc = kill_at(cli(library, "merge", "--all-kind", "truncation", "--yes"), delay)
        assert rc in (None, 0), (SEED, trial, rc)
        with Library(library) as lib:
            assert lib.check() == [], (SEED, trial)
        now = library_state(library)
        assert now in (before, after), (SEED, trial, delay, differences(now, before)[:3])
        if rc == 0:
            assert now == after, (SEED, trial)
        with Library(library) as lib:
            if now == before:  # killed before it committed: it still runs, and is undone
                lib.duplicates.merge_all("truncation")
                assert library_state(library) == after, (SEED, trial)
            for expected, step in (
                (before, lib.history.undo),
                (after, lib.history.redo),
                (before, lib.history.undo),
            ):
                outcome = step()
                assert outcome is not None and outcome.skipped == 0, (SEED, trial, outcome)
                state = library_state(library)
                assert state == expected, (SEED, trial, differences(state, expected)[:3])
        assert_sound(library, committed)  # the writes made before, in the state before
    check = run(library, "check")
    assert check.returncode == 0, (SEED, check.stderr)
