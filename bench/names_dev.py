"""Short names and derived titles on real abstracts: desk's against the titles their authors wrote.

Reads ``../shared/dev-corpus/`` (2,359 real CVPR 2023 abstracts and their real titles; never
copied into the repository; the script says so and exits 0 when it is absent). Nobody chose
these abstracts, so the figures say how the list reads to a researcher:

- **short names**: a real title of the form ``Name: …`` (FreeNeRF: Improving Few-shot …) names
  its method. Where that name is in the abstract, desk's short name should be it: ``exact`` is
  the share that is, ``other`` the share where desk picked another word (usually a field's
  acronym the abstract defines first, like NeRF or HOI), ``none`` the share with no short name.
- **spurious**: among titles that name no method, the share of papers given a short name that
  the title neither holds nor spells out by its initials (SAGM for Sharpness-Aware Gradient
  Matching counts as right): mostly an acronym of the field shown as if it were the paper's.
- **titles**: the content-word F1 between desk's derived title and the real one (stemmed,
  stop words left out), and how many papers share their derived title with another paper
  (``shared``: "HOI: Human-Object Interaction" on every HOI paper reads as one paper).

    python bench/names_dev.py [--corpus DIR] [--show N] [--out FILE]
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

_NAMED_TITLE = re.compile(r"^([^\s:]{2,30}):\s")
_WORD = re.compile(r"[a-z0-9]+")
_STOP = frozenset(
    [
        "a",
        "an",
        "and",
        "as",
        "at",
        "by",
        "for",
        "from",
        "in",
        "into",
        "is",
        "of",
        "on",
        "or",
        "the",
        "to",
        "via",
        "with",
        "without",
        "towards",
        "toward",
        "using",
    ]
)


def _words(text: str) -> set[str]:
    from desk.core.search.schema import cached_stem

    return {cached_stem(w) for w in _WORD.findall(text.lower()) if w not in _STOP}


def _f1(ours: str, theirs: str) -> float:
    a, b = _words(ours), _words(theirs)
    if not a or not b:
        return 0.0
    common = len(a & b)
    return 0.0 if common == 0 else 2 * common / (len(a) + len(b))


def _spells(name: str, title: str) -> bool:
    """Whether ``name`` is in the title, or its capitals are the initials of title words in order
    (SAGM: Sharpness-Aware Gradient Matching): a method the title names without the acronym."""
    if name.lower() in title.lower():
        return True
    initials = "".join(w[0] for w in re.findall(r"[A-Za-z0-9]+", title)).upper()
    capitals = [c for c in name if c.isupper() or c.isdigit()]
    at = 0
    for c in capitals:
        at = initials.find(c, at) + 1
        if at == 0:
            return False
    return len(capitals) >= 2


def read_corpus(corpus: Path) -> list[tuple[str, str]]:
    """(abstract, real title) of every paper of the development corpus."""
    paragraphs = corpus.joinpath("cvpr2023.txt").read_text(encoding="utf-8").split("\n\n")[1:]
    abstracts = [p.strip() for p in paragraphs if p.strip()]
    titles: dict[int, str] = {}
    for line in corpus.joinpath("titles.tsv").read_text(encoding="utf-8").splitlines()[1:]:
        _file, index, title = line.split("\t", 2)
        titles[int(index)] = title
    return [(a, titles.get(i, "")) for i, a in enumerate(abstracts)]


def measure(papers: list[tuple[str, str]], show: int = 0, seed: int = 1) -> dict[str, Any]:
    """The figures of the module doc for ``papers``; ``show`` misses of each kind are printed."""
    from desk.core.text.analysis import analyse

    counts: Counter[str] = Counter()
    misses: dict[str, list[str]] = {"other": [], "none": [], "spurious": []}
    f1s: list[float] = []
    derived: Counter[str] = Counter()
    for raw, real in papers:
        got = analyse(raw)
        derived[got.title] += 1
        f1s.append(_f1(got.title, real))
        named = _NAMED_TITLE.match(real)
        if named and named.group(1) in raw:
            name = named.group(1)
            counts["named"] += 1
            if got.short_name == name:
                counts["exact"] += 1
            elif got.short_name is None:
                counts["none"] += 1
                misses["none"].append(f"{name!r}: none; title {got.title[:70]!r}")
            else:
                counts["other"] += 1
                misses["other"].append(f"{name!r}: got {got.short_name!r}; title {got.title[:70]!r}")
        elif not named:
            counts["unnamed"] += 1
            if got.short_name and not _spells(got.short_name, real):
                counts["spurious"] += 1
                misses["spurious"].append(f"{got.short_name!r} not in {real[:70]!r}")
    shared = sum(n for n in derived.values() if n > 1)
    rng = random.Random(seed)
    for kind, rows in misses.items():
        for row in rng.sample(rows, min(show, len(rows))):
            print(f"{kind}: {row}")
    named = max(counts["named"], 1)
    return {
        "papers": len(papers),
        "named_in_abstract": counts["named"],
        "short_name_exact": round(counts["exact"] / named, 3),
        "short_name_other": round(counts["other"] / named, 3),
        "short_name_none": round(counts["none"] / named, 3),
        "unnamed": counts["unnamed"],
        "spurious": round(counts["spurious"] / max(counts["unnamed"], 1), 3),
        "title_f1": round(sum(f1s) / max(len(f1s), 1), 3),
        "shared_titles": shared,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=ROOT.parent / "shared" / "dev-corpus")
    parser.add_argument("--show", type=int, default=0, help="print this many misses of each kind")
    parser.add_argument("--out", type=Path, help="write the figures as JSON here")
    args = parser.parse_args(argv)
    if not (args.corpus / "cvpr2023.txt").exists():
        print(f"no development corpus at {args.corpus}: nothing to measure", file=sys.stderr)
        return 0
    figures = measure(read_corpus(args.corpus), args.show)
    width = max(map(len, figures))
    for key, value in figures.items():
        print(f"{key:<{width}}  {value}")
    if args.out:
        args.out.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
