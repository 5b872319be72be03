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
        lib.tag([pid], "reading group")
        lib.tag([pid], "to read")
    out = run(capsys, "--library", str(seeded_dir), "show", str(pid))
    assert "Tags: reading group, to read\n" in out
