"""BibTeX, CSV and JSON export: the round trip through bibtexparser, hostile text, formulas in CSV."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
from pathlib import Path

import bibtexparser
import pytest
from rich_files import bibtex, dev_records, needs_dev_records, real_authors

from desk.core.library.facade import Library
from desk.core.reader import read_list_file
from desk.core.text.latex import latex_to_unicode

ROOT = Path(__file__).resolve().parents[2]


def shown(title: str) -> str:
    return latex_to_unicode(title) if "$" in title else title


@needs_dev_records
def test_import_a_bib_star_20_export_bibtex_and_parse_it_back(tmp_path: Path) -> None:
    records = dev_records()[:200]
    source = tmp_path / "cvpr.bib"
    source.write_text(bibtex(records), encoding="utf-8")
    with Library(tmp_path / "lib") as lib:
        assert lib.import_paths([source]).added == 200
        starred = list(range(1, 200, 10))  # 20 papers
        lib.set_starred(starred, True)
        text = lib.export_as(lib.paper_ids(starred=True), fmt="bibtex", what="starred papers")
    parsed = bibtexparser.parse_string(text)
    assert len(parsed.entries) == 20 and not parsed.failed_blocks
    assert len({e.key for e in parsed.entries}) == 20
    out = tmp_path / "out.bib"
    out.write_text(text, encoding="utf-8")
    back = read_list_file(out)
    wanted = [records[i - 1] for i in starred]
    assert [m.title for m in back.metadata] == [shown(r["title"]) for r in wanted]
    assert [m.authors for m in back.metadata] == [real_authors(r) for r in wanted]
    assert parsed.entries[0].key == "tejankar2023defending"


def _paper(tmp_path: Path, title: str, abstract: str, authors: list[str]) -> Path:
    path = tmp_path / "one.json"
    path.write_text(
        json.dumps(
            [{"title": title, "abstract": abstract, "authors": authors, "year": 2024, "venue": "X & Y"}]
        ),
        encoding="utf-8",
    )
    return path


def test_hostile_titles_names_and_abstracts_survive_a_bibtex_round_trip(tmp_path: Path) -> None:
    title = "100% {Unbalanced} } Braces_and #hash & C:\\path ~ ^"
    abstract = "A stray } brace and 50% of $\\alpha$ values. It ends here."
    authors = ["Zoë O'Brien-Müller", "Ann Lee, Jr.", "Plato", "Bob and Alice"]
    with Library(tmp_path / "lib") as lib:
        lib.import_paths([_paper(tmp_path, title, abstract, authors)])
        text = lib.export_as([1], fmt="bibtex", what="one")
    parsed = bibtexparser.parse_string(text)
    assert len(parsed.entries) == 1 and not parsed.failed_blocks
    out = tmp_path / "out.bib"
    out.write_text(text, encoding="utf-8")
    back = read_list_file(out)
    assert back.metadata[0].title == title
    assert back.metadata[0].authors == tuple(authors)
    assert back.metadata[0].venue == "X & Y"
    assert back.abstracts[0].replace("\\}", "}") == abstract


def test_csv_cells_never_start_a_formula_and_json_reads_back(tmp_path: Path) -> None:
    with Library(tmp_path / "lib") as lib:
        lib.import_paths([_paper(tmp_path, '=HYPERLINK("http://x")', "An abstract. Fine.", ["@evil"])])
        table = lib.export_as([1], fmt="csv", what="one")
        exported = lib.export_as([1], fmt="json", what="one")
    rows = list(csv.reader(io.StringIO(table)))
    assert rows[0][:4] == ["id", "title", "short_name", "authors"]
    assert rows[1][1] == '\'=HYPERLINK("http://x")' and rows[1][3] == "'@evil"
    path = tmp_path / "export.json"
    path.write_text(exported, encoding="utf-8")
    again = read_list_file(path)
    assert again.metadata[0].title == '=HYPERLINK("http://x")' and again.metadata[0].authors == ("@evil",)


def test_markdown_export_gains_authors_and_the_link(tmp_path: Path) -> None:
    with Library(tmp_path / "lib") as lib:
        lib.import_paths([_paper(tmp_path, "A *title*", "An abstract. Fine.", ["Ann Lee", "Bo Kim"])])
        text = lib.export_as([1], fmt="markdown", what="one")
    assert "Ann Lee, Bo Kim — X & Y 2024" in text
    assert "A \\*title\\*" in text


@pytest.mark.slow
def test_desk_export_format_bibtex_to_a_file(tmp_path: Path) -> None:
    with Library(tmp_path / "lib") as lib:
        lib.import_paths([_paper(tmp_path, "Kernels", "An abstract. Fine.", ["Ann Lee"])])
        lib.set_starred([1], True)
    out = tmp_path / "starred.bib"
    command = ["export", "--format", "bibtex", "-o", str(out), "--library", str(tmp_path / "lib")]
    proc = subprocess.run(
        [sys.executable, "-m", "desk", *command],
        capture_output=True, text=True, cwd=ROOT, timeout=60, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert out.read_text(encoding="utf-8").startswith("@inproceedings{lee2024kernels,\n  title = {Kernels},")
