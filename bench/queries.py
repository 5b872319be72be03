"""A fixed set of typed queries derived from the synthetic corpus, and as-you-type sequences.

Queries are drawn from the first abstracts of the corpus (the same for every size >= 1,000):
paraphrased titles, 1-4 words, acronyms, a phrase, prefixes, misspellings, short descriptions and
rare terms. Each remembers the abstract it came from. ``python bench/queries.py`` prints them.
"""

from __future__ import annotations

import json
import random
import re
import sys
from dataclasses import asdict, dataclass

from corpus import Abstract, Generator
from vocab import words

POOL = 1000
_WORD = re.compile(r"[A-Za-z][a-z]+")
# (kind, how many)
PLAN: tuple[tuple[str, int], ...] = (
    ("title", 12),
    ("acronym", 8),
    ("one-word", 5),
    ("words", 10),
    ("description", 6),
    ("phrase", 4),
    ("prefix", 4),
    ("misspelling", 5),
    ("rare-term", 4),
)


@dataclass(frozen=True)
class Query:
    """One typed query and the abstract (global index) it was derived from."""

    kind: str
    text: str
    target: int


def _misspell(word: str, rng: random.Random) -> str:
    if len(word) < 5:
        return word + word[-1]
    i = rng.randrange(1, len(word) - 2)
    if rng.random() < 0.5:
        return word[:i] + word[i + 1] + word[i] + word[i + 2 :]  # transposition
    return word[:i] + word[i + 1 :]  # a dropped letter


def _content_words(a: Abstract) -> list[str]:
    words = [w.lower() for w in _WORD.findall(a.text) if len(w) > 3]
    return list(dict.fromkeys(w for w in words if w not in _STOP))


_STOP = frozenset(
    words(
        "this that with from which their these have been over under into when while where both only such "
        "show shows than then they them also each most many more does rarely either whose become however "
        "work paper method approach propose introduce present code available results"
    )
)


def _make(kind: str, a: Abstract, gen: Generator, rng: random.Random) -> str | None:
    focus = list(a.focus)
    field = a.field.split()
    if kind == "title":
        words = a.long_name.lower().split() + rng.sample(field, min(2, len(field)))
        rng.shuffle(words)
        return " ".join(dict.fromkeys(words[: rng.randint(3, 5)]))
    if kind == "acronym":
        return a.method if a.method and a.method.isascii() else None
    if kind == "one-word":
        return rng.choice(focus)
    if kind == "words":
        return " ".join(dict.fromkeys(rng.sample(focus + field, min(len(focus + field), rng.randint(2, 4)))))
    if kind == "description":
        return " ".join(dict.fromkeys([*field, *rng.sample(focus, min(2, len(focus)))]))
    if kind == "phrase":
        pairs = re.findall(r"\b([a-z]{4,}) ([a-z]{4,})\b", a.text)
        pairs = [p for p in pairs if p[0] not in _STOP and p[1] not in _STOP]
        return f'"{" ".join(rng.choice(pairs))}"' if pairs else None
    if kind == "prefix":
        long_words = [w for w in focus if len(w) >= 7]
        return f"{long_words[0][:5]}*" if long_words else None
    if kind == "misspelling":
        long_words = [w for w in focus + field if len(w) >= 6]
        if not long_words:
            return None
        w = rng.choice(long_words)
        other = [x for x in field if x != w][:1]
        return " ".join([_misspell(w, rng), *other])
    if kind == "rare-term":
        tech = set(gen.tech_nouns)
        rare = [w for w in _content_words(a) if w in tech]
        return rare[0] if rare else None
    raise ValueError(kind)


def build(gen: Generator, pool: int = POOL, seed: int = 11) -> list[Query]:
    """The query set: for each kind in PLAN, that many queries from distinct abstracts < pool."""
    rng = random.Random(seed)
    order = rng.sample(range(pool), pool)
    used: set[int] = set()
    out: list[Query] = []
    position = 0
    for kind, count in PLAN:
        made = 0
        tries = 0
        while made < count and tries < pool:
            index = order[position % pool]
            position += 1
            tries += 1
            if index in used and pool > len(used):
                continue
            text = _make(kind, gen.abstract(index), gen, rng)
            if text and text not in {q.text for q in out}:
                out.append(Query(kind, text, index))
                used.add(index)
                made += 1
    return out


def typing_sequences(queries: list[Query], count: int = 8, start: int = 2) -> list[list[str]]:
    """What the search box holds after each keystroke while typing some multi-word queries."""
    chosen = [q.text for q in queries if q.kind in ("title", "description", "words") and " " in q.text]
    return [[text[:n] for n in range(start, len(text) + 1)] for text in chosen[:count]]


def main() -> int:
    """Print the query set and the typing sequences as JSON."""
    qs = build(Generator())
    print(json.dumps({"queries": [asdict(q) for q in qs], "typing": typing_sequences(qs)}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
