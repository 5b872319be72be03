"""What `desk show` and the export say to a person: the paper's tags, its sources numbered as
the window numbers them."""

from __future__ import annotations

from pathlib import Path

import pytest

from desk.cli.main import main
from desk.core.library.facade import Library


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert code == 0, err
    return out


def test_show_lists_the_papers_tags(capsys, seeded_dir: Path) -> None:
    with Library(seeded_dir) as lib:
        pid = lib.paper_ids()[3]
        lib.tags.add([pid], "reading group")
        lib.tags.add([pid], "to read")
    out = run(capsys, "--library", str(seeded_dir), "show", str(pid))
    assert "Tags: reading group, to read\n" in out


def test_search_help_gives_the_query_language_and_import_help_the_file_format(capsys) -> None:
    with pytest.raises(SystemExit) as done:
        main(["search", "--help"])
    assert done.value.code == 0
    said = capsys.readouterr().out
    for term in ('"exact phrase"', "diffus*", "title:word", "is:unread", "tag:name", 'in:"'):
        assert term in said, term
    with pytest.raises(SystemExit):
        main(["import", "--help"])
    said = capsys.readouterr().out
    assert "one paper per paragraph" in said and "BibTeX" in said and "collection" in said


def test_show_and_the_export_number_sources_from_one(capsys, seeded_dir: Path) -> None:
    with Library(seeded_dir) as lib:
        pid = lib.paper_ids()[0]
        source = lib.paper(pid).sources[0]
    out = run(capsys, "--library", str(seeded_dir), "show", str(pid))
    assert f"{source.file} #{source.index + 1}\n" in out
    exported = run(capsys, "--library", str(seeded_dir), "export", "--query", f'in:"{source.collection}"')
    assert f"#{source.index + 1}" in exported
