"""Names for clusters: the 2-4 words that set a cluster's abstracts apart from the rest (c-TF-IDF).

Each abstract counts once for each term it holds (a stemmed word, or two adjacent ones: "point
cloud"); a term scores by the share of the cluster's abstracts holding it times
log(1 + the papers of an average cluster / the papers holding it anywhere), BERTopic's
class-based TF-IDF. Terms are shown as the abstracts spell them most often (the stem "segment"
as "segmentation", "3d" as "3D"), and an acronym the abstracts define ("neural radiance fields
(NeRF)") by its long form. Words every abstract uses to describe itself ("we propose a novel
method ...") are left out. Every label is distinct: a cluster whose words another larger one
already took is named by its next terms.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from desk.core.search.acronym_definitions import definitions, normal_short
from desk.core.text.sentences import strip_urls
from desk.core.text.stemming import stem

SAMPLE = 400  # abstracts read per cluster at most (a seeded sample of a larger one)
MAX_WORDS = 4
MIN_WORDS = 2
MAX_TERMS = 3
CANDIDATES = 12  # best terms of a cluster tried for its label
MIN_SHARE = 0.05  # a term held by fewer of a cluster's abstracts is not its name
_WORD = re.compile(r"[^\W_]+(?:[-'][^\W_]+)*")
_PART = re.compile(r"[^\W_]+")
_ACRONYM = re.compile(r"^(?=.*[A-Z].*[A-Z])[A-Za-z][A-Za-z0-9-]*$|^\d[A-Za-z]$")

# English function words (Whoosh's list and a few more) and what every abstract says about itself.
_STOP_WORDS = """
    a about above after again against all also although am among an and any are as at be been
    before being below between both but by can could did do does doing down during each either
    few for from further had has have having he her here hers herself him himself his how however
    i if in into is it its itself just may me might more most must my myself no nor not now of off
    on once only or other our ours ourselves out over own same she should so some such than that
    the their theirs them themselves then there these they this those through thus to too under
    until up upon us very via was we were what when where whether which while who whom why will
    with within without would yet you your yours yourself yourselves
    propose proposed proposes novel new method methods approach approaches paper work works show
    shows shown demonstrate demonstrates experiments experimental extensive results result
    outperform outperforms outperforming state art existing achieve achieves achieving significant
    significantly effective effectiveness framework code available https http github com www
    model models task tasks performance perform performs based using use used uses
    introduce introduces present presents study first two one three well better improve improves
    improved improving furthermore moreover specifically particular different various many
    recent recently previous prior problem problems large comprehensive superior benchmark
    benchmarks datasets dataset data called named termed leverage leverages leveraging
    learning network networks deep address issue issues challenge challenging key
"""
_STOP = frozenset(_STOP_WORDS.split())
_STOP_STEMS = frozenset(stem(w) for w in _STOP)

Term = tuple[str, ...]  # one stem or two


@dataclass(frozen=True)
class _Abstract:
    terms: frozenset[Term]
    forms: dict[Term, str]  # how this abstract spells each term (its first spelling)


def _read(text: str) -> _Abstract:
    """The terms of one abstract and how it spells them."""
    terms: set[Term] = set()
    forms: dict[Term, str] = {}
    previous: tuple[str, str, int] | None = None  # the last word's stem, spelling and end
    plain = strip_urls(text, " ")
    for match in _WORD.finditer(plain):
        word = match.group()
        parts = _PART.findall(word.lower())
        key = "".join(parts)
        if len(key) < 2 or key.isdigit() or key in _STOP or stem(key) in _STOP_STEMS:
            previous = None
            continue
        token = stem(key)
        one: Term = (token,)
        terms.add(one)
        forms.setdefault(one, word)
        if previous is not None and not plain[previous[2] : match.start()].strip():
            pair: Term = (previous[0], token)  # two words with nothing but a space between
            terms.add(pair)
            forms.setdefault(pair, f"{previous[1]} {word}")
        previous = (token, word, match.end())
    return _Abstract(frozenset(terms), forms)


def _shown(spellings: Counter[str]) -> str:
    """How a term is shown: its most common spelling, lowercase unless the abstracts write it
    otherwise inside sentences (3D, NeRF, LiDAR)."""
    lowered: Counter[str] = Counter()
    for spelling, n in spellings.items():
        keep = _ACRONYM.match(spelling.split()[-1]) is not None or any(
            _ACRONYM.match(part) for part in spelling.split()
        )
        lowered[spelling if keep else spelling.lower()] += n
    return lowered.most_common(1)[0][0]


def _long_forms(shorts: set[str], texts: Sequence[str]) -> dict[str, str]:
    """Each acronym of ``shorts`` (lowercased) the ``texts`` define, by its most common long form."""
    found: dict[str, Counter[str]] = {}
    for text in texts:
        if "(" not in text:
            continue
        lowered = text.lower()
        if not any(s in lowered for s in shorts):
            continue
        for short, long, _ in definitions(text):
            key = normal_short(short).lower()
            if key in shorts:
                found.setdefault(key, Counter())[long] += 1
    return {k: c.most_common(1)[0][0] for k, c in found.items()}


def label_clusters(texts: Sequence[str], clusters: np.ndarray, seed: int = 0) -> list[str]:
    """A distinct label of 2-4 words for each cluster 0..k-1 of ``clusters`` (one per text)."""
    k = int(clusters.max()) + 1 if len(clusters) else 0
    rng = np.random.default_rng(seed)
    sizes = np.bincount(clusters, minlength=k)
    held: list[Counter[Term]] = []
    spellings: list[dict[Term, Counter[str]]] = []
    sampled: list[list[int]] = []
    for c in range(k):
        members = np.flatnonzero(clusters == c)
        if len(members) > SAMPLE:
            members = np.sort(rng.choice(members, SAMPLE, replace=False))
        sampled.append([int(i) for i in members])
        counts: Counter[Term] = Counter()
        spelled: dict[Term, Counter[str]] = {}
        for i in members:
            read = _read(texts[int(i)])
            counts.update(read.terms)
            for term, form in read.forms.items():
                spelled.setdefault(term, Counter())[form] += 1
        held.append(counts)
        spellings.append(spelled)
    weight = [sizes[c] / max(1, len(sampled[c])) for c in range(k)]
    everywhere: Counter[Term] = Counter()
    for c in range(k):
        for term, n in held[c].items():
            everywhere[term] += n * weight[c]
    average = len(clusters) / max(1, k)
    ranked: list[list[Term]] = []
    for c in range(k):
        read_here = max(1, len(sampled[c]))
        scores = {
            term: (n / read_here) * np.log1p(average / everywhere[term])
            for term, n in held[c].items()
            if n >= max(2.0, MIN_SHARE * read_here) or (read_here < 4 and n >= 1)
        }
        ranked.append(sorted(scores, key=lambda t: (-scores[t], t))[:CANDIDATES])
    acronyms: dict[int, set[str]] = {}
    for c in range(k):
        for term in ranked[c]:
            shown = _shown(spellings[c][term])
            if len(term) == 1 and _ACRONYM.match(shown) and not shown[0].isdigit():
                acronyms.setdefault(c, set()).add(normal_short(shown).lower())
    long: dict[int, dict[str, str]] = {
        c: _long_forms(shorts, [texts[i] for i in sampled[c]]) for c, shorts in acronyms.items()
    }
    labels: list[str] = [""] * k
    taken: set[str] = set()
    for c in np.argsort(-sizes, kind="stable"):
        c = int(c)
        words = [_display(term, spellings[c][term], long.get(c, {})) for term in ranked[c]]
        labels[c] = _distinct(ranked[c], words, taken)
        taken.add(labels[c].casefold())
    return labels


def _display(term: Term, spelled: Counter[str], long: dict[str, str]) -> str:
    shown = _shown(spelled)
    expanded = long.get(normal_short(shown).lower()) if len(term) == 1 else None
    if expanded and len(expanded.split()) <= 3:
        return expanded
    return shown


def _compose(terms: Sequence[Term], words: Sequence[str], skip: int) -> str:
    """A label from the ranked terms (their shown words beside them), leaving out the ``skip``
    best ones: a term whose words a chosen one holds is passed over, and a pair takes the place
    of the chosen words it holds ("PASCAL VOC" of "VOC")."""
    chosen: list[int] = []

    def count(picked: list[int]) -> int:
        return sum(len(words[i].split()) for i in picked)

    for at in range(skip, len(terms)):
        stems = _stems_of(terms[at], words[at])
        if any(stems <= _stems_of(terms[i], words[i]) for i in chosen):
            continue
        inside = [i for i in chosen if _stems_of(terms[i], words[i]) < stems]
        if inside:
            trial = [at if i == inside[0] else i for i in chosen if i == inside[0] or i not in inside]
        elif len(chosen) < MAX_TERMS:
            trial = [*chosen, at]
        else:
            continue
        if count(trial) <= MAX_WORDS:
            chosen = trial
    return ", ".join(words[i] for i in chosen)


def _stems_of(term: Term, word: str) -> set[str]:
    """The stems a shown term stands for: its own and its shown words' (an expanded acronym's)."""
    return {stem(w) for w in _PART.findall(word.lower())} or set(term)


def _distinct(terms: Sequence[Term], words: Sequence[str], taken: set[str]) -> str:
    """The first label of the ranked terms no larger cluster took, else the best one numbered."""
    for skip in range(len(terms)):
        label = _compose(terms, words, skip)
        if label and label.casefold() not in taken:
            return label
    base = _compose(terms, words, 0) or "papers"
    label, n = base, 2
    while label.casefold() in taken:
        label, n = f"{base} ({n})", n + 1
    return label
