"""Real abstracts for tests: the dev corpus read from ../shared/dev-corpus/ (never copied into the
repository), or the bundled seeds when it is absent (fewer papers, the same shapes)."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DEV = ROOT.parent / "shared" / "dev-corpus" / "cvpr2023.txt"


def dev_abstracts() -> list[str]:
    """Every abstract of the dev corpus (or of the seeds), stripped, in file order."""
    if DEV.is_file():
        paragraphs = DEV.read_text(encoding="utf-8").split("\n\n")[1:]
    else:
        paragraphs = [
            p for f in sorted((ROOT / "seeds").glob("*.txt")) for p in f.read_text().split("\n\n")[1:]
        ]
    return [p.strip() for p in paragraphs if p.strip()]


#: For a test whose check needs the dev corpus's size or words (hundreds of real abstracts, a
#: word in many of them): the seeds' 95 paragraphs cannot stand in, so without it the test is
#: skipped, saying why, rather than failing on a machine that has only the repository.
needs_dev_corpus = pytest.mark.skipif(
    not DEV.is_file(), reason="needs ../shared/dev-corpus/ (real abstracts) beside the repository"
)
