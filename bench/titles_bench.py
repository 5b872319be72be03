"""Derived titles and short names against the titles the authors wrote, on even and odd halves.

Reads ``../shared/dev-corpus/`` (2,359 real CVPR 2023 abstracts and their real titles; never copied
into the repository; the script says so and exits 0 when it is absent). The papers are split by
their index: the even half is where rules are tuned, the odd half where they are checked, so a
rule fitted to the papers it is judged on shows as a gap between the two.

- **short names** (on the papers whose real title is ``Name: …``, one token before the colon):
  ``recall`` is the share given that Name (case aside, LaTeX read), ``wrong`` the share given
  another name, ``none`` the share given none, each of every "Name:" title (``*_in_abstract``: of
  those whose Name the abstract holds, the only ones a reader of the abstract can find);
  ``spurious`` is the share of the other titles given a name the title neither holds nor spells
  by its initials.
- **garbage**: short names that are punctuation, math, a trailing fragment (``MetaShift—a``,
  ``X-based``) or an English word (``Neural``, ``That``, ``AND``), the real Name excepted. An
  English word: a word the corpus writes in lower case (for a capitalised one) or a function word
  (for one in capitals: ``FLEX`` and ``SINE`` are real names); a name of English words is one
  unless the real title holds it ("Neural Preset").
- **coverage**: the share of the real title's content words (stemmed, stop words out) that the
  shown title holds, beside the abstract's first sentence cut to the same length at a word.
- **bad starts**: shown titles whose first word is And, That, We, This or It; ``cut`` those
  ending in "…".
- **cost**: CPU µs an abstract for the short name and the title (from the readable text), best of
  ``--reps`` passes; ``analyse_us`` the whole import analysis (readable text and key too).

    python bench/titles_bench.py [--corpus DIR] [--json] [--show N] [--show-half even|odd] [--reps 3]
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import time
import unicodedata
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

CORPUS = ROOT.parent / "shared" / "dev-corpus"
NAMED_TITLE = re.compile(r"^([^\s:]{2,30}):\s")
_WORD = re.compile(r"[a-z0-9]+")
_STOP_TEXT = """a an and are as at be by can do does for from has have how in into is it its of on or our over
the their to towards toward via vs what when where which while who why with without we us you your than
that this these those through under up upon not no using"""
_STOP = frozenset(_STOP_TEXT.split())
BAD_STARTS = frozenset(("and", "that", "we", "this", "it"))
# Hyphen parts that make a name a fragment of a phrase ("CLIP-based", "MetaShift—a").
_FRAGMENT_TEXT = """a an the is are and or of to in on for with based like style driven guided free level wise
specific agnostic only aware"""
_FRAGMENT_TAILS = frozenset(_FRAGMENT_TEXT.split())
_ALLOWED_MARKS = frozenset("-+.'’&")


def content_words(text: str) -> set[str]:
    """Stemmed content words of a title (lower case, stop words out)."""
    from desk.core.search.schema import cached_stem

    return {cached_stem(w) for w in _WORD.findall(text.lower()) if w not in _STOP}


def coverage(shown: str, real: str) -> float:
    """Share of the real title's content words the shown one holds."""
    theirs = content_words(real)
    if not theirs:
        return 0.0
    return len(theirs & content_words(shown)) / len(theirs)


def cut_to(text: str, length: int) -> str:
    """``text`` cut to ``length`` characters at a word boundary (the baseline's shape)."""
    if len(text) <= length:
        return text
    cut = text[:length]
    return cut[: cut.rfind(" ")] if " " in cut else cut


def spells(name: str, title: str) -> bool:
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


def garbage_kind(name: str, lower_vocab: set[str]) -> str | None:
    """Why ``name`` is no name (punctuation, math, fragment, English word), or None. A name of
    several words ("Mask DINO") is judged word by word; a plain superscript ("CLIP^2") is allowed."""
    if " " in name:
        kinds = [garbage_kind(word, lower_vocab) for word in name.split(" ")]
        if all(k == "english" for k in kinds):
            return "english"
        return next((k for k in kinds if k not in (None, "english")), None)
    for c in re.sub(r"(?<=\w)\^\d+", "", name):
        cat = unicodedata.category(c)
        if c in _ALLOWED_MARKS:
            continue
        if cat[0] in "PS" or cat in ("Zs", "Cc", "Cf"):
            return "math" if cat == "Sm" or c in "()[]{}|^_~" else "punctuation"
    if not name[:1].isalnum() or name[-1] in "-.'’&":
        return "punctuation"
    parts = re.split(r"[-–—]", name)
    if len(parts) > 1 and parts[-1].lower() in _FRAGMENT_TAILS:
        return "fragment"
    if name.isalpha():
        if name.isupper():
            if name.lower() in _STOP:
                return "english"
        elif name[1:].islower() and name.lower() in lower_vocab:
            return "english"
    return None


@dataclass
class Paper:
    """One paper of the corpus: its index, abstract, real title and what desk derives."""

    index: int
    raw: str
    real: str
    readable: str = ""
    short: str | None = None
    title: str = ""


def read_corpus(corpus: Path) -> list[Paper]:
    """Every paper of the development corpus with its real title."""
    paragraphs = corpus.joinpath("cvpr2023.txt").read_text(encoding="utf-8").split("\n\n")[1:]
    abstracts = [p.strip() for p in paragraphs if p.strip()]
    titles: dict[int, str] = {}
    for line in corpus.joinpath("titles.tsv").read_text(encoding="utf-8").splitlines()[1:]:
        _file, index, title = line.split("\t", 2)
        titles[int(index)] = title
    return [Paper(i, a, titles.get(i, "")) for i, a in enumerate(abstracts)]


def lowercase_vocabulary(papers: list[Paper]) -> set[str]:
    """Words the corpus writes in lower case (twice or more): its English words."""
    counts: Counter[str] = Counter()
    for p in papers:
        counts.update(re.findall(r"(?<![\w-])[a-z]{2,}(?![\w-])", p.raw))
    return {w for w, n in counts.items() if n >= 2}


def derive(papers: list[Paper], reps: int) -> dict[str, float]:
    """Fill in each paper's short name and title; the CPU cost an abstract, best of ``reps``."""
    from desk.core.text import derive_title, find_short_name, readable_text
    from desk.core.text.analysis import analyse

    for p in papers:
        p.readable = readable_text(p.raw)
    best = best_all = float("inf")
    for _ in range(max(reps, 1)):
        start = time.process_time()
        for p in papers:
            p.short = find_short_name(p.readable)
            p.title = derive_title(p.readable, p.short)
        best = min(best, time.process_time() - start)
        start = time.process_time()
        for p in papers:
            analyse(p.raw)
        best_all = min(best_all, time.process_time() - start)
    n = max(len(papers), 1)
    return {"derive_us": round(best / n * 1e6, 1), "analyse_us": round(best_all / n * 1e6, 1)}


def flat(name: str) -> str:
    """A name as the real titles' list spells it: no LaTeX, "^" or braces, case and width aside."""
    from desk.core.text import readable_text

    return unicodedata.normalize("NFKC", re.sub(r"[$^{}]", "", readable_text(name))).casefold()


def _same(name: str, short: str | None) -> bool:
    return short is not None and flat(name) == flat(short)


def measure(papers: list[Paper], vocab: set[str], misses: list[str] | None = None) -> dict[str, Any]:
    """The figures of the module doc for ``papers`` (already derived); misses appended to ``misses``."""
    from desk.core.text.sentences import split_sentences

    c: Counter[str] = Counter()
    cov: list[float] = []
    base: list[float] = []
    garbage: Counter[str] = Counter()
    note = misses.append if misses is not None else (lambda _row: None)
    for p in papers:
        named = NAMED_TITLE.match(p.real)
        name = named.group(1) if named else None
        if name is not None:
            inside = flat(name) in flat(p.readable)
            c["named"] += 1
            c["in_abstract"] += inside
            if _same(name, p.short):
                c["exact"] += 1
                c["exact_in"] += inside
            elif p.short is None:
                c["none"] += 1
                c["none_in"] += inside
                note(f"none  {name!r} ({'in' if inside else 'not in'} abstract); title {p.title[:70]!r}")
            else:
                c["wrong"] += 1
                c["wrong_in"] += inside
                where = "in" if inside else "not in"
                note(f"wrong {name!r} ({where}): got {p.short!r}; title {p.title[:70]!r}")
        else:
            c["unnamed"] += 1
            if p.short and not spells(p.short, p.real):
                c["spurious"] += 1
                note(f"spurious {p.short!r}; real {p.real[:70]!r}")
        if p.short and not (name is not None and _same(name, p.short)):
            kind = garbage_kind(p.short, vocab)
            if kind == "english" and " " in p.short and p.short.casefold() in p.real.casefold():
                kind = None  # "Neural Preset" for Neural Preset for Color Style Transfer: its name
            if kind:
                garbage[kind] += 1
                note(f"garbage/{kind} {p.short!r}")
        cov.append(coverage(p.title, p.real))
        first = split_sentences(p.readable)
        base.append(coverage(cut_to(first[0] if first else "", len(p.title.rstrip("…"))), p.real))
        word = re.match(r"\W*(\w+)", p.title)
        if word and word.group(1).lower() in BAD_STARTS:
            c["bad_start"] += 1
            note(f"start {p.title[:80]!r}")
        c["cut"] += p.title.endswith("…")
    named_n = max(c["named"], 1)
    inside_n = max(c["in_abstract"], 1)
    return {
        "papers": len(papers),
        "named": c["named"],
        "named_in_abstract": c["in_abstract"],
        "recall": round(c["exact"] / named_n, 3),
        "wrong": round(c["wrong"] / named_n, 3),
        "none": round(c["none"] / named_n, 3),
        "recall_in_abstract": round(c["exact_in"] / inside_n, 3),
        "wrong_in_abstract": round(c["wrong_in"] / inside_n, 3),
        "spurious": round(c["spurious"] / max(c["unnamed"], 1), 3),
        "garbage": sum(garbage.values()),
        "garbage_kinds": dict(sorted(garbage.items())),
        "coverage": round(sum(cov) / max(len(cov), 1), 3),
        "coverage_first_sentence": round(sum(base) / max(len(base), 1), 3),
        "bad_starts": c["bad_start"],
        "cut": c["cut"],
        "with_short_name": sum(1 for p in papers if p.short),
    }


def main(argv: list[str] | None = None) -> int:
    """Measure, print a table (or one JSON object with ``--json``)."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--show", type=int, default=0, help="print this many misses of the --show-half")
    parser.add_argument("--show-half", choices=("even", "odd"), default="even")
    parser.add_argument("--reps", type=int, default=3, help="passes timed (the best is kept)")
    args = parser.parse_args(argv)
    if not (args.corpus / "cvpr2023.txt").exists():
        print(f"no development corpus at {args.corpus}: nothing to measure", file=sys.stderr)
        return 0
    papers = read_corpus(args.corpus)
    vocab = lowercase_vocabulary(papers)
    halves = {"even": papers[0::2], "odd": papers[1::2]}
    figures: dict[str, dict[str, Any]] = {}
    for half, group in halves.items():
        cost = derive(group, args.reps)
        misses: list[str] = []
        figures[half] = measure(group, vocab, misses) | cost
        if half == args.show_half and args.show:
            for row in random.Random(1).sample(misses, min(args.show, len(misses))):
                print(row, file=sys.stderr)
    figures["all"] = measure(papers, vocab)
    figures["all"] |= {
        k: round((figures["even"][k] + figures["odd"][k]) / 2, 1) for k in ("derive_us", "analyse_us")
    }
    if args.json:
        print(json.dumps(figures))
        return 0
    keys = [k for k in figures["all"] if k != "garbage_kinds"]
    width = max(map(len, keys))
    print(f"| {'figure':<{width}} | even | odd | all |")
    print(f"|{'-' * (width + 2)}|---|---|---|")
    for k in keys:
        print(f"| {k:<{width}} | {figures['even'][k]} | {figures['odd'][k]} | {figures['all'][k]} |")
    kinds = {h: figures[h]["garbage_kinds"] for h in halves}
    print(f"garbage by kind: even {kinds['even']}, odd {kinds['odd']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
