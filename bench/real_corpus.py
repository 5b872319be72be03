"""Corpora of real sentences: the dev corpus's abstracts recombined to any size.

Each abstract of ``../shared/dev-corpus/cvpr2023.txt`` is split into sentences; an abstract of
the made corpus is 4–9 sentences drawn from the real ones (seeded, so a size always gives the
same files). The text is real researchers' wording, only its combination is new.

    python bench/real_corpus.py --size 100000 --out /tmp/desk-real-100k
"""

from __future__ import annotations

import argparse
import random
import re
from pathlib import Path

DEV_CORPUS = Path(__file__).resolve().parents[1] / ".." / "shared" / "dev-corpus" / "cvpr2023.txt"
PER_FILE = 5000
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")


def sentences(path: Path = DEV_CORPUS) -> list[str]:
    """Every sentence of the dev corpus's abstracts (the header left out)."""
    paragraphs = [p.strip() for p in path.read_text(encoding="utf-8").split("\n\n") if p.strip()]
    out: list[str] = []
    for para in paragraphs[1:]:
        out.extend(s.strip() for s in _SENTENCE.split(para) if len(s.strip()) > 20)
    return out


def write(size: int, out: Path, seed: int = 11, per_file: int = PER_FILE) -> list[Path]:
    """``size`` recombined abstracts in files of ``per_file``, each with a header line."""
    pool = sentences()
    rng = random.Random(seed)
    out.mkdir(parents=True, exist_ok=True)
    files: list[Path] = []
    for start in range(0, size, per_file):
        n = min(per_file, size - start)
        abstracts = [" ".join(rng.sample(pool, rng.randint(4, 9))) for _ in range(n)]
        path = out / f"real_{start // per_file:03d}.txt"
        path.write_text(
            f"Real {start // per_file} Papers\n\n" + "\n\n".join(abstracts) + "\n", encoding="utf-8"
        )
        files.append(path)
    return files


def main(argv: list[str] | None = None) -> int:
    """Write a corpus of recombined real sentences."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", type=int, default=10000)
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args(argv)
    files = write(args.size, args.out)
    print(f"wrote {args.size} abstracts in {len(files)} files to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
