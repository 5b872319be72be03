"""Real abstracts for tests: the dev corpus read from ../shared/dev-corpus/ (never copied into the
repository), or the bundled seeds when it is absent (fewer papers, the same shapes)."""

from __future__ import annotations

from pathlib import Path

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
