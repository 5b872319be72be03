"""A rich list's metadata in the database (schema step 9): upgrading, the real title kept, the listing
objects and `show --json` carrying it, one paper across formats, the trash."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from sqlalchemy import create_engine

from desk.cli.output import detail_json, summary_json
from desk.core.library.facade import Library
from desk.core.library.quick import QuickLibrary
from desk.core.runtime.paths import DATABASE_NAME
from desk.core.store import listing, migrations
from desk.core.text import dedup_key, derive_title, find_short_name
from desk.core.text.normalize import stored_key

ABSTRACT = "We propose RACER, a rational critic for offline reinforcement learning. It works well."
OTHER = "Graph neural networks fail on heterophilous graphs; we propose a fix that works on them."
BIB = (
    "@inproceedings{lee2024racer,\n"
    "  title = {{RACER}: Rational Critics for Offline Learning},\n"
    '  author = {Sch{\\"o}lkopf, Bernhard and Lee, Ann},\n'
    "  booktitle = {ICML}, year = {2024}, doi = {10.1145/12345},\n"
    f"  abstract = {{{ABSTRACT}}}\n"
    "}\n"
)


def _bib(tmp_path: Path, text: str = BIB, name: str = "icml.bib") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def _txt(tmp_path: Path, *abstracts: str) -> Path:
    path = tmp_path / "plain.txt"
    path.write_text("ICML 2024 Papers\n\n" + "\n\n".join(abstracts) + "\n", encoding="utf-8")
    return path


# The title today's rules derive: the later step that re-derives titles leaves it as it is.
TODAYS_TITLE = derive_title(ABSTRACT, find_short_name(ABSTRACT))


def test_a_version_8_library_is_backed_up_and_upgraded_with_its_listing_unchanged(tmp_path: Path) -> None:
    folder = tmp_path / "lib"
    folder.mkdir()
    db = folder / DATABASE_NAME
    engine = create_engine(f"sqlite:///{db}")
    with engine.begin() as conn:
        migrations.upgrade(conn, 0, 8)
        conn.exec_driver_sql(
            "INSERT INTO paper (key, abstract_raw, abstract, derived_title, short_name, starred, read, note,"
            " rev, created_at, updated_at) VALUES (?, ?, ?, ?, ?, 1, 0, 'n', 1,"
            " '2026-01-01 00:00:00', '2026-01-01 00:00:00')",
            (stored_key(dedup_key(ABSTRACT)), ABSTRACT, ABSTRACT, TODAYS_TITLE, find_short_name(ABSTRACT)),
        )
    engine.dispose()
    before = sqlite3.connect(db).execute("SELECT id, json FROM paper_listing").fetchall()
    with Library(folder) as lib:
        assert lib.paper(1).title == TODAYS_TITLE
    conn = sqlite3.connect(db)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == migrations.SCHEMA_VERSION
    assert conn.execute("SELECT id, json FROM paper_listing").fetchall() == before
    assert listing.differences(conn) == []
    assert list((folder / "backups").glob("before-migration-v8-*.sqlite3"))


def test_the_list_s_title_authors_and_links_are_kept_and_shown(tmp_path: Path) -> None:
    with Library(tmp_path / "lib") as lib:
        lib.import_paths([_bib(tmp_path)])
        paper = lib.paper(1)
        shown = detail_json(paper)
    assert paper.title == "RACER: Rational Critics for Offline Learning"
    assert paper.short_name == "RACER"  # from the real title's "Name:"
    assert shown["authors"] == ["Bernhard Schölkopf", "Ann Lee"]
    assert (shown["year"], shown["venue"], shown["doi"], shown["url"], shown["arxiv_id"]) == (
        2024, "ICML", "10.1145/12345", None, None,
    )  # fmt: skip
    assert paper.citation is not None and paper.citation.link == "https://doi.org/10.1145/12345"


def test_a_real_title_is_never_re_derived(tmp_path: Path) -> None:
    with Library(tmp_path / "lib") as lib:
        lib.import_paths([_bib(tmp_path)])
    conn = sqlite3.connect(tmp_path / "lib" / DATABASE_NAME)
    with conn:
        conn.execute("UPDATE paper SET derived_title = 'A title derived again from the abstract'")
    assert conn.execute("SELECT derived_title FROM paper").fetchone()[0].startswith("RACER: Rational")
    assert listing.differences(conn) == []


def test_list_json_from_the_database_is_the_records_json(tmp_path: Path) -> None:
    with Library(tmp_path / "lib") as lib:
        lib.import_paths([_bib(tmp_path), _txt(tmp_path, OTHER)])
        papers = lib.list_papers(sort="title")  # the Library's own records, not the kept objects
    reader = QuickLibrary.open(tmp_path / "lib")
    assert reader is not None
    with reader:
        kept = [json.loads(text) for text in reader.list_json()]
    assert kept == sorted((summary_json(p) for p in papers), key=lambda p: p["id"])
    assert "authors" in kept[0] and "authors" not in kept[1]  # a bare list's paper has no such keys


def test_the_same_abstract_from_a_txt_and_a_bib_is_one_paper_with_the_real_title(tmp_path: Path) -> None:
    for order in ("txt first", "bib first"):
        folder = tmp_path / order
        folder.mkdir()
        files = [_txt(folder, ABSTRACT), _bib(folder)]
        with Library(folder / "lib") as lib:
            report = lib.import_paths(files if order == "txt first" else files[::-1])
            assert (report.added, report.merged) == (1, 1), order
            paper = lib.paper(1)
            assert paper.title == "RACER: Rational Critics for Offline Learning", order
            assert paper.citation is not None and paper.citation.authors == ("Bernhard Schölkopf", "Ann Lee")
            assert sorted(s.file for s in paper.sources) == ["icml.bib", "plain.txt"]
            assert lib.search("critics").total == 1  # the index took the real title


def test_an_equal_doi_or_arxiv_id_is_one_paper_though_the_abstracts_differ(tmp_path: Path) -> None:
    other = BIB.replace(ABSTRACT, "A revised abstract of RACER. It says more than the first one did.")
    arxiv = (
        '{"id": "2401.00001", "title": "A", "abstract": "One text.", "authors": "A B", "versions": []}\n'
        '{"id": "2401.00001v2", "title": "A", "abstract": "Two text.", "authors": "A B", "versions": []}\n'
    )
    with Library(tmp_path / "lib") as lib:
        assert lib.import_paths([_bib(tmp_path)]).added == 1
        report = lib.import_paths([_bib(tmp_path, other, "camera-ready.bib")])
        assert (report.added, report.merged) == (0, 1)
        lines = tmp_path / "arxiv.jsonl"
        lines.write_text(arxiv, encoding="utf-8")
        assert lib.import_paths([lines]).added == 1  # the second line is the first's later version
        assert lib.stats().papers == 2


def test_a_paper_comes_back_from_the_trash_with_its_authors_and_empty_trash_forgets_them(
    tmp_path: Path,
) -> None:
    with Library(tmp_path / "lib") as lib:
        lib.import_paths([_bib(tmp_path)])
        lib.trash.delete([1])
        lib.trash.restore([1])
        paper = lib.paper(1)
        assert paper.citation is not None and paper.citation.authors == ("Bernhard Schölkopf", "Ann Lee")
        assert paper.title.startswith("RACER")
        lib.trash.delete([1])
        lib.trash.empty()
    conn = sqlite3.connect(tmp_path / "lib" / DATABASE_NAME)
    assert conn.execute("SELECT count(*) FROM paper_meta").fetchone()[0] == 0
    assert conn.execute("SELECT count(*) FROM paper_author").fetchone()[0] == 0
