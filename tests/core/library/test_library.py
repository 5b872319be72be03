"""The Library façade over the seeds: import, dedup, flags, notes, titles, stats, export."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from desk.core.library.facade import Library
from desk.core.runtime.errors import PaperNotFound


def test_seeds_import_to_94_papers_with_one_shared(empty_lib: Library, seeds_dir: Path) -> None:
    report = empty_lib.import_paths([seeds_dir])
    assert (report.files, report.paragraphs, report.added, report.merged) == (5, 95, 94, 1)
    assert report.errors == ()
    shared = [p for p in empty_lib.list_papers() if len(p.sources) == 2]
    assert len(shared) == 1
    assert {(s.file, s.index) for s in shared[0].sources} == {
        ("000_702a75ba5fd2766f.txt", 2),
        ("001_27efaa9633c5f607.txt", 18),
    }
    assert empty_lib.check() == []


def test_reimport_adds_nothing(seeded: Library, seeds_dir: Path) -> None:
    before = seeded.stats()
    report = seeded.import_paths([seeds_dir])
    assert report.added == 0 and report.already_imported == 5
    assert seeded.stats() == before


def test_same_abstracts_in_a_new_file_become_sources(
    seeded: Library, seeds_dir: Path, tmp_path: Path
) -> None:
    copy = tmp_path / "renamed.txt"
    text = (seeds_dir / "000_702a75ba5fd2766f.txt").read_text(encoding="utf-8")
    copy.write_text(
        "NeurIPS 2026 Papers\r\n\r\n" + text.split("\n", 2)[2].replace("\n", "\r\n"), encoding="utf-8"
    )
    report = seeded.import_paths([copy])
    assert report.added == 0 and report.merged == 19
    paper = seeded.list_papers()[0]
    assert "NeurIPS 2026 Papers" in paper.collections
    assert seeded.check() == []


def test_star_read_note_title_round_trip(seeded: Library) -> None:
    ids = seeded.paper_ids()[:3]
    assert seeded.set_starred(ids[:2], True) == ids[:2]
    assert seeded.set_starred(ids[:2], True) == []  # no change, no re-index
    seeded.set_read([ids[2]], True)
    assert seeded.set_note(ids[0], "# My take\n\n- *great* idea\n")
    seeded.set_title(ids[1], "  A   better   title ")
    p0, p1, p2 = seeded.papers(ids)
    assert p0.starred and p1.starred and not p2.starred and p2.read
    assert p0.note == "# My take\n\n- *great* idea\n" and p0.has_note
    assert p1.title == "A better title" and p1.derived_title != p1.title
    seeded.set_title(ids[1], "")
    assert seeded.paper(ids[1]).title == seeded.paper(ids[1]).derived_title
    assert seeded.stats().starred == 2 and seeded.stats().notes == 1
    assert [p.id for p in seeded.list_papers(starred=True)] == ids[:2]
    assert seeded.check() == []


def test_missing_ids_are_refused_and_nothing_changes(seeded: Library) -> None:
    first = seeded.paper_ids()[0]
    with pytest.raises(PaperNotFound):
        seeded.set_starred([first, 999_999], True)
    assert not seeded.paper(first).starred
    with pytest.raises(PaperNotFound):
        seeded.paper(0)


def test_changes_persist_across_reopen(seeded_dir: Path) -> None:
    with Library(seeded_dir) as lib:
        pid = lib.paper_ids()[5]
        lib.set_note(pid, "keep me")
    with Library(seeded_dir) as lib:
        assert lib.paper(pid).note == "keep me"
        assert lib.check() == []


def test_stats_counts_collections(seeded: Library) -> None:
    s = seeded.stats()
    assert s.papers == 94 and s.sources == 95
    assert set(s.collections) == {"ICML 2026 Papers", "ICML 2026 论文列表"}
    assert sum(s.collections.values()) >= 94


def test_export_holds_exactly_the_starred(seeded: Library) -> None:
    ids = seeded.paper_ids()
    seeded.set_starred([ids[1], ids[7]], True)
    seeded.set_note(ids[7], "Read with **care**: see [x](https://example.org).")
    md = seeded.export_markdown(seeded.paper_ids(starred=True), what="starred papers")
    assert md.splitlines()[0].startswith("# desk export: starred papers — 2 papers")
    assert md.count("\n## ") == 2
    assert "Read with **care**: see [x](https://example.org)." in md
    for pid in (ids[1], ids[7]):
        assert seeded.paper(pid).title.split()[0] in md


def test_library_copy_opens_elsewhere(seeded_dir: Path, tmp_path: Path) -> None:
    moved = tmp_path / "moved"
    shutil.copytree(seeded_dir, moved)
    with Library(moved) as lib:
        assert lib.count() == 94


def test_an_empty_library_checks_clean(empty_lib: Library) -> None:
    assert empty_lib.count() == 0
    assert empty_lib.check() == []
    assert empty_lib.search("anything").total == 0


def test_an_abstract_twice_in_one_file_is_one_paper(empty_lib: Library, tmp_path: Path) -> None:
    text = "We prove a bound on the regret of optimistic bandits under delayed feedback. It is tight."
    other = "We study sparse attention for long documents and show it matches dense attention."
    f = tmp_path / "twice.txt"
    f.write_text(f"Conf Papers\n\n{text}\n\n{other}\n\n{text}  \n", encoding="utf-8")
    report = empty_lib.import_paths([f])
    assert (report.paragraphs, report.added, report.merged) == (3, 2, 1)
    (first,) = [p for p in empty_lib.list_papers() if len(p.sources) == 2]
    assert [s.index for s in first.sources] == [0, 2]
    assert empty_lib.check() == []


def test_phrases_are_found_after_edits_leave_deleted_documents(seeded: Library) -> None:
    before = {h.id for h in seeded.search_ids('"conformal prediction"').hits}
    assert len(before) >= 2
    for pid in seeded.paper_ids()[:5]:  # each edit rewrites a document, deleting the old copy
        seeded.set_note(pid, "edited")
    page = seeded.search('"conformal prediction"')
    assert page.message is None
    assert {r.paper.id for r in page.rows} == before


def _source_of(page, file_prefix: str, index: int) -> list[int]:
    return [
        rank
        for rank, row in enumerate(page.rows)
        if any(s.file.startswith(file_prefix) and s.index == index for s in row.paper.sources)
    ]


def test_seed_queries_a_researcher_types(seeded: Library) -> None:
    page = seeded.search("conformal risk control for generative models", limit=10)
    assert _source_of(page, "000_", 9) and _source_of(page, "000_", 9)[0] < 3  # Conf-Gen
    typo = seeded.search("reinforcment lerning", limit=10)
    assert typo.suggestion == "reinforcement learning"
    assert typo.rows
    assert all("reinforcement" in seeded.paper(r.paper.id).abstract.lower() for r in typo.rows[:5])
    assert seeded.search("RACER").rows[0].paper.short_name == "RACER"


def test_row_records_are_the_papers_as_the_models_read_them(seeded: Library) -> None:
    """Library.summaries reads rows with plain SQL: the same records the ORM objects give."""
    from desk.core.edits.tags import tags_of
    from desk.core.records.detail import PaperDetail
    from desk.core.records.page import PaperSummary, SourceInfo
    from desk.core.store import Paper

    def summary_of(paper: Paper, tags: tuple[str, ...]) -> PaperSummary:
        sources = tuple(SourceInfo(s.file, s.index, s.collection) for s in paper.sources)
        has_note = bool(paper.note.strip())
        return PaperSummary(
            paper.id, paper.title, paper.short_name, paper.starred, paper.read, has_note, sources, tags
        )

    def detail_of(paper: Paper, tags: tuple[str, ...]) -> PaperDetail:
        s = summary_of(paper, tags)
        return PaperDetail(
            **{f: getattr(s, f) for f in s.__dataclass_fields__},
            abstract=paper.abstract, abstract_raw=paper.abstract_raw, note=paper.note,
            derived_title=paper.derived_title, user_title=paper.user_title,
            created_at=paper.created_at, updated_at=paper.updated_at,
        )  # fmt: skip

    ids = [p.id for p in seeded.list_papers()]
    a, b, c = ids[3], ids[7], ids[11]
    seeded.duplicates.merge(a, [b])  # two sources on a
    seeded.set_starred([c], True)
    seeded.set_read([a], True)
    seeded.set_note(c, "   \n ")  # blank: no note
    seeded.set_note(ids[12], "kept")
    seeded.set_title(ids[12], "Mine  ")
    seeded.tags.add([a, c], "zeta")
    seeded.tags.add([a], "alpha")
    wanted = [*ids[:20], 10**9]  # one that does not exist
    got = seeded.summaries(wanted)
    with seeded.db.reading() as session:
        papers = {p.id: p for p in session.query(Paper).filter(Paper.id.in_(wanted))}
        carried = tags_of(session, papers)
        expected = {i: summary_of(p, carried.get(i, ())) for i, p in papers.items()}
        kept = [i for i in reversed(wanted) if i in papers]  # an order of their own
        details = [detail_of(papers[i], carried.get(i, ())) for i in kept]
    assert got == expected
    assert seeded.papers(kept) == details  # the full records too, read the same one way
    assert b not in got and 10**9 not in got
    assert len(got[a].sources) == 2 and got[a].tags == ("zeta", "alpha")
    assert got[c].starred and not got[c].has_note and got[ids[12]].title == "Mine"
