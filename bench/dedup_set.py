"""The labelled near-duplicate set: seed abstracts, edited copies of each kind, hard negatives.

Positives (same paper): an arXiv v2 with a sentence rewritten or added, a truncated copy
(a prefix of 50-95 % of the words), typos fixed, math rendered as LaTeX vs Unicode, a word
dropped, whitespace/punctuation/quote changes, and combinations. Negatives (different papers):
every pair of distinct seeds (one venue, mostly one topic); papers sharing a seed's opening
sentences, or its first and last sentence (up to 40 % of the text), paired with the seed and
with each of its copies ("/copy": a truncated copy is then mostly the shared part); papers
sharing a boilerplate template. New text comes from a word chain trained on the seeds (same
topic, same phrases). ``synthetic=N`` adds N chain-made abstracts with their own variants.
Deterministic for a given ``seed``. Used by ``tests/core/dedup/test_dedup_set.py`` and ``dedup_bench.py``.
"""

from __future__ import annotations

import random
import re
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import pairwise
from pathlib import Path
from typing import Protocol

SEEDS = Path(__file__).resolve().parents[1] / "seeds"
POSITIVE_KINDS = (
    "sentence-changed",
    "sentence-added",
    "truncated",
    "typo-fixed",
    "math-rendered",
    "word-dropped",
    "whitespace-punct",
    "truncated+typo",
    "changed+dropped",
)
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z$\\*(\"“])")
_MATH = re.compile(r"\$[^$]+\$")
# (LaTeX, Unicode) renderings of the same math.
MATH_PAIRS = (
    ("$O(n^2)$", "O(n²)"),
    ("$\\alpha$", "α"),
    ("$\\epsilon$-optimal", "ε-optimal"),
    ("$10^{-3}$", "10⁻³"),
    ("$d \\times d$", "d × d"),
    ("$\\ell_2$", "ℓ₂"),
    ("$k \\leq n$", "k ≤ n"),
    ("$O(\\sqrt{T})$", "O(√T)"),
    ("$\\mathcal{O}(d \\log n)$", "O(d log n)"),
)
TEMPLATES = (
    (
        "We propose a novel framework for {topic} that addresses the limitations of existing approaches.",
        "Extensive experiments on multiple benchmark datasets demonstrate that our method outperforms "
        "state-of-the-art baselines by a large margin.",
    ),
    (
        "In this paper, we introduce a simple yet effective method for {topic}, which has attracted "
        "increasing attention in recent years.",
        "Extensive experiments demonstrate the effectiveness of our approach, and the code is "
        "publicly available.",
    ),
    (
        "Recent advances in large language models have shown remarkable capabilities in {topic}.",
        "Comprehensive evaluations on standard benchmarks show that our approach achieves state-of-the-art "
        "performance while significantly reducing computational cost.",
    ),
)
TOPICS = (
    "offline reinforcement learning",
    "graph representation learning",
    "time series forecasting",
    "multi-agent coordination",
    "efficient inference of transformers",
    "continual learning",
)


def read_seeds(folder: Path = SEEDS) -> list[str]:
    """The distinct abstracts of the seed files (line 1 is the header, blank lines separate)."""
    seen: dict[str, None] = {}
    for path in sorted(folder.glob("*.txt")):
        body = path.read_text(encoding="utf-8").split("\n", 1)[1]
        for para in re.split(r"\n\s*\n", body):
            if para.strip():
                seen.setdefault(" ".join(para.split()), None)
    return list(seen)


def readable(raw: str) -> str:
    """What the index is given: ``desk.core.text.readable_text`` when that module exists."""
    try:
        from desk.core.text import readable_text
    except ImportError:
        return raw
    return readable_text(raw)


def sentences(text: str) -> list[str]:
    return _SENTENCE.split(text)


# -- edits: each takes (text, rng) and returns the edited text ------------------------------


class SentenceMaker(Protocol):
    def sentence(self, rng: random.Random, length: int) -> str: ...


def change_sentence(text: str, rng: random.Random, chain: SentenceMaker) -> str:
    """arXiv v2: one sentence (not the first) rewritten from scratch."""
    parts = sentences(text)
    at = rng.randrange(1, len(parts)) if len(parts) > 1 else 0
    parts[at] = chain.sentence(rng, len(parts[at].split()))
    return " ".join(parts)


def add_sentence(text: str, rng: random.Random, chain: SentenceMaker) -> str:
    parts = sentences(text)
    extra = rng.choice(
        [
            chain.sentence(rng, rng.randint(12, 25)),
            f"Code is available at https://github.com/anon{rng.randint(1, 999)}/project.",
        ]
    )
    parts.insert(rng.randint(1, len(parts)), extra)
    return " ".join(parts)


def truncate(text: str, rng: random.Random, low: float = 0.5) -> str:
    words = text.split()
    keep = max(1, round(len(words) * rng.uniform(low, 0.95)))
    return " ".join(words[:keep]) + rng.choice(["", " ...", "…"])


def typo(text: str, rng: random.Random, count: int = 3) -> str:
    """One to ``count`` words misspelt (a letter dropped, swapped or added)."""
    words = text.split()
    eligible = [i for i, w in enumerate(words) if len(w) > 3 and w.isalpha()]
    for at in rng.sample(eligible, min(len(eligible), rng.randint(1, count))):
        w = words[at]
        i = rng.randrange(1, len(w) - 1)
        misspelt = [
            w[:i] + w[i + 1 :],
            w[:i] + w[i + 1] + w[i] + w[i + 2 :],
            w[:i] + rng.choice("aeiourst") + w[i:],
        ]
        words[at] = rng.choice([m for m in misspelt if m != w])
    return " ".join(words)


def drop_word(text: str, rng: random.Random) -> str:
    words = text.split()
    for _ in range(rng.randint(1, 2)):
        words.pop(rng.randrange(len(words)))
    return " ".join(words)


def restyle(text: str, rng: random.Random) -> str:
    """Whitespace, punctuation, quotes, dashes and case; nothing a reader would call an edit."""
    text = (
        text.replace(", ", rng.choice([" , ", ",  ", " "]))
        .replace("--", "–")
        .replace("-", rng.choice(["‐", "-"]))
    )
    text = re.sub(r"``(.*?)''", r"“\1”", text).replace(". ", ".  ")
    if rng.random() < 0.5:
        text = text.rstrip(".")
    if rng.random() < 0.2:  # shouting, but not inside LaTeX commands
        text = " ".join(w if "\\" in w or "$" in w else w.upper() for w in text.split(" "))
    return text


def render_math(text: str) -> str:
    """LaTeX math spans as Unicode (what a copy pasted from a PDF or HTML page carries)."""
    from pylatexenc.latex2text import LatexNodes2Text

    convert = LatexNodes2Text(math_mode="text")
    return _MATH.sub(lambda m: convert.latex_to_text(m.group(0)), text)


class WordChain:
    """A word bigram chain trained on the seeds: same-topic sentences that are no seed's."""

    def __init__(self, texts: list[str]) -> None:
        self.next: dict[str, list[str]] = defaultdict(list)
        self.starts: list[str] = []
        for text in texts:
            for sent in sentences(text):
                words = sent.split()
                if words:
                    self.starts.append(words[0])
                for a, b in pairwise(words):
                    self.next[a].append(b)

    def sentence(self, rng: random.Random, length: int) -> str:
        words = [rng.choice(self.starts)]
        while len(words) < length:
            options = self.next.get(words[-1]) or self.starts
            words.append(rng.choice(options).rstrip(".!?"))
        return " ".join(words).rstrip(".!?,;:") + "."

    def abstract(self, rng: random.Random, words: int) -> str:
        out: list[str] = []
        while sum(len(s.split()) for s in out) < words:
            out.append(self.sentence(rng, rng.randint(14, 32)))
        return " ".join(out)


# -- the set -------------------------------------------------------------------------------------


@dataclass
class LabelledSet:
    """Texts (raw, as they would arrive in a list file), their true paper, and labelled pairs."""

    raw: dict[int, str] = field(default_factory=dict)
    paper: dict[int, int] = field(default_factory=dict)
    positives: list[tuple[int, int, str]] = field(default_factory=list)
    negatives: list[tuple[int, int, str]] = field(default_factory=list)

    def add(self, raw: str, paper: int) -> int:
        doc = len(self.raw)
        self.raw[doc], self.paper[doc] = raw, paper
        return doc

    def texts(self, convert: Callable[[str], str] = readable) -> dict[int, str]:
        return {doc: convert(raw) for doc, raw in self.raw.items()}

    def true_pairs(self) -> set[tuple[int, int]]:
        """Every pair of texts of one paper (what a perfect grouping would put together)."""
        by_paper: dict[int, list[int]] = defaultdict(list)
        for doc, paper in self.paper.items():
            by_paper[paper].append(doc)
        return {(a, b) for docs in by_paper.values() for i, a in enumerate(docs) for b in docs[i + 1 :]}


def _variants(out: LabelledSet, base: int, paper: int, rng: random.Random, chain: WordChain) -> None:
    text = out.raw[base]
    edits: dict[str, Callable[[], str]] = {
        "sentence-changed": lambda: change_sentence(text, rng, chain),
        "sentence-added": lambda: add_sentence(text, rng, chain),
        "truncated": lambda: truncate(text, rng),
        "typo-fixed": lambda: typo(text, rng),
        "word-dropped": lambda: drop_word(text, rng),
        "whitespace-punct": lambda: restyle(text, rng),
        "truncated+typo": lambda: typo(truncate(text, rng, 0.6), rng, 2),
        "changed+dropped": lambda: drop_word(change_sentence(text, rng, chain), rng),
    }
    for kind, edit in edits.items():
        out.positives.append((base, out.add(edit(), paper), kind))
    if _MATH.search(text):
        out.positives.append((base, out.add(render_math(text), paper), "math-rendered"))
    else:  # both copies carry the same new clause, one in LaTeX and one in Unicode
        latex, uni = rng.choice(MATH_PAIRS)
        parts = sentences(text)
        at = rng.randrange(len(parts))
        clause = "{} The analysis gives a bound of {} for this setting."
        a = " ".join([*parts[:at], clause.format(parts[at], latex), *parts[at + 1 :]])
        b = " ".join([*parts[:at], clause.format(parts[at], uni), *parts[at + 1 :]])
        out.positives.append((out.add(a, paper), out.add(b, paper), "math-rendered"))


def _hard_negatives(out: LabelledSet, bases: list[int], rng: random.Random, chain: WordChain) -> None:
    """Papers sharing long passages with a base paper; each is also a negative of the base's copies
    (a truncated copy of the base is mostly the shared opening, the hardest case)."""
    paper = max(out.paper.values()) + 1
    copies: dict[int, list[int]] = defaultdict(list)
    for a, b, _ in out.positives:
        copies[out.paper[a]] += [a, b]

    def negative(base: int, doc: int, kind: str) -> None:
        out.negatives.append((base, doc, kind))
        out.negatives.extend(
            (c, doc, kind + "/copy") for c in dict.fromkeys(copies[out.paper[base]]) if c != base
        )

    for base in bases:
        text = out.raw[base]
        parts = sentences(text)
        n_words = len(text.split())
        # Opening sentences shared with another paper, at most ~40 % of either text.
        shared: list[str] = []
        for sent in parts[:-1]:
            if sum(len(s.split()) for s in [*shared, sent]) > 0.4 * n_words:
                break
            shared.append(sent)
        if shared:
            rest = chain.abstract(rng, n_words - sum(len(s.split()) for s in shared))
            negative(base, out.add(" ".join([*shared, rest]), paper), "shared-opening")
            paper += 1
        # First and last sentence shared: the same group's boilerplate around new content.
        if len(parts) > 3 and len(parts[0].split()) + len(parts[-1].split()) <= 0.4 * n_words:
            middle = chain.abstract(rng, n_words - len(parts[0].split()) - len(parts[-1].split()))
            negative(base, out.add(f"{parts[0]} {middle} {parts[-1]}", paper), "shared-frame")
            paper += 1
    # Template abstracts: one template, different content.
    for opening, closing in TEMPLATES:
        docs = []
        for _ in range(8):
            body = chain.abstract(rng, rng.randint(60, 140))
            text = f"{opening.format(topic=rng.choice(TOPICS))} {body} {closing}"
            docs.append(out.add(text, paper))
            paper += 1
        out.negatives += [(a, b, "shared-template") for i, a in enumerate(docs) for b in docs[i + 1 :]]


def build(seed: int = 0, synthetic: int = 0, folder: Path = SEEDS) -> LabelledSet:
    """The labelled set from the seed abstracts, plus ``synthetic`` chain-made papers."""
    rng = random.Random(seed)
    seeds = read_seeds(folder)
    chain = WordChain(seeds)
    out = LabelledSet()
    bases = [out.add(text, paper) for paper, text in enumerate(seeds)]
    bases += [out.add(chain.abstract(rng, rng.randint(120, 240)), len(seeds) + k) for k in range(synthetic)]
    out.negatives += [
        (a, b, "same-venue") for i, a in enumerate(bases[: len(seeds)]) for b in bases[i + 1 : len(seeds)]
    ]
    for base in bases:
        _variants(out, base, out.paper[base], rng, chain)
    _hard_negatives(out, bases, rng, chain)
    return out
