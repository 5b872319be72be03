"""Merge, unmerge and "not a duplicate": nothing is lost, and undo is exact."""

from __future__ import annotations

from pathlib import Path

import pytest

from desk.core.library.facade import Library
from desk.core.runtime.errors import DeskError, PaperNotFound


def _state(lib: Library, ids: list[int]) -> list[tuple]:
    return [
        (p.id, p.title, p.user_title, p.starred, p.read, p.note, p.short_name, p.abstract_raw, p.sources)
        for p in lib.papers(ids)
    ]


def test_merge_keeps_everything_and_unmerge_restores_exactly(seeded: Library) -> None:
    a, b, c = seeded.paper_ids()[10:13]
    seeded.set_starred([b], True)
    seeded.set_read([c], True)
    seeded.set_note(a, "mine")
    seeded.set_note(b, "theirs")
    seeded.set_title(c, "C's own title")
    before = _state(seeded, [a, b, c])
    seeded.duplicates.merge(a, [b, c])
    merged = seeded.paper(a)
    assert merged.starred and merged.read
    assert merged.note == "mine\n\n---\n\ntheirs"
    assert merged.title == "C's own title"  # a had none of its own
    assert len(merged.sources) == 3
    assert seeded.count() == 92
    with pytest.raises(PaperNotFound):
        seeded.paper(b)
    assert seeded.check() == []
    restored = seeded.duplicates.unmerge(b)
    assert sorted(restored) == [b, c]
    assert _state(seeded, [a, b, c]) == before
    assert seeded.count() == 94
    assert seeded.check() == []


def test_reimport_after_merge_lands_on_the_kept_paper(seeded: Library, tmp_path: Path) -> None:
    keep, gone = seeded.paper_ids()[0:2]
    gone_raw = seeded.paper(gone).abstract_raw
    seeded.duplicates.merge(keep, [gone])
    again = tmp_path / "again.txt"
    again.write_text("Other Conf 2026 Papers\n\n" + gone_raw + "\n", encoding="utf-8")
    report = seeded.import_paths([again])
    assert report.added == 0 and report.merged == 1
    assert seeded.count() == 93
    assert "Other Conf 2026 Papers" in seeded.paper(keep).collections


def test_merged_papers_leave_the_search_index(seeded: Library) -> None:
    keep, gone = seeded.paper_ids()[1:3]
    seeded.duplicates.merge(keep, [gone])
    ids = [h.id for h in seeded.search_ids("", limit=200).hits]
    assert gone not in ids and keep in ids
    seeded.duplicates.unmerge(keep)
    assert gone in [h.id for h in seeded.search_ids("", limit=200).hits]


def test_merge_refuses_nonsense(seeded: Library) -> None:
    a = seeded.paper_ids()[0]
    with pytest.raises(DeskError):
        seeded.duplicates.merge(a, [a])
    with pytest.raises(PaperNotFound):
        seeded.duplicates.merge(a, [123456])
    with pytest.raises(DeskError, match="not part of a merge"):
        seeded.duplicates.unmerge(a)
    assert seeded.count() == 94


def test_distinct_is_remembered(seeded_dir: Path) -> None:
    with Library(seeded_dir) as lib:
        a, b = lib.paper_ids()[:2]
        lib.duplicates.mark_distinct(b, a)
        lib.duplicates.mark_distinct(a, b)
        with pytest.raises(DeskError):
            lib.duplicates.mark_distinct(a, a)
    with Library(seeded_dir) as lib:
        assert (a, b) in lib.duplicates.distinct_pairs()


def test_near_duplicates_follow_other_processes_and_survive_reopen(seeded_dir: Path, tmp_path: Path) -> None:
    with Library(seeded_dir) as lib:
        target = lib.paper_ids()[5]
        words = lib.paper(target).abstract.split()
        assert lib.duplicates.groups() == []
        variant = tmp_path / "v2.txt"
        truncated = " ".join(words[: int(len(words) * 0.75)])
        variant.write_text(f"Preprints\n\n{truncated}\n", encoding="utf-8")
        # another process imports while this one holds its finder
        with Library(seeded_dir) as other:
            assert other.import_paths([variant]).near_duplicates == 1
        groups = lib.duplicates.groups()
        assert len(groups) == 1 and target in groups[0].ids
    assert (seeded_dir / "cache" / "near-duplicates.npz").is_file()
    with Library(seeded_dir) as lib:
        (group,) = lib.duplicates.groups()
        lib.duplicates.merge(group.ids[0], [group.ids[1]])
        assert lib.duplicates.groups() == []
        lib.duplicates.unmerge(group.ids[0])
        assert [g.ids for g in lib.duplicates.groups()] == [group.ids]


def test_new_papers_are_hashed_a_batch_at_a_time_with_the_same_groups(
    seeded_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import desk.core.dedup.finder as duplicates

    with Library(seeded_dir) as lib:
        words = lib.paper(lib.paper_ids()[5]).abstract.split()
    variant = tmp_path / "v2.txt"
    variant.write_text(f"Preprints\n\n{' '.join(words[: int(len(words) * 0.75)])}\n", encoding="utf-8")
    cache = seeded_dir / "cache" / "near-duplicates.npz"
    with Library(seeded_dir) as lib:
        lib.import_paths([variant])
        whole = [g.ids for g in lib.duplicates.groups()]
    cache.unlink()  # every paper is new to the finder again
    monkeypatch.setattr(duplicates, "HASH_BATCH", 7)
    with Library(seeded_dir) as lib:
        assert [g.ids for g in lib.duplicates.groups()] == whole
        assert len(whole) == 1
