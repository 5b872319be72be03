"""Hostile command-line input gets an accurate answer: deep parentheses, undecodable bytes,
an overlong saved search's name, a paragraph too long to be an abstract.

The real CLI in a subprocess (``python -m desk``), as a user's shell runs it: argv as bytes.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from desk.core.reader import MAX_ABSTRACT_CHARS
from desk.core.search.query import MAX_DEPTH
from desk.core.text.tag_names import MAX_NAME


def desk(library: Path, *args: str | bytes) -> subprocess.CompletedProcess[str]:
    argv = [os.fsencode(sys.executable), b"-m", b"desk", b"--library", os.fsencode(library)]
    argv += [a if isinstance(a, bytes) else a.encode() for a in args]
    return subprocess.run(argv, capture_output=True, text=True, timeout=120)


def hit_ids(proc: subprocess.CompletedProcess[str]) -> list[int]:
    assert proc.returncode == 0, proc.stderr
    return [r["id"] for r in json.loads(proc.stdout)["results"]]


@pytest.mark.slow
def test_three_thousand_balanced_parentheses_are_answered_with_an_accurate_note(seeded_dir: Path) -> None:
    plain = desk(seeded_dir, "search", "policy", "--json", "--limit", "500")
    nested = desk(seeded_dir, "search", "(" * 3000 + "policy" + ")" * 3000, "--json", "--limit", "500")
    assert hit_ids(nested) == hit_ids(plain) != []
    assert "closing parenthesis" not in nested.stderr and "Traceback" not in nested.stderr
    human = desk(seeded_dir, "search", "(" * 3000 + "policy" + ")" * 3000)
    assert human.returncode == 0
    note = f"desk: Parentheses nest more than {MAX_DEPTH} deep; those deeper are read as if absent."
    assert human.stderr.strip() == note


def test_a_parenthesis_closed_twice_is_still_said_to_have_no_opening(seeded_dir: Path) -> None:
    proc = desk(seeded_dir, "search", "(" * 20 + "policy" + ")" * 21)
    assert proc.returncode == 0
    assert "A closing parenthesis has no opening one." in proc.stderr


@pytest.mark.parametrize(
    ("query", "said"),
    [
        (b"\xff\xfe", "the query is not readable text (its bytes are not UTF-8)"),
        (b"", "the query is empty (desk list lists every paper)"),
        (b"!!! ...", "the query has no word to search"),
    ],
)
def test_a_query_with_nothing_to_search_says_so_instead_of_listing_every_paper(
    seeded_dir: Path, query: bytes, said: str
) -> None:
    for extra in ((), ("--json",)):
        proc = desk(seeded_dir, "search", query, *extra)
        assert proc.returncode == 1, proc.stdout
        assert proc.stdout == ""
        assert proc.stderr.startswith(f"desk: {said}") and len(proc.stderr.splitlines()) == 1, proc.stderr


def test_undecodable_bytes_beside_a_word_search_the_word(seeded_dir: Path) -> None:
    mixed = desk(seeded_dir, "search", b"\xffpolicy", "--json", "--limit", "500")
    assert hit_ids(mixed) == hit_ids(desk(seeded_dir, "search", "policy", "--json", "--limit", "500"))


@pytest.mark.slow
def test_a_saved_searchs_name_too_long_is_said_so(seeded_dir: Path) -> None:
    proc = desk(seeded_dir, "save-search", "n" * 10_000, "policy")
    assert proc.returncode == 1
    assert proc.stderr.strip() == f"desk: a saved search's name is at most {MAX_NAME} characters"
    blank = desk(seeded_dir, "save-search", "   ", "policy")
    assert blank.returncode == 1 and blank.stderr.strip() == "desk: a saved search needs a name"
    at_limit = desk(seeded_dir, "save-search", "n" * MAX_NAME, "policy")
    assert at_limit.returncode == 0, at_limit.stderr


@pytest.mark.slow
def test_a_paragraph_too_long_is_skipped_and_said_the_rest_imported(tmp_path: Path) -> None:
    lst = tmp_path / "long.txt"
    huge = "word " * (MAX_ABSTRACT_CHARS // 5 + 1)
    lst.write_text(
        "Long Lists\n\n"
        "A first abstract about robust policy gradients in control.\n\n"
        f"{huge}\n\n"
        "A third abstract about bandits and their exploration.\n",
        encoding="utf-8",
    )
    library = tmp_path / "L"
    done = desk(library, "import", str(lst), "--json")
    assert done.returncode == 1  # partial work
    report = json.loads(done.stdout)
    assert (report["added"], report["paragraphs"]) == (2, 2)
    [error] = report["errors"]
    assert error["file"] == "long.txt" and error["paragraph"] == 3
    assert f"{MAX_ABSTRACT_CHARS:,}" in error["error"] and "skipped" in error["error"]
    titles = [json.loads(desk(library, "show", str(i), "--json").stdout)["title"] for i in (1, 2)]
    assert titles == [
        "A first abstract about robust policy gradients in control",
        "A third abstract about bandits and their exploration",
    ]
    again = desk(tmp_path / "M", "import", str(lst))
    assert again.stdout.startswith("Added 2 papers from 1 file"), again.stdout
    assert again.stderr.startswith("desk: long.txt: paragraph 3 is "), again.stderr
