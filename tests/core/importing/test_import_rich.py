"""Importing rich lists: every entry a paper, broken ones reported, refusals add nothing, big JSON
lines in parts (each its own transaction, numbered across the file)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from rich_files import bibtex, dev_records, needs_dev_records

from desk.core import reader
from desk.core.library.facade import Library
from desk.core.runtime.tuning import Tuning


def _line(n: int) -> str:
    return json.dumps({"id": f"2301.{n:05d}", "title": f"Paper {n}", "authors": "Ann Lee and Bo Kim",
                       "abstract": f"We study problem number {n} in depth. It is hard.",
                       "versions": [{"created": "Mon, 2 Jan 2023"}]})  # fmt: skip


@needs_dev_records
def test_a_bib_of_the_dev_papers_adds_each_one(tmp_path: Path) -> None:
    records = dev_records()[:300]
    path = tmp_path / "cvpr.bib"
    path.write_text(bibtex(records), encoding="utf-8")
    with Library(tmp_path / "lib") as lib:
        report = lib.import_paths([path])
        assert (report.added, report.errors) == (300, ())
        again = lib.import_paths([path])
        assert (again.added, again.already_imported) == (0, 1)


def test_a_refused_file_adds_nothing_and_says_what_desk_reads(tmp_path: Path) -> None:
    sheet = tmp_path / "sheet.csv"
    sheet.write_text("title,authors\nA paper,Ann Lee\n", encoding="utf-8")
    notes = tmp_path / "openreview.json"
    notes.write_text('{"notes": [', encoding="utf-8")
    with Library(tmp_path / "lib") as lib:
        report = lib.import_paths([sheet, notes])
        assert report.added == 0 and lib.stats().papers == 0
        assert [e.file for e in report.errors] == ["sheet.csv", "openreview.json"]
        assert "no abstract column" in report.errors[0].error
        assert "not valid JSON" in report.errors[1].error and "desk reads" in report.errors[1].error


def test_a_broken_entry_is_reported_and_the_others_imported(tmp_path: Path) -> None:
    path = tmp_path / "mixed.bib"
    path.write_text(
        "@article{a1, title={One}, abstract={The first abstract here. Fine.}}\n"
        "@article{b2, title={Two, abstract={Lost.}\n"
        "@article{c3, title={Three}, abstract={The third abstract here. Fine.}}\n",
        encoding="utf-8",
    )
    with Library(tmp_path / "lib") as lib:
        report = lib.import_paths([path])
    assert report.added == 2
    assert len(report.errors) == 1 and report.errors[0].paragraph == 2
    assert "entry b2 (line 2)" in report.errors[0].error
    assert report.skipped_files == 0  # the file was imported, without one entry


def test_json_lines_import_in_parts_numbered_across_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(reader, "PART_LINES", 300)  # parts of 300 lines stand for the reader's 10,000
    path = tmp_path / "snapshot.jsonl"
    path.write_text("\n".join(_line(n) for n in range(300 + 3)) + "\n", encoding="utf-8")
    with Library(tmp_path / "lib", tuning=Tuning.eager()) as lib:
        report = lib.import_paths([path])
        assert (report.files, report.added, report.errors) == (1, 300 + 3, ())
        last = lib.paper(max(p.id for p in lib.list_papers()))
        assert [(s.file, s.index) for s in last.sources] == [("snapshot.jsonl", 300 + 2)]
        again = lib.import_paths([path])
        assert (again.added, again.already_imported) == (0, 1)


def test_the_analysis_takes_a_lists_real_title_instead_of_deriving_one() -> None:
    from desk.core.text.analysis import analyse, analyse_many

    raw = "We propose FOO, a method for sorting socks quickly. It sorts socks in linear time."
    bare = analyse(raw)
    named = analyse(raw, "RACER: Rational Sock Sorting")
    assert named.title == "RACER: Rational Sock Sorting" and named.short_name == "RACER"  # the title names it
    plain = analyse(raw, "Sorting Socks Quickly")
    assert plain.title == "Sorting Socks Quickly" and plain.short_name == bare.short_name  # the abstract does
    assert (plain.key, plain.readable) == (bare.key, bare.readable)
    assert analyse_many([raw, raw], [None, "Sorting Socks Quickly"]) == [bare, plain]


def test_a_rich_lists_papers_take_the_same_titles_and_names_on_the_workers_and_here(tmp_path: Path) -> None:
    """The titles go with the abstracts to the workers: the eager path stores what the direct one does."""
    from desk.core.runtime.tuning import Tuning

    entries = [
        "@article{r1, title={RACER: Rational Sock Sorting}, author={Lee, Ann}, "
        "abstract={We propose a method for sorting socks quickly. It sorts socks in linear time.}}",
        "@article{r2, title={Sorting Shoes Slowly}, author={Kim, Bo}, "
        "abstract={We propose SHOE, a method for sorting shoes. It is slow on purpose.}}",
        "@article{r3, title={Revisiting: Plain Titles}, "
        "abstract={A study of titles that name no method at all. It finds none.}}",
    ]
    path = tmp_path / "papers.bib"
    path.write_text("\n".join(entries), encoding="utf-8")
    shown: list[list[tuple[str, str | None]]] = []
    for tuning in (None, Tuning.eager(2)):  # here; on the worker processes, two entries a job
        with Library(tmp_path / f"lib-{len(shown)}", tuning=tuning) as lib:
            assert lib.import_paths([path]).added == 3
            shown.append([(p.title, p.short_name) for p in sorted(lib.list_papers(), key=lambda p: p.id)])
    assert (
        shown[0]
        == shown[1]
        == [
            ("RACER: Rational Sock Sorting", "RACER"),
            ("Sorting Shoes Slowly", "SHOE"),
            ("Revisiting: Plain Titles", None),
        ]
    )
