"""Unmerge takes back only what its merge gave, in any order, and keeps later edits."""

from __future__ import annotations

import json

import pytest
from sqlalchemy import select

from desk.core.edits.merging import NOTE_SEPARATOR
from desk.core.library.facade import Library
from desk.core.runtime.errors import DeskError
from desk.core.store import MergeRecord


def _fields(lib: Library, i: int) -> tuple:
    p = lib.paper(i)
    return (p.user_title, p.starred, p.read, p.note, p.short_name, p.sources)


def test_edits_to_the_kept_paper_after_a_merge_survive_unmerge(seeded: Library) -> None:
    a, b = seeded.paper_ids()[50:52]
    seeded.set_note(b, "b's note")
    b_before = _fields(seeded, b)
    a_sources = seeded.paper(a).sources
    seeded.duplicates.merge(a, [b])
    seeded.set_note(a, "written after the merge")
    seeded.set_starred([a], True)
    seeded.set_title(a, "A title chosen after the merge")
    assert seeded.duplicates.unmerge(a) == [b]
    after = seeded.paper(a)
    assert after.note == "written after the merge"
    assert after.starred and after.title == "A title chosen after the merge"
    assert after.sources == a_sources
    assert _fields(seeded, b) == b_before
    assert seeded.check() == []


def test_unmerge_takes_back_only_the_other_papers_part_of_a_joined_note(seeded: Library) -> None:
    a, b = seeded.paper_ids()[20:22]
    seeded.set_note(a, "mine")
    seeded.set_note(b, "theirs")
    seeded.set_starred([b], True)
    seeded.duplicates.merge(a, [b])
    assert seeded.paper(a).note == f"mine{NOTE_SEPARATOR}theirs" and seeded.paper(a).starred
    seeded.set_note(a, f"mine, revised{NOTE_SEPARATOR}theirs{NOTE_SEPARATOR}a new thought")
    seeded.duplicates.unmerge(b)
    assert seeded.paper(a).note == f"mine, revised{NOTE_SEPARATOR}a new thought"
    assert not seeded.paper(a).starred  # the star was b's, and b has it back
    assert seeded.paper(b).note == "theirs" and seeded.paper(b).starred


@pytest.mark.parametrize("order", [(1, 2), (2, 1)])
def test_merges_into_one_paper_undo_exactly_in_any_order(seeded: Library, order: tuple[int, int]) -> None:
    ids = seeded.paper_ids()[60:63]
    keep, x, y = ids
    seeded.set_note(x, "x's note")
    seeded.set_note(y, "y's note")
    seeded.set_read([y], True)
    seeded.set_title(x, "X's title")
    before = {i: _fields(seeded, i) for i in ids}
    seeded.duplicates.merge(keep, [x])
    seeded.duplicates.merge(keep, [y])
    first, second = (ids[k] for k in order)
    seeded.duplicates.unmerge(first)
    rest = y if first == x else x
    kept = seeded.paper(keep)
    assert _fields(seeded, first) == before[first]
    assert {s.file for s in kept.sources} == {s.file for s in before[keep][5] + before[rest][5]}
    assert kept.note == ("x's note" if rest == x else "y's note")
    assert kept.read == (rest == y)
    assert kept.user_title == ("X's title" if rest == x else None)
    seeded.duplicates.unmerge(second)
    assert {i: _fields(seeded, i) for i in ids} == before
    assert seeded.check() == []


def test_a_merge_recorded_by_an_older_desk_unmerges_the_same_way(seeded: Library) -> None:
    a, b = seeded.paper_ids()[30:32]
    seeded.set_note(a, "mine")
    seeded.set_note(b, "theirs")
    seeded.duplicates.merge(a, [b])
    with seeded.db.writing() as session:
        rec = session.scalars(select(MergeRecord)).one()
        snap = json.loads(rec.snapshot)
        assert snap.pop("format") == 2 and snap.pop("contribution")
        rec.snapshot = json.dumps(snap)  # what a format-1 record held
    seeded.set_starred([a], True)
    seeded.duplicates.unmerge(a)
    assert seeded.paper(a).note == "mine" and seeded.paper(a).starred
    assert seeded.paper(b).note == "theirs" and len(seeded.paper(a).sources) == 1


def test_unmerging_inside_a_chain_says_which_merge_to_undo_first(seeded: Library) -> None:
    a, b, c = seeded.paper_ids()[40:43]
    seeded.duplicates.merge(b, [c])
    seeded.duplicates.merge(a, [b])
    with pytest.raises(DeskError, match=f"merged into paper {a}: unmerge {b} first"):
        seeded.duplicates.unmerge(c)
    assert seeded.duplicates.unmerge(b) == [b]
    assert seeded.duplicates.unmerge(c) == [c]
    assert seeded.count() == 94 and seeded.check() == []
