"""The trash: papers and whole lists removed, restored whole, imported again, emptied."""

from __future__ import annotations

from pathlib import Path

import pytest

from desk.core.library.facade import Library
from desk.core.runtime.errors import DeskError

SHARED = {("000_702a75ba5fd2766f.txt", 2), ("001_27efaa9633c5f607.txt", 18)}  # one abstract, two files


def _shared(lib: Library) -> int:
    return next(p.id for p in lib.list_papers() if {(s.file, s.index) for s in p.sources} == SHARED)


def test_a_deleted_paper_comes_back_whole_under_its_id(seeded: Library) -> None:
    a, b, c = seeded.paper_ids()[:3]
    seeded.set_starred([a], True)
    seeded.set_note(a, "keep this")
    seeded.tags.add([a], "ml")
    seeded.duplicates.mark_distinct(a, c)
    seeded.duplicates.merge(a, [b])
    before = seeded.paper(a)
    assert seeded.trash.papers_with_notes([a, c]) == [a]
    assert seeded.trash.delete([a]) == [a]
    assert seeded.count() == 92 and seeded.search("note:keep").total == 0 and seeded.tags.counts() == []
    assert [t.paper.id for t in seeded.trash.papers()] == [a] and seeded.trash.papers()[0].paper.has_note
    assert seeded.check() == []
    assert seeded.trash.restore([a]) == [a]
    after = seeded.paper(a)
    assert (after.note, after.starred, after.tags) == (before.note, True, ("ml",))
    assert after.sources == before.sources
    assert (min(a, c), max(a, c)) in seeded.duplicates.distinct_pairs()
    assert seeded.duplicates.unmerge(a) == [b]  # its merge still undoes
    assert [r.paper.id for r in seeded.search("note:keep").rows] == [a]
    assert seeded.trash.papers() == [] and seeded.check() == []
    with pytest.raises(DeskError, match="not in the trash"):
        seeded.trash.restore([a])


def test_removing_a_list_keeps_papers_another_list_holds(seeded: Library) -> None:
    shared = _shared(seeded)
    plan = seeded.trash.list_removal("000_702a75ba5fd2766f.txt")
    assert shared in plan.kept and shared not in plan.trashed and len(plan.trashed) == 18
    seeded.trash.remove_list("000_702a75ba5fd2766f.txt")
    assert seeded.count() == 94 - 18
    assert {(s.file, s.index) for s in seeded.paper(shared).sources} == {("001_27efaa9633c5f607.txt", 18)}
    assert seeded.check() == []
    assert all(t.removed_with == "000_702a75ba5fd2766f.txt" for t in seeded.trash.papers())
    outcome = seeded.history.undo()
    assert outcome is not None and outcome.description.startswith("Undid: remove the list")
    assert seeded.count() == 94 and {(s.file, s.index) for s in seeded.paper(shared).sources} == SHARED
    assert seeded.check() == []


def test_a_removed_list_imports_again_and_its_old_copies_fold_in(seeded: Library, seeds_dir: Path) -> None:
    name = "002_467a2bbb6953154f.txt"
    first = seeded.trash.list_removal(name).trashed[0]
    seeded.set_note(first, "written before")
    seeded.tags.add([first], "to read")
    seeded.trash.remove_list(name)
    report = seeded.import_paths([seeds_dir / name])
    assert report.added == 19 - len(seeded.trash.list_removal(name).kept)
    fresh = seeded.count()
    assert seeded.import_paths([seeds_dir / name]).added == 0
    back = seeded.trash.restore([first])  # imported again meanwhile: one paper, the note kept
    assert back != [first] and seeded.count() == fresh
    paper = seeded.paper(back[0])
    assert paper.note == "written before" and paper.tags == ("to read",)
    assert seeded.check() == []


def test_emptying_the_trash_is_for_good_and_the_list_still_imports(seeded: Library, seeds_dir: Path) -> None:
    name = "004_5c2cfec709c719de.txt"
    seeded.trash.remove_list(name)
    seeded.trash.delete(seeded.paper_ids()[:2])
    held = len(seeded.trash.papers())
    assert seeded.trash.empty() == held and seeded.trash.papers() == []
    assert seeded.check() == []
    seeded.history.undo()  # the deletion's papers are gone for good: nothing comes back
    assert seeded.trash.papers() == []
    assert seeded.import_paths([seeds_dir / name]).added > 0
    assert seeded.check() == []


def test_trashed_papers_are_not_offered_as_duplicates(seeded: Library, tmp_path: Path) -> None:
    text = seeded.paper(seeded.paper_ids()[0]).abstract
    near = tmp_path / "near.txt"
    near.write_text("Near 2027 Papers\n\n" + text.rsplit(".", 2)[0] + ". An added closing sentence here.\n")
    seeded.import_paths([near])
    ids = {i for g in seeded.duplicates.groups() for i in g.ids}
    assert ids
    seeded.trash.delete(sorted(ids)[:1])
    assert all(sorted(ids)[0] not in g.ids for g in seeded.duplicates.groups())
