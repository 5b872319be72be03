"""Authors as a low-weight field of the ranking: a bare word finds a paper by its author's name."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from whoosh import index as windex

from desk.core.library.facade import Library
from desk.core.search.names import INDEX_NAME, MARKER_NAME, SCHEMA_VERSION
from desk.core.search.schema import build_schema

RECORDS = [
    {"title": "Attention Is All You Need", "authors": ["Ashish Vaswani", "Noam Shazeer"],
     "abstract": "We propose the Transformer, a sequence model built on attention alone."},
    {"title": "Kernel Mean Embeddings", "authors": ["Bernhard Schölkopf", "Krikamol Muandet"],
     "abstract": "Kernel mean embeddings of distributions support two-sample tests and causal inference."},
    {"title": "Inverting Generators", "authors": ["Chuang Gan"],
     "abstract": "We study the inversion of pretrained image generators into their latent space."},
    {"title": "GAN Inversion Survey", "authors": ["Ann Lee"],
     "abstract": "GAN inversion maps a real image into the latent space of a GAN; we survey its methods."},
    {"title": "Sequence Attention", "authors": ["Ann Lee"],
     "abstract": "Attention over long sequences: a study of attention heads in sequence models."},
]  # fmt: skip


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("authors")
    (folder / "papers.json").write_text(json.dumps(RECORDS), encoding="utf-8")
    with Library(folder / "lib") as lib:
        assert lib.import_paths([folder / "papers.json"]).added == len(RECORDS)
    return folder / "lib"


def _titles(lib: Library, query: str) -> list[str]:
    return [row.paper.title for row in lib.search(query, limit=10).rows]


@pytest.mark.parametrize(
    ("query", "first"),
    [
        ("vaswani", "Attention Is All You Need"),
        ("Vaswani attention", "Attention Is All You Need"),  # the name lifts it above the other
        ("scholkopf", "Kernel Mean Embeddings"),  # accents aside
        ("Schölkopf", "Kernel Mean Embeddings"),
        ('"ashish vaswani"', "Attention Is All You Need"),
        ("gan inversion", "GAN Inversion Survey"),  # a topic word outranks the same word as a name
    ],
)
def test_a_bare_word_finds_a_paper_by_its_authors_name(library: Path, query: str, first: str) -> None:
    with Library(library) as lib:
        got = _titles(lib, query)
    assert got and got[0] == first, got


def test_a_name_alone_finds_only_that_authors_papers_and_is_no_typo(library: Path) -> None:
    with Library(library) as lib:
        result = lib.search("shazeer", limit=10)
        assert [r.paper.title for r in result.rows] == ["Attention Is All You Need"]
        assert result.suggestion is None and not result.corrected
        assert _titles(lib, "muandet") == ["Kernel Mean Embeddings"]


def test_a_name_does_not_count_as_a_query_part_matched(library: Path) -> None:
    """The paper by Gan matches 'inversion' in its text and 'gan' only among its authors: one part."""
    with Library(library) as lib:
        titles = {row.paper.id: row.paper.title for row in lib.search("gan inversion", limit=10).rows}
        parts = {titles[h.id]: h.parts for h in lib.search_ids("gan inversion", limit=10).hits}
    assert parts["GAN Inversion Survey"] == 2
    assert parts["Inverting Generators"] == 1


def test_an_index_of_the_schema_before_authors_is_rebuilt_at_start_up(tmp_path: Path) -> None:
    """An index written before the authors field (marker of the older version, no such field) is
    found old when the library opens and rebuilt from the database: names are then searchable."""
    (tmp_path / "papers.json").write_text(json.dumps(RECORDS), encoding="utf-8")
    lib_dir = tmp_path / "lib"
    with Library(lib_dir) as lib:
        lib.import_paths([tmp_path / "papers.json"])
    index_dir = next(p.parent for p in lib_dir.rglob(MARKER_NAME))
    for path in index_dir.iterdir():
        if path.is_file():
            path.unlink()
    old_schema = build_schema()
    old_schema.remove("authors")
    old = windex.create_in(str(index_dir), old_schema, indexname=f"desk_v{SCHEMA_VERSION - 1}")
    with old.writer() as writer:
        writer.add_document(id=1, rev=1, title="old", abstract="an old index")
    (index_dir / MARKER_NAME).write_text(json.dumps({"schema_version": SCHEMA_VERSION - 1}), encoding="utf-8")
    with Library(lib_dir) as lib:
        assert _titles(lib, "vaswani") == ["Attention Is All You Need"]
    assert (
        json.loads((index_dir / MARKER_NAME).read_text(encoding="utf-8"))["schema_version"] == SCHEMA_VERSION
    )
    assert any(p.name.startswith(f"_{INDEX_NAME}_") or INDEX_NAME in p.name for p in index_dir.iterdir())
