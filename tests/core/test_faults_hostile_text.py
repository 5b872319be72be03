"""Fault injection with hostile text: LaTeX that once hung an import is read in bounded time.

The real CLI in a subprocess with a timeout, so a hang fails the test instead of blocking the run.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.faults, pytest.mark.slow]

HANG_BOUND_SECONDS = 120  # an import of three abstracts; the hang it guards against never ended


def run(library: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "desk", "--library", str(library), *args],
        capture_output=True,
        text=True,
        timeout=HANG_BOUND_SECONDS,
    )


def test_importing_nested_fractions_completes_and_the_paper_reads(tmp_path: Path) -> None:
    nested = "\\frac{" * 70  # 420 bytes: pylatexenc's tolerant parse of it ran for minutes
    roots = "\\frac{\\sqrt[" * 40
    lst = tmp_path / "hostile.txt"
    lst.write_text(
        "Hostile LaTeX\n\n"
        f"We study nested fractions {nested} of robust control in depth.\n\n"
        f"Square roots ${roots}$ of gradient policies, bounded.\n\n"
        "A third abstract about $\\alpha$-stable policies and their gradients.\n",
        encoding="utf-8",
    )
    library = tmp_path / "L"
    done = run(library, "import", str(lst), "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["added"] == 3, done.stdout
    for paper_id, words in ((1, "nested fractions"), (2, "gradient policies"), (3, "α-stable")):
        shown = json.loads(run(library, "show", str(paper_id), "--json").stdout)
        for text in (shown["title"], shown["abstract"]):
            assert "\\" not in text and "$" not in text, shown
            if paper_id == 1:  # past the parser's budget the macros' names go, the words stay
                assert not re.search(r"\bfrac\b|fracfrac", text), shown
        assert words in shown["abstract"], shown
    hits = json.loads(run(library, "search", "fractions", "--json").stdout)
    assert [h["id"] for h in hits["results"]] == [1], hits
    check = run(library, "check")
    assert check.returncode == 0, check.stderr
