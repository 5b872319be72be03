"""author:, year: and venue: — a rich list's metadata searched, in the Library and in `desk search`."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from desk.core.library.facade import Library
from desk.core.search.query import ScopeFilter, parse

ROOT = Path(__file__).resolve().parents[3]
RECORDS = [
    {"title": "Kernels", "authors": ["Bernhard Schölkopf", "Ann Lee"], "year": 2021, "venue": "ICML 2021",
     "abstract": "We study kernel methods for causal inference. They work."},
    {"title": "Graphs", "authors": ["Carlos Martín-Isla"], "year": 2023, "venue": "NeurIPS",
     "abstract": "Graph neural networks on heterophilous graphs need a fix. We give one."},
    {"title": "Vision", "authors": ["Ann Leeds"], "year": 2024, "venue": "CVPR",
     "abstract": "Vision transformers for dense prediction, trained with little data."},
]  # fmt: skip


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("cited")
    path = folder / "papers.json"
    path.write_text(json.dumps(RECORDS), encoding="utf-8")
    plain = folder / "plain.txt"
    plain.write_text("Old 2020 Papers\n\nA bare abstract about kernel methods, without authors.\n")
    with Library(folder / "lib") as lib:
        assert lib.import_paths([path, plain]).added == 4
    return folder / "lib"


def _titles(lib: Library, query: str) -> list[str]:
    return sorted(p.paper.title for p in lib.search(query, limit=50).rows)


@pytest.mark.parametrize(
    ("query", "titles"),
    [
        ("author:scholkopf", ["Kernels"]),  # accents and case aside
        ("author:SCHÖLKOPF", ["Kernels"]),
        ('author:"bernhard scholkopf"', ["Kernels"]),
        ("author:schol", ["Kernels"]),  # the start of a name
        ("author:isla", ["Graphs"]),  # a part of a double name
        ("author:lee", ["Kernels", "Vision"]),  # Lee and Leeds both start so
        ("author:kopf", []),  # not the middle of a name
        ("year:2023", ["Graphs"]),
        ("year:>2021", ["Graphs", "Vision"]),
        ("year:<=2021", ["Kernels"]),
        ("year:2021..2023", ["Graphs", "Kernels"]),
        ("year:soon", []),
        ("venue:icml", ["Kernels"]),
        ("kernel author:lee", ["Kernels"]),  # with words: the filter narrows the ranked hits
        ("kernel -author:lee", ["A bare abstract about kernel methods, without authors"]),
    ],
)
def test_citation_fields_filter_the_library(library: Path, query: str, titles: list[str]) -> None:
    with Library(library) as lib:
        got = _titles(lib, query)
    assert [t.rstrip(".") for t in got] == titles


def test_the_fields_parse_as_filters_and_unfinished_ones_say_what_they_need() -> None:
    assert parse("author:lee").parts == [ScopeFilter("author", "lee")]
    assert parse("year:>2021").parts == [ScopeFilter("year", ">2021")]
    assert "an author's name" in (parse("author:").hint or "")


def test_desk_search_answers_them_without_opening_the_whole_library(library: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "desk", "search", "author:scholkopf", "--json", "--library", str(library)],
        capture_output=True, text=True, cwd=ROOT, timeout=60, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    results = json.loads(proc.stdout)["results"]
    assert [r["title"] for r in results] == ["Kernels"]
    assert results[0]["authors"] == ["Bernhard Schölkopf", "Ann Lee"]
