"""Abstracts made of real sentences: any number, recombined from ../shared/dev-corpus/.

The synthetic generator (corpus.py) draws words from a model of a vocabulary, so its posting
lists are not those of real abstracts. This one keeps real text: abstract ``i`` takes its number
of sentences from a real abstract drawn at random, then draws every sentence independently, each
from another real abstract drawn at random, at the same relative position (openings stay
openings, results stay results). Vocabulary, sentence lengths and word frequencies are those of
the 2,359 real CVPR 2023 abstracts, and two generated abstracts share a sentence only by chance
(the earlier generator kept half of one real abstract's sentences in place, so at 100k ~42
abstracts shared a skeleton: near-duplicates a real corpus does not have; ``skeleton=True``
still gives those, for the figures measured on them). A real corpus of 100k or 1M papers
also keeps meeting new method names and numbers; so a third of the acronym-like tokens
(``NeRF``, ``ViT-B``, ``SSL``) become new ones of the same shape, and digits are redrawn. Abstract
``i`` depends only on ``(seed, i)``: a small corpus is a prefix of a larger one.

The corpus itself stays where it is (its README: use it from there, never copy it into the
repository); generated files go to a scratch folder.

Usage: ``python bench/realcorpus.py --size 10000 --out DIR [--seed 7]``
"""

from __future__ import annotations

import argparse
import csv
import os
import random
import re
import sys
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

HERE = Path(__file__).resolve().parent
# DESK_DEV_CORPUS names it when the checkout is not beside ../shared (a worktree elsewhere).
DEV_CORPUS = Path(os.environ.get("DESK_DEV_CORPUS") or HERE.parent.parent / "shared" / "dev-corpus")
PER_FILE = 5000
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z(\[])")
_ACRONYM = re.compile(r"\b(?=[A-Za-z0-9-]*[A-Z][A-Za-z0-9-]*[A-Z])[A-Za-z][A-Za-z0-9-]{1,11}\b")
_DIGIT = re.compile(r"\d")
_STOP_WORDS = (
    "a an and are as at by for from in into is of on or the to via with without towards toward "
    "using based we our its their this that these those be can"
)
_STOP = frozenset(_STOP_WORDS.split())


def available(folder: Path = DEV_CORPUS) -> bool:
    """Whether the development corpus is where the benchmarks expect it."""
    return (folder / "cvpr2023.txt").is_file() and (folder / "titles.tsv").is_file()


def split_sentences(abstract: str) -> list[str]:
    """An abstract's sentences (a full stop, ! or ? before a capital or a bracket)."""
    return [s for s in _SENTENCE_END.split(abstract.strip()) if s]


def sentence_shape(sentence: str) -> str:
    """A sentence with its acronym-like tokens and digits blanked: what recombination keeps."""
    return _DIGIT.sub("0", _ACRONYM.sub("A", sentence))


def _mutate_acronym(token: str, rng: random.Random) -> str:
    """A new name of the same shape: each letter redrawn in its case, digits and hyphens kept."""
    out = []
    for ch in token:
        if ch.isupper():
            out.append(chr(65 + rng.randrange(26)))
        elif ch.islower():
            out.append(chr(97 + rng.randrange(26)))
        else:
            out.append(ch)
    return "".join(out)


@dataclass(frozen=True)
class RealText:
    """The development corpus, split into sentences, with its titles."""

    abstracts: tuple[tuple[str, ...], ...]
    titles: tuple[str, ...]

    @classmethod
    def load(cls, folder: Path = DEV_CORPUS) -> RealText:
        """Read cvpr2023.txt (header, blank line, one abstract per paragraph) and titles.tsv."""
        paragraphs = (folder / "cvpr2023.txt").read_text(encoding="utf-8").split("\n\n")[1:]
        abstracts = tuple(tuple(split_sentences(p)) for p in paragraphs if p.strip())
        with (folder / "titles.tsv").open(encoding="utf-8", newline="") as fh:
            titles = tuple(row["title"] for row in csv.DictReader(fh, delimiter="\t"))
        return cls(abstracts, titles)


class RealGenerator:
    """Abstract i of a corpus recombined from real sentences (deterministic in seed and i)."""

    def __init__(self, seed: int = 7, folder: Path = DEV_CORPUS, *, skeleton: bool = False) -> None:
        self.seed = seed
        self.folder = folder
        self.skeleton = skeleton  # the earlier generator: half of one real abstract kept in place

    @cached_property
    def text(self) -> RealText:
        """The real abstracts, loaded on first use."""
        return RealText.load(self.folder)

    def abstract(self, index: int) -> str:
        """The abstract with this index (the same for every corpus size)."""
        rng = random.Random(self.seed * 1_000_003 + index)
        pool = self.text.abstracts
        skeleton = pool[rng.randrange(len(pool))]
        k = len(skeleton)
        sentences: list[str] = []
        for j, own in enumerate(skeleton):
            if self.skeleton and rng.random() < 0.5:
                sentences.append(own)
                continue
            other = pool[rng.randrange(len(pool))]
            sentences.append(other[min(len(other) - 1, round(j / max(1, k - 1) * (len(other) - 1)))])
        names: dict[str, str] = {}

        def rename(m: re.Match[str]) -> str:
            token = m.group(0)
            if token not in names:
                names[token] = _mutate_acronym(token, rng) if rng.random() < 0.33 else token
            return names[token]

        body = _ACRONYM.sub(rename, " ".join(sentences))
        return _DIGIT.sub(lambda m: str(rng.randrange(10)) if rng.random() < 0.5 else m.group(0), body)

    def write(self, size: int, out: Path, per_file: int = PER_FILE) -> list[Path]:
        """Write abstracts 0..size-1 as seed-format files of at most per_file abstracts each."""
        out.mkdir(parents=True, exist_ok=True)
        paths: list[Path] = []
        for part, start in enumerate(range(0, size, per_file)):
            path = out / f"real-{part:03d}.txt"
            body = "\n\n".join(self.abstract(i) for i in range(start, min(size, start + per_file)))
            path.write_text(f"Recombined CVPR {2000 + part % 100:04d} Papers\n\n{body}\n", encoding="utf-8")
            paths.append(path)
        return paths

    def queries(self, typed: int = 60, prefixed: int = 50, seed: int = 11) -> list[dict[str, object]]:
        """Queries a researcher types, made from real titles: the whole title, its first two or four
        content words; then prefix forms of them (the last word cut to 3-5 letters and a ``*``), as
        search-as-you-type sends them. No target: these measure speed, not ranking."""
        rng = random.Random(seed)
        titles = rng.sample(self.text.titles, typed)
        out: list[dict[str, object]] = []
        for n, title in enumerate(titles):
            words = [w for w in re.findall(r"[A-Za-z][A-Za-z0-9-]+", title) if w.lower() not in _STOP]
            kind, text = (
                ("title", title) if n % 3 == 0 else ("words", " ".join(words[: 2 + 2 * (n % 3 == 1)]))
            )
            out.append({"kind": kind, "text": text or title, "target": -1})
        for q in out[:prefixed]:
            words = str(q["text"]).split()
            last = words[-1]
            if len(last) > 3:
                words[-1] = last[: rng.randint(3, min(5, len(last) - 1))] + "*"
            out.append({"kind": "prefix", "text": " ".join(words), "target": -1})
        return out[: typed + prefixed]


def typing_sequences(queries: list[dict[str, object]], count: int = 8, start: int = 2) -> list[list[str]]:
    """What the search box holds after each keystroke while typing some multi-word queries."""
    chosen = [str(q["text"]) for q in queries if q["kind"] in ("title", "words") and " " in str(q["text"])]
    return [[text[:n] for n in range(start, len(text) + 1)] for text in chosen[:count]]


def main(argv: list[str] | None = None) -> int:
    """Write a recombined corpus."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--size", type=int, default=10_000)
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--per-file", type=int, default=PER_FILE)
    args = p.parse_args(argv)
    if not available():
        print(f"the development corpus is not at {DEV_CORPUS}", file=sys.stderr)
        return 1
    paths = RealGenerator(args.seed).write(args.size, args.out, args.per_file)
    print(f"{args.size} abstracts in {len(paths)} files under {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
