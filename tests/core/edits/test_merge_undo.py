"""Undo and redo of merges, merge-alls and unmerges give back exactly the state before and after.

A merge's record keeps one id for as long as the merge can be made again: an unmerge undone,
a merge-all redone, make it again under the id every step naming it knows; and what to give
back (the papers, their tags and places in the tags' orders, their "not a duplicate" pairs) is
read from that record, not from a copy in each step.
"""

from __future__ import annotations

import json
import os
import random
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from dedup_texts import DIFFERENT_BODY, PAPER, SAME_TOPIC, SECOND, head

from desk.cli.main import main
from desk.core.edits import merging
from desk.core.library.facade import Library
from desk.core.runtime.errors import DeskError
from desk.core.runtime.paths import DATABASE_NAME

State = dict[str, Any]


def write_lists(folder: Path) -> list[Path]:
    """Four papers from a bare list, and a rich list of cut copies of three of them (two copies of
    the first), with authors, years, venues and links on some: a merge carries them."""
    folder.mkdir(parents=True, exist_ok=True)
    full = folder / "venue.txt"
    full.write_text("Venue 2026\n\n" + "\n\n".join([PAPER, SECOND, SAME_TOPIC, DIFFERENT_BODY]) + "\n")
    cut = folder / "workshop.json"
    copies = [
        {"abstract": head(PAPER, 0.5), "authors": ["Ann Lee", "Bo Chen"], "year": 2025, "venue": "Workshop"},
        {"abstract": head(SECOND, 0.5), "url": "https://example.org/2", "doi": "10.1/two"},
        {"abstract": head(SAME_TOPIC, 0.6)},
        {"abstract": head(PAPER, 0.3), "authors": ["Cy Dee"], "year": 2024},
    ]
    cut.write_text(json.dumps(copies), encoding="utf-8")
    return [full, cut]


def library_state(library: Path) -> State:
    """Everything a user can see of a library, as plain values: the papers and their fields,
    sources, tags (with each tag's order), aliases, "not a duplicate" pairs, and the metadata of
    rich lists (paper_meta, paper_author; a merge carries some onto the kept paper). Not the
    revisions and times (an unmerged paper is re-indexed: a new revision, by design)."""
    conn = sqlite3.connect(f"file:{library / DATABASE_NAME}?mode=ro", uri=True)
    try:
        papers = conn.execute(
            "SELECT id, key, abstract_raw, abstract, derived_title, user_title, short_name, starred, read,"
            " note FROM paper ORDER BY id"
        ).fetchall()
        sources = conn.execute(
            'SELECT paper_id, file, "index", collection, import_id FROM source ORDER BY 1, 2, 3'
        ).fetchall()
        tagged: dict[str, list[int]] = {}
        rows = conn.execute(
            "SELECT t.name, pt.paper_id FROM paper_tag pt JOIN tag t ON t.id = pt.tag_id"
            " ORDER BY t.id, pt.position, pt.paper_id"
        )
        for name, paper_id in rows:
            tagged.setdefault(name, []).append(paper_id)
        aliases = conn.execute("SELECT key, paper_id FROM key_alias ORDER BY key").fetchall()
        distinct = conn.execute("SELECT a, b FROM distinct_pair ORDER BY a, b").fetchall()
        meta = conn.execute("SELECT * FROM paper_meta ORDER BY paper_id").fetchall()
        authors = conn.execute("SELECT * FROM paper_author ORDER BY paper_id, position").fetchall()
        listing = conn.execute("SELECT id, json FROM paper_listing ORDER BY id").fetchall()
    finally:
        conn.close()
    return {
        "papers": papers, "sources": sources, "tags": tagged, "aliases": aliases, "distinct": distinct,
        "meta": meta, "authors": authors, "listing": listing,
    }  # fmt: skip


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A library with the lists, and stars, notes, tags (in an order) and a distinct pair on them."""
    root = tmp_path_factory.mktemp("merge-undo")
    path = root / "library"
    with Library(path) as lib:
        assert lib.import_paths(write_lists(root / "lists")).added == 8
        lib.set_note(5, "the workshop copy's note")
        lib.set_note(1, "the full paper's note")
        lib.set_starred([6], True)
        lib.set_read([7], True)
        lib.set_title(8, "A title for the shortest copy")
        lib.tags.add([5, 2, 8, 4], "to read")  # an order: a copy first, the other in the middle
        lib.tags.add([6], "federated")
        lib.duplicates.mark_distinct(5, 4)
        assert len(lib.duplicates.plan("truncation")) == 3
    return path


def differences(now: State, then: State) -> list[str]:
    """What differs between two states, shortly (for a failure's message)."""
    out = []
    for part in now:
        if now[part] == then[part]:
            continue
        if part != "papers":
            out.append(f"{part}: now {now[part]}, then {then[part]}")
            continue
        mine, theirs = ({row[0]: row for row in rows} for rows in (now[part], then[part]))
        for pid in sorted(set(mine) | set(theirs)):
            if mine.get(pid) != theirs.get(pid):
                one, two = mine.get(pid, ()), theirs.get(pid, ())
                fields = [k for k in range(max(len(one), len(two))) if one[k : k + 1] != two[k : k + 1]]
                said = f"paper {pid}, fields {fields}: now {[one[k] for k in fields if k < len(one)]}"
                out.append(f"{said}, then {[two[k] for k in fields if k < len(two)]}"[:400])
    return out


def _newest_step(lib: Library) -> tuple[int, bool] | None:
    steps = lib.history.entries(1)
    return (steps[0].id, steps[0].undone) if steps else None


def _edit(lib: Library, rng: random.Random) -> str:
    present = lib.paper_ids()
    pid = rng.choice(present)
    what = rng.randrange(4)
    if what == 0:
        lib.set_starred([pid], not lib.paper(pid).starred)
    elif what == 1:
        lib.set_note(pid, f"{lib.paper(pid).note} and a later thought {rng.randrange(100)}".strip())
    elif what == 2:
        lib.tags.add([pid], rng.choice(["to read", "federated", "later"]))
    else:
        lib.tags.remove([pid], rng.choice(["to read", "federated"]))
    return f"edit {what} of {pid}"


def _merge_two(lib: Library, rng: random.Random) -> str:
    keep, other = rng.sample(lib.paper_ids(), 2)
    lib.duplicates.merge(keep, [other])
    return f"merge {other} into {keep}"


MOVES = ["merge-all", "unmerge", "merge", "edit", "undo", "redo"]
SEEDS = range(
    int(os.environ.get("DESK_MERGE_SEEDS_FROM", "0")), int(os.environ.get("DESK_MERGE_SEEDS_TO", "8"))
)
"""The sequences run (``DESK_MERGE_SEEDS_FROM``/``_TO`` run others, many more, while changing merges)."""


@pytest.mark.slow
@pytest.mark.parametrize("seed", SEEDS)
def test_undo_and_redo_of_merges_give_back_each_state(seed: int, template: Path, tmp_path: Path) -> None:
    """Random sequences of merge-all, merge, unmerge, edits, undo and redo: after each undo the
    library is as it was before that step, after each redo as it was after it, nothing skipped."""
    import shutil

    rng = random.Random(seed)
    path = tmp_path / "library"
    shutil.copytree(template, path)
    states = [library_state(path)]
    at = 0  # states[at] is the state now; undo goes to states[at - 1], redo to states[at + 1]
    done: list[str] = []
    with Library(path) as lib:
        for _ in range(16):
            move = rng.choices(MOVES, [3, 4, 1, 2, 5, 4])[0]
            done.append(move)
            if move in ("undo", "redo"):
                if move == "undo" and at == 0:
                    continue  # the template's own steps are not part of the sequence
                outcome = lib.history.undo() if move == "undo" else lib.history.redo()
                if move == "redo" and at == len(states) - 1:
                    assert outcome is None, (seed, done)
                    continue
                assert outcome is not None and outcome.skipped == 0, (seed, done, outcome)
                at += -1 if move == "undo" else 1
                now = library_state(path)
                assert now == states[at], (seed, "; ".join(done), differences(now, states[at]))
                continue
            before, newest = library_state(path), _newest_step(lib)
            try:
                if move == "merge-all":
                    lib.duplicates.merge_all("truncation")
                elif move == "unmerge":
                    which = rng.randrange(1, 9)
                    done[-1] = f"unmerge {which}"
                    lib.duplicates.unmerge(which)
                elif move == "merge":
                    done[-1] = _merge_two(lib, rng)
                else:
                    done[-1] = _edit(lib, rng)
            except DeskError:
                assert library_state(path) == before, (seed, done)
                continue
            if _newest_step(lib) == newest:  # nothing to do (no group left, a tag already there)
                assert library_state(path) == before, (seed, done)
                continue
            del states[at + 1 :]
            states.append(library_state(path))
            at += 1
        while at > 0:  # and all the way back
            outcome = lib.history.undo()
            assert outcome is not None and outcome.skipped == 0, (seed, done)
            at -= 1
            now = library_state(path)
            assert now == states[at], (seed, "; ".join(done), differences(now, states[at]))
        assert lib.check() == [], (seed, done)


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.slow
@pytest.mark.parametrize("copy", [5, 6, 7])  # one of each group: the one merged first, last, between
def test_undo_of_a_merge_all_after_undoing_an_unmerge_leaves_nothing_merged(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, copy: int
) -> None:
    """merge --all-kind truncation, unmerge one, undo, undo: every paper back, nothing skipped;
    redo and undo again repeat it."""
    lib = ["--library", str(tmp_path / "L")]
    assert _run(capsys, *lib, "import", *map(str, write_lists(tmp_path / "lists")))[0] == 0
    initial = library_state(tmp_path / "L")
    assert _run(capsys, *lib, "merge", "--all-kind", "truncation", "--yes")[0] == 0
    merged = library_state(tmp_path / "L")
    assert len(merged["papers"]) == 4
    code, out, _ = _run(capsys, *lib, "unmerge", str(copy))
    assert code == 0 and str(copy) in out
    unmerged = library_state(tmp_path / "L")
    for _ in range(2):
        code, out, _ = _run(capsys, *lib, "undo")
        assert code == 0 and "left as a later change" not in out
        assert library_state(tmp_path / "L") == merged
        code, out, _ = _run(capsys, *lib, "undo")
        assert code == 0 and "left as a later change" not in out, out
        assert library_state(tmp_path / "L") == initial
        assert _run(capsys, *lib, "redo")[0] == 0
        assert library_state(tmp_path / "L") == merged
        assert _run(capsys, *lib, "redo")[0] == 0
        assert library_state(tmp_path / "L") == unmerged
    assert _run(capsys, *lib, "check")[0] == 0


def test_unmerging_a_part_of_a_merge_all_gives_its_tags_back_in_their_place(
    template: Path, tmp_path: Path
) -> None:
    """A copy in the middle of a reading list, merged by a merge-all and unmerged alone, is back
    in the list where it was, and the kept paper loses the tag it got from it."""
    import shutil

    path = tmp_path / "library"
    shutil.copytree(template, path)
    before = library_state(path)
    with Library(path) as lib:
        lib.duplicates.merge_all("truncation")
        assert lib.tags.papers("to read")[-1] == 1  # the kept paper got the copy's tag, at the end
        assert lib.tags.papers("to read") == [2, 4, 1]
        for pid in (8, 6, 3):  # a copy of each group (1 kept 5 and 8), or a kept paper
            lib.duplicates.unmerge(pid)
    after = library_state(path)
    assert after["tags"] == before["tags"] and after["distinct"] == before["distinct"]
    assert after == before


def test_a_step_naming_a_merge_record_whose_id_went_to_another_merge_is_skipped(seeded: Library) -> None:
    """SQLite gives a deleted record's id to the next merge: a step naming the old merge must
    not take back the new one (the record was removed outside the history, as an older desk could)."""
    a, b, c, d = seeded.paper_ids()[10:14]
    seeded.duplicates.merge(a, [b])
    with seeded.db.writing() as session:
        merging.unmerge(session, b)  # no step: the merge step still names the record
    with seeded.db.writing() as session:
        merging.merge(session, c, [d])  # the record's id again
    outcome = seeded.history.undo()
    assert outcome is not None and outcome.skipped == 1
    assert d not in seeded.paper_ids() and b in seeded.paper_ids()  # c's merge stays
