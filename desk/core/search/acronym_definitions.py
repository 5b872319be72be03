"""The acronyms a text defines ("neural architecture search (NAS)"), found as Schwartz and Hearst do.

Schwartz and Hearst (2003, "A simple algorithm for identifying abbreviation definitions in
biomedical text"): a short form in parentheses after its long form, or a long form in parentheses
after its short form; the long form is the shortest run of words before it whose letters hold the
short form's letters in order, the first one starting a word. Short forms must look like acronyms
(two or more capitals: NAS, SfM, ViT, NeRF; a plural ``s`` is dropped), so "(e.g. ...)", "(see
Fig. 2)" or "(1)" never count. What the library's abstracts define adds up in acronyms.py.
"""

from __future__ import annotations

import re

from whoosh.analysis import STOP_WORDS

from desk.core.search.schema import TOKEN_PATTERN, cached_stem

# "(NAS)", "(NeRFs)", "(VQ-VAE)": two or more capitals, at most 10 characters.
_SHORT = re.compile(r"[A-Za-z][A-Za-z0-9\-]{1,9}")
_PARENS = re.compile(r"\(([^()]{2,80})\)")
_SHORT_AT_END = re.compile(r"([A-Za-z][A-Za-z0-9\-]{1,9})\s*$")
_CLAUSE_END = re.compile(r"[.;:!?()\[\]]")
_UP_TO_CLAUSE_END = re.compile(r".*[.;:!?()\[\]]", re.S)
_TWO_CAPITALS = re.compile(r"[A-Z].*[A-Z]")
_WORD = re.compile(r"\S+")
_TOKEN = re.compile(r"[^\W_]+")
_INDEX_TOKEN = re.compile(TOKEN_PATTERN)
_STOPS = frozenset(STOP_WORDS)


def stems(text: str) -> tuple[str, ...]:
    """analyze(text) of the stemmed fields' analyzer, without its per-call cost (tested equal)."""
    return tuple(
        cached_stem(t) for t in _INDEX_TOKEN.findall(text.lower()) if len(t) >= 2 and t not in _STOPS
    )


Definition = tuple[str, str, str]  # (short form as defined, long form lowercased, its stems joined by spaces)


def _acronym_shaped(short: str) -> bool:
    return _TWO_CAPITALS.search(short) is not None and short[0].isalnum()


def normal_short(short: str) -> str:
    """The short form without a plural ``s`` (NeRFs -> NeRF, DNNs -> DNN; "SfM" stays)."""
    if len(short) > 2 and short.endswith("s") and short[-2].isupper():
        return short[:-1]
    return short


def long_form(short: str, text: str) -> str | None:
    """Schwartz-Hearst: the end of ``text`` that spells ``short``, or None when nothing does.

    The short form's letters are found in ``text`` from right to left, each before the last;
    the first one must start a word.
    """
    low, i = text.lower(), len(text)
    for k in range(len(short) - 1, -1, -1):
        c = short[k].lower()
        if not c.isalnum():
            continue
        while True:
            i = low.rfind(c, 0, i)
            if i < 0:
                return None
            if k > 0 or i == 0 or not low[i - 1].isalnum():
                break
    start = text.rfind(" ", 0, i) + 1  # the whole word: "self-supervised learning (SSL)"
    found = text[start:].strip()
    if len(found) <= len(short) or short.lower() in found.lower().split():
        return None
    # "neural architecture search with weight sharing (NAS)": more words than letters to spell.
    letters = sum(c.isalnum() for c in short)
    if sum(1 for w in found.lower().split() if w not in _STOPS) > letters + 1:
        return None
    return found


def definitions(text: str) -> set[Definition]:
    """The (short form, long form) pairs ``text`` defines; cheap when it has no parentheses."""
    if "(" not in text:
        return set()
    found: set[Definition] = set()
    for m in _PARENS.finditer(text):
        inside = m.group(1).strip()
        if _SHORT.fullmatch(inside):  # "neural architecture search (NAS)"
            short = inside.strip("-")
            if not _acronym_shaped(short):
                continue
            before = text[max(0, m.start() - 200) : m.start()]
            clause = _UP_TO_CLAUSE_END.match(before)
            words = _WORD.findall(before[clause.end() :] if clause else before)
            window = words[-min(len(short) + 5, 2 * len(short)) :]
            if window:
                _add(found, short, " ".join(window))
        elif " " in inside and not _CLAUSE_END.search(inside):  # "NAS (neural architecture search)"
            last = _SHORT_AT_END.search(text, max(0, m.start() - 12), m.start())
            short = last.group(1).strip("-") if last else ""
            if _acronym_shaped(short) and long_form(short, inside) == inside:
                _add(found, short, inside)
    return found


def _add(found: set[Definition], short: str, window: str) -> None:
    long = long_form(short, window)
    if long is None:
        return
    long = long.strip(" ,-").lower()
    if len(_TOKEN.findall(long)) >= 2:
        found.add((normal_short(short), long, " ".join(stems(long))))
