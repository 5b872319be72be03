"""A merge carries the other paper's metadata onto a kept paper that lacks it; unmerge and undo take
back exactly that."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from dedup_texts import PAPER, SECOND, head

from desk.core.library.facade import Library
from desk.core.runtime.paths import DATABASE_NAME

CUT = head(PAPER, 0.5)
RICH = {
    "authors": ["Ann Lee", "Bernhard Schölkopf"], "year": 2024, "venue": "ICML",
    "url": "https://example.org/paper", "doi": "10.1234/abc.5", "abstract": CUT,
}  # fmt: skip


def _meta(library: Path) -> tuple[list[tuple[object, ...]], ...]:
    """The metadata tables, and the `desk list --json` objects the triggers keep from them."""
    conn = sqlite3.connect(f"file:{library / DATABASE_NAME}?mode=ro", uri=True)
    try:
        meta = conn.execute("SELECT * FROM paper_meta ORDER BY paper_id").fetchall()
        authors = conn.execute("SELECT * FROM paper_author ORDER BY paper_id, position").fetchall()
        listing = conn.execute("SELECT id, json FROM paper_listing ORDER BY id").fetchall()
    finally:
        conn.close()
    return meta, authors, listing


def _library(tmp_path: Path) -> Path:
    bare = tmp_path / "bare.txt"
    bare.write_text("Venue 2026\n\n" + PAPER + "\n\n" + SECOND + "\n", encoding="utf-8")
    rich = tmp_path / "rich.json"
    rich.write_text(json.dumps([RICH]), encoding="utf-8")
    with Library(tmp_path / "lib") as lib:
        assert lib.import_paths([bare, rich]).added == 3
    return tmp_path / "lib"


def test_the_kept_paper_takes_the_metadata_it_lacks_and_unmerge_takes_it_back(tmp_path: Path) -> None:
    path = _library(tmp_path)
    before = _meta(path)
    with Library(path) as lib:
        title = lib.paper(1).title
        lib.duplicates.merge(1, [3])
        kept = lib.paper(1)
        assert kept.citation is not None
        assert kept.citation.authors == ("Ann Lee", "Bernhard Schölkopf")
        assert (kept.citation.year, kept.citation.venue) == (2024, "ICML")
        assert (kept.citation.url, kept.citation.doi) == ("https://example.org/paper", "10.1234/abc.5")
        assert kept.title == title  # the kept paper's title stays
        assert [r.paper.id for r in lib.search("scholkopf", limit=5).rows] == [1]  # re-indexed
        assert [r.paper.id for r in lib.search("author:lee", limit=5).rows] == [1]
        lib.duplicates.unmerge(1)
        assert lib.paper(1).citation is None
        assert lib.paper(3).citation is not None and lib.paper(3).citation.year == 2024
        assert [r.paper.id for r in lib.search("scholkopf", limit=5).rows] == [3]
        assert lib.check() == []
    assert _meta(path) == before


def test_undo_and_redo_of_a_carrying_merge_give_back_each_state(tmp_path: Path) -> None:
    path = _library(tmp_path)
    before = _meta(path)
    with Library(path) as lib:
        lib.duplicates.merge(1, [3])
    merged = _meta(path)
    assert merged != before
    with Library(path) as lib:
        assert lib.history.undo() is not None
    assert _meta(path) == before
    with Library(path) as lib:
        assert lib.history.redo() is not None
    assert _meta(path) == merged
    with Library(path) as lib:
        lib.duplicates.unmerge(3)
    assert _meta(path) == before
    with Library(path) as lib:
        undone = lib.history.undo()  # the unmerge taken back: the merge again, as it was
        assert undone is not None and undone.skipped == 0
    assert _meta(path) == merged


def test_a_kept_paper_with_metadata_keeps_its_own(tmp_path: Path) -> None:
    path = _library(tmp_path)
    with Library(path) as lib:
        lib.duplicates.merge(3, [1])
        kept = lib.paper(3)
    assert kept.citation is not None and kept.citation.authors == ("Ann Lee", "Bernhard Schölkopf")
    with Library(path) as lib:
        lib.duplicates.unmerge(3)
        assert lib.paper(3).citation == kept.citation and lib.paper(1).citation is None


def test_a_doi_of_a_merged_away_paper_finds_the_kept_one_on_import(tmp_path: Path) -> None:
    """The merged-away paper keeps its metadata row (for an unmerge); an import of the same DOI
    joins the paper in the library, never the one merged away."""
    path = _library(tmp_path)
    with Library(path) as lib:
        lib.duplicates.merge(1, [3])
        again = tmp_path / "again.json"
        again.write_text(
            json.dumps(
                [{"title": "Another", "doi": "10.1234/ABC.5", "abstract": "A different abstract, same DOI."}]
            ),
            encoding="utf-8",
        )
        report = lib.import_paths([again])
        assert report.added == 0 and not report.errors
        assert {s.file for s in lib.paper(1).sources} >= {"again.json"}
        assert lib.check() == []
