"""One copy per near-duplicate group in the lists (search, related, recommend, triage), until the
group is merged or marked "not a duplicate": the longest copy, counted "N copies"."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from desk.cli.main import main
from desk.core.dedup.groups import Candidate
from desk.core.library.copies import collapse_ranked, copies_of
from desk.core.library.facade import Library

SEEDS = Path(__file__).resolve().parents[3] / "seeds"


def _paragraphs(path: Path) -> list[str]:
    return [p.strip() for p in path.read_text(encoding="utf-8").split("\n\n")[1:] if p.strip()]


@pytest.fixture
def twins(seeded_dir: Path, tmp_path: Path) -> tuple[Path, int, int]:
    """The seeds library plus a truncated copy of the OGPO abstract: (library, whole, cut)."""
    ogpo = next(p for p in _paragraphs(SEEDS / "000_702a75ba5fd2766f.txt") if "**OGPO**" in p)
    cut = " ".join(ogpo.split()[: int(len(ogpo.split()) * 0.8)])
    extra = tmp_path / "cut.txt"
    extra.write_text(f"Variants\n\n{cut}\n", encoding="utf-8")
    with Library(seeded_dir) as lib:
        assert lib.import_paths([extra]).added == 1
        (group,) = [g for g in lib.duplicates.groups() if len(g.ids) == 2]
        lengths = {p.id: len(p.abstract) for p in lib.papers(list(group.ids))}
    whole, short = sorted(group.ids, key=lambda i: -lengths[i])
    return seeded_dir, whole, short


def test_the_longest_copy_stands_for_its_group() -> None:
    groups = [Candidate((3, 7, 9), 0.9, False), Candidate((4, 5), 0.95, True)]
    copies = copies_of(groups, {3: 100, 7: 250, 9: 250, 4: 10, 5: 10})
    assert copies.shown == {3: 7, 7: 7, 9: 7, 4: 4, 5: 4}  # longest; the lowest id among equals
    assert copies.count == {7: 3, 4: 2} and copies.hidden == {3, 9, 5}
    assert copies.twins(9) == {3, 7, 9} and copies.twins(11) == {11} and copies.copies(11) == 1
    ranked = [(9, 0.9), (11, 0.8), (3, 0.7), (5, 0.6), (7, 0.5)]
    assert collapse_ranked(ranked, copies) == [(7, 0.9), (11, 0.8), (4, 0.6)]
    assert collapse_ranked(ranked, copies, exclude=copies.twins(4)) == [(7, 0.9), (11, 0.8)]


def test_search_shows_one_copy_counted_and_the_review_still_both(twins: tuple[Path, int, int]) -> None:
    library, whole, cut = twins
    with Library(library) as lib:
        hits = [h.id for h in lib.search_ids("OGPO").hits]
        assert whole in hits and cut not in hits
        assert lib.summaries([whole])[whole].copies == 2
        assert lib.search_ids("OGPO").total == len(hits)
        assert any(set(g.ids) == {whole, cut} for g in lib.duplicates.groups())  # the review: both
        assert lib.paper(cut).id == cut  # still there, by id
        lib.duplicates.mark_distinct(whole, cut)  # "not a duplicate": both listed again
        assert {whole, cut} <= {h.id for h in lib.search_ids("OGPO").hits}
        assert lib.summaries([whole])[whole].copies == 1


def test_related_never_lists_the_papers_own_copy(twins: tuple[Path, int, int]) -> None:
    library, whole, cut = twins
    with Library(library) as lib:
        for pid in (whole, cut):
            related = [r.paper.id for r in lib.discovery.related(pid, limit=10).rows]
            assert whole not in related and cut not in related, pid
            assert len(related) == 10


def test_recommend_offers_one_copy(twins: tuple[Path, int, int]) -> None:
    library, whole, cut = twins
    with Library(library) as lib:
        lib.discovery.ensure_vectors()
        others = [i for i in lib.paper_ids() if i not in (whole, cut)]
        lib.set_starred(others[:3], True)
        offered = [r.paper.id for r in lib.discovery.recommend(limit=200).rows]
        assert cut not in offered
        assert whole in offered


def test_triage_goes_through_one_copy(twins: tuple[Path, int, int]) -> None:
    library, whole, cut = twins
    with Library(library) as lib:
        queue = [h.id for h in lib.search_ids("is:unread", limit=1000).hits]
        assert whole in queue and cut not in queue
        assert len(queue) == lib.count() - 1


def test_desk_search_shows_one_copy(twins: tuple[Path, int, int], capsys: pytest.CaptureFixture[str]) -> None:
    import json

    library, whole, cut = twins
    with Library(library):
        pass  # closed: the near-duplicate links are saved, the command's quick path reads them
    assert main(["--library", str(library), "search", "OGPO", "--json"]) == 0
    ids = [r["id"] for r in json.loads(capsys.readouterr().out)["results"]]
    assert whole in ids and cut not in ids
    shutil.rmtree(library / "cache", ignore_errors=True)  # no saved links: the whole Library answers
    assert main(["--library", str(library), "search", "OGPO", "--json"]) == 0
    ids = [r["id"] for r in json.loads(capsys.readouterr().out)["results"]]
    assert whole in ids


def test_a_copy_that_alone_matches_is_listed(twins: tuple[Path, int, int]) -> None:
    """A query only the hidden copy answers (a note on it, here) still finds it: a copy is left
    out only where the copy shown for its group is found too."""
    library, whole, cut = twins
    with Library(library) as lib:
        lib.set_note(cut, "zqxonlyhere")
        assert [h.id for h in lib.search_ids("zqxonlyhere").hits] == [cut]
        assert lib.search_ids("zqxonlyhere").total == 1
        lib.set_note(whole, "zqxonlyhere too")  # both match: one row again, the shown copy
        assert [h.id for h in lib.search_ids("zqxonlyhere").hits] == [whole]
    code = main(["--library", str(library), "search", "zqxonlyhere"])  # the command line alike
    assert code == 0
