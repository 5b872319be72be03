"""A stdout that cannot encode every character (a Latin-1 terminal, PYTHONIOENCODING=ascii):
commands finish, JSON stays the same JSON (as \\u escapes), text gets "?" for what it lacks."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from desk.cli.main import main


def _run(monkeypatch: pytest.MonkeyPatch, encoding: str, *argv: str) -> tuple[int, bytes, bytes]:
    out_raw, err_raw = io.BytesIO(), io.BytesIO()
    out = io.TextIOWrapper(out_raw, encoding=encoding, newline="\n")
    err = io.TextIOWrapper(err_raw, encoding=encoding, newline="\n")
    monkeypatch.setattr("sys.stdout", out)
    monkeypatch.setattr("sys.stderr", err)
    code = main(list(argv))
    out.flush()
    err.flush()
    return code, out_raw.getvalue(), err_raw.getvalue()


@pytest.mark.parametrize(
    "command", [("list", "--json"), ("show", "1", "--json"), ("search", "learning", "--json")]
)
def test_json_to_a_narrow_stdout_is_the_same_json_in_ascii(
    monkeypatch: pytest.MonkeyPatch, seeded_dir: Path, command: tuple[str, ...]
) -> None:
    lib = ("--library", str(seeded_dir))
    code, wide, _ = _run(monkeypatch, "utf-8", *lib, *command)
    assert code == 0
    code, narrow, err = _run(monkeypatch, "latin-1", *lib, *command)
    assert code == 0, err
    assert narrow.isascii() and not wide.isascii()  # the seeds' 论文列表 collection, curly quotes
    got, expected = json.loads(narrow), json.loads(wide)
    if command[0] == "search":  # took_ms is the one field that differs between two runs
        got.pop("took_ms"), expected.pop("took_ms")
    assert got == expected


def test_text_to_a_narrow_stdout_finishes_with_what_it_can_show(
    monkeypatch: pytest.MonkeyPatch, seeded_dir: Path
) -> None:
    code, out, err = _run(monkeypatch, "ascii", "--library", str(seeded_dir), "stats")
    assert code == 0, err
    text = out.decode("ascii")
    assert "ICML 2026 Papers" in text and "ICML 2026 ????" in text  # 论文列表, replaced
