"""The method's short name an abstract introduces (RACER, STAR-KV, OGPO), found from its cues."""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass

from desk.core.text.acronyms import GENERIC
from desk.core.text.cues import STRONG_VERBS as _STRONG_VERBS
from desk.core.text.cues import CueScan
from desk.core.text.sentences import name_spots, split_sentences, strip_urls

log = logging.getLogger(__name__)

_APPOSITION_RE = re.compile(r"(?: \([^()]*\))?(?: and \S+)?(?: \w+)?, (?:a|an|which)\b")  # "X (…) tool, a"
_EXPANSION_RE = re.compile(r" \([A-Z][^()]{6,}\)")  # "PAVE (Policy-Aware Value-field Equalization)"
_TOKEN_RE = re.compile(r"[^\W_]+(?:[-.][^\W_]+)*")
# The tokens _TOKEN_RE finds that do not start with a-z: a token starts where no letter or
# digit precedes, nor "letter-or-digit then - or ." (that would continue the token before).
# Its first character is matched first, then the two characters before it are looked at: a
# pattern that starts with a character class is only tried where that class matches (two
# lookbehinds first were tried at every character, 45 µs an abstract; now 26).
_UNLOWER_TOKEN_RE = re.compile(r"[^\W_a-z](?<![^\W_].)(?<![^\W_][-.].)[^\W_]*(?:[-.][^\W_]+)*")
# The same pattern for ASCII text, where [^\W_] is [A-Za-z0-9]: plain ranges are a bitmap test,
# not a Unicode category lookup per character (18 -> 11 µs an abstract).
_UNLOWER_ASCII_TOKEN_RE = re.compile(
    r"[A-Z0-9](?<![A-Za-z0-9].)(?<![A-Za-z0-9][-.].)[A-Za-z0-9]*(?:[-.][A-Za-z0-9]+)*"
)
_TITLE_COMPOUND_RE = re.compile(r"[A-Z][a-z]+(?:-[A-Za-z][a-z]*)+")
_DEFINED_RE = re.compile(r"\(([^\s()]{2,15})\)")  # "(NeRF)", "(PVT-SSD)": a one-token parenthetical
# A sentence that brings in something of the authors' own even without a cue verb
# ("This is enabled by a new framework, Polygon Transformer (PolyFormer)").
# Not "novel" alone: "Novel view synthesis … (NeRF)" is the field.
_OWN_RE = re.compile(r"\b(?:an? (?:novel|new)|the proposed)\b", re.IGNORECASE)
_OWN_WORDS = ("novel", "new", "propo")  # _OWN_RE matches no sentence whose lower() holds none


def _may_bring_own(sentence: str) -> bool:
    """False when _OWN_RE cannot match ``sentence`` (a substring test, 1 µs, before a regex that is
    tried at every character, 3 µs a sentence).

    Under IGNORECASE the letters of "novel" and "new" match only their ASCII cases, which
    lower() maps to them; the "s" of "proposed" also matches "ſ", hence "propo".
    """
    lowered = sentence.lower()
    return any(word in lowered for word in _OWN_WORDS)


def _may_bring_own_at(lowered: str, start: int, end: int) -> bool:
    """``_may_bring_own(text[start:end])`` from ``lowered = text.lower()``, when that is as long as
    ``text`` (each character lowered to one: only the Greek sigma's depends on its neighbours,
    never to an ASCII letter), without lowering each sentence anew."""
    return any(lowered.find(word, start, end) >= 0 for word in _OWN_WORDS)


_LONG_FORM_WORDS = 8  # how far back from "(ACRO)" its spelled-out form may start


def _upper_count(token: str) -> int:
    return sum(map(str.isupper, token))


def _is_generic(token: str) -> bool:
    t = token.upper()
    return t in GENERIC or (token.endswith("s") and t[:-1] in GENERIC)


def _qualifies(token: str) -> bool:
    """Looks like a coined method name: RACER, STAR-KV, PoMtVRS, Conf-Gen, D²TR."""
    if not token or not (token[0].isupper() or token[0].isdigit()):
        return False
    caps = _upper_count(token)
    if caps == 0 or sum(map(str.isalpha, token)) < (2 if caps >= 2 else 3) or _is_generic(token):
        return False
    return caps >= 2 or any(map(str.isdigit, token))


@dataclass
class _Candidate:
    name: str
    first: int
    cue: float = 0.0
    words: int = 1


def _occurrences(name: str, text: str) -> tuple[int, int]:
    return _counted(name_spots(name, text))


def _counted(spots: list[tuple[int, bool]]) -> tuple[int, int]:
    """(whole-token uses, uses as a prefix) of a name from its name_spots()."""
    prefix = sum(1 for _, p in spots if p)
    return len(spots) - prefix, prefix


def _parens_defined(name: str, text: str, spots: list[tuple[int, bool]]) -> bool:
    """``spots``: name_spots(name, text)."""
    if f"({name})" in text or f"({name}s)" in text:
        return True
    return any(_EXPANSION_RE.match(text, end) for end, prefix in spots if not prefix)


def _apposed(text: str, spots: list[tuple[int, bool]]) -> bool:
    """Whether an apposition follows a whole-token use of a name (``spots``: its name_spots())."""
    return any(_APPOSITION_RE.match(text, end) for end, prefix in spots if not prefix)


_WINDOW_MAX = 180
_WINDOW_STOPS_RE = re.compile(r"[(),;:]")  # what _window() looks at; it steps over the rest at C speed


def _window(sentence: str, start: int) -> str:
    """Text after a cue up to the first clause break outside parentheses."""
    depth = 0
    for m in _WINDOW_STOPS_RE.finditer(sentence, start, start + _WINDOW_MAX):
        c = m.group()
        if c == "(":
            depth += 1
        elif c == ")":
            depth = max(depth - 1, 0)
        elif depth == 0:
            return sentence[start : m.start()]
    return sentence[start : start + _WINDOW_MAX]


def _runs(window: str) -> list[list[str]]:
    """Maximal runs of capitalised words (name-like phrases) in a cue window."""
    runs: list[list[str]] = []
    cur: list[str] = []
    for raw in window.split():
        if raw[0].islower():  # most words: neither capitalised nor "(": only ends a run
            if cur:
                runs.append(cur)
                cur = []
            continue
        word = raw.strip(".,;:!?\"“”'’")
        core = word.strip("()")
        capital = bool(core) and (core[0].isupper() or _qualifies(core))
        if word.startswith("(") and core:
            capital = _upper_count(core) >= 1
        if capital and not word.startswith("(") and word == core:
            cur.append(core)
            continue
        if cur:
            runs.append(cur)
            cur = []
        if capital and word.startswith("(") and core:
            runs.append([word])  # "(ACRO)" stands alone
    if cur:
        runs.append(cur)
    return runs


def _without_long_form(window: str) -> str:
    """The window without the spelled-out form of a name it defines: in "we present Frequency
    regularized NeRF (FreeNeRF)" the name is FreeNeRF, and NeRF is a word of its long form."""
    m = next((m for m in _DEFINED_RE.finditer(window) if _qualifies(m.group(1))), None)
    if m is None:
        return window
    initial = next((c for c in m.group(1) if c.isalpha()), "").upper()
    words = list(re.finditer(r"\S+", window[: m.start()]))
    for w in reversed(words[-_LONG_FORM_WORDS:]):
        if w.group(0).lstrip("(\"“'").upper().startswith(initial):
            return window[: w.start()] + window[m.start() :]
    return window


def _coined_word(window: str, text: str) -> str | None:
    """A capitalised ordinary-looking word right after the cue, used again and never written in
    lower case: "We present Galactic, a large-scale framework" names Galactic."""
    m = re.match(r"\s*([A-Z][a-z]{3,})\b(?![-\s]+[A-Z])", window)  # one word: "Krause Attention" is a phrase
    if m is None:
        return None
    word = m.group(1)
    if re.search(rf"\b{word.lower()}\b", text) or _occurrences(word, text)[0] < 2:
        return None
    return word


def _credit(cands: dict[str, _Candidate], window: str, text: str, offset: int, cue: float) -> None:
    """Give the cue to the names in a window: "(ACRO)", a repeated phrase, or coined tokens."""
    coined = _coined_word(window, text)
    if coined is not None:
        _bump(cands, coined, _position(coined, text, offset), cue)
    for run in _runs(_without_long_form(window)):
        if run[0].startswith("("):
            token = run[0].strip("()")
            if _qualifies(token) or (_upper_count(token) >= 1 and len(token) >= 2 and not _is_generic(token)):
                _bump(cands, token, _position(token, text, offset), cue)
            continue
        phrase = " ".join(run)
        tokens = [w for w in run if _qualifies(w) and not _TITLE_COMPOUND_RE.fullmatch(w)]
        if 2 <= len(run) <= 3 and (tokens or _occurrences(phrase, text)[0] >= 2):
            _bump(cands, phrase, _position(phrase, text, offset), cue, words=len(run))
            continue
        for token in tokens:
            _bump(cands, token, _position(token, text, offset), cue)


def _position(name: str, text: str, offset: int) -> int:
    found = text.find(name, offset)
    return found if found >= 0 else offset


def _bump(cands: dict[str, _Candidate], name: str, offset: int, cue: float, words: int = 1) -> None:
    cand = cands.setdefault(name, _Candidate(name, offset, words=words))
    cand.cue = max(cand.cue, cue)
    cand.first = min(cand.first, offset)


def find_short_name(readable: str) -> str | None:
    """The method/system name the abstract introduces (RACER, STAR-KV, OGPO), or None."""
    try:
        return _find_short_name(readable)
    except Exception:  # RecursionError included: a bug here must not stop an import
        log.warning("no short name: finding one failed on %.80r", readable, exc_info=True)
        return None


_NAMED_AFTER_RE = re.compile(
    r",\s*(?:(?:called|named|dubbed|termed|coined|i\.e\.,?)\s+)?([^\s,;:()]+)\s*(?:,|\(|\b(?:which|that|to|for|is)\b)"
)


def _named_after(sentence: str, window: str, cut: int) -> str | None:
    """The name right after a cue's descriptive window: "we propose a novel LiDAR localization
    framework, SGLoc, which …" names SGLoc (and LiDAR only describes it)."""
    if not re.match(r"\s*(?:a|an)\s", window):
        return None
    m = _NAMED_AFTER_RE.match(sentence, cut)
    return m.group(1) if m and _qualifies(m.group(1)) else None


def _find_short_name(readable: str) -> str | None:
    text = strip_urls(readable, " ")
    cands: dict[str, _Candidate] = {}
    pos = 0
    scan = CueScan(text)
    # Acronyms defined before the authors say what they bring, in sentences that bring nothing
    # ("Neural radiance fields (NeRF) excel at …"): the field's words, not the paper's name.
    background: set[str] = set()
    lead: set[str] = set()  # the names of the first "we propose" sentence: the paper's own
    lowered = text.lower()
    lowered_fits = len(lowered) == len(text)  # else positions in it are not positions in text
    for sentence in split_sentences(text):
        offset = text.find(sentence, pos)
        pos = max(offset, pos)
        cued = False
        before = {name: c.cue for name, c in cands.items()}
        for m, strength in scan.matches(offset, offset + len(sentence)):
            start, end = m.start() - offset, m.end() - offset  # in the sentence
            if m.group(0)[:3].lower() == "and" and not re.search(r"\bwe\b", sentence[:start], re.I):
                continue  # "... and propose" counts only when the authors are the subject
            verb = (m.groupdict().get("verb") or "").lower()
            cue = strength or (6.0 if re.fullmatch(_STRONG_VERBS, verb) else 4.0)
            window = _window(sentence, end)
            named = _named_after(sentence, window, end + len(window))
            if named is not None:
                _bump(cands, named, _position(named, text, m.start()), cue)
            else:
                _credit(cands, window, text, m.start(), cue)
            cued = cued or cue >= 6.0
        defined = [m for m in _DEFINED_RE.finditer(sentence) if _qualifies(m.group(1))]
        if cued:
            # Acronyms defined anywhere in a "we propose" sentence ("two new algorithms: ... (GTPO)").
            for m in defined:
                _bump(cands, m.group(1), offset + m.start() + 1, 3.0)
            if not lead:
                lead = {name for name, c in cands.items() if c.cue >= 4 and c.cue > before.get(name, 0.0)}
        elif (
            _may_bring_own_at(lowered, offset, offset + len(sentence))
            if lowered_fits and offset >= 0
            else _may_bring_own(sentence)
        ) and _OWN_RE.search(sentence):
            for m in defined:
                _bump(cands, m.group(1), offset + m.start() + 1, 4.0)
        elif not lead:
            background.update(m.group(1) for m in defined)
    for m in (_UNLOWER_ASCII_TOKEN_RE if text.isascii() else _UNLOWER_TOKEN_RE).finditer(text):
        token = m.group(0)
        if token[0].islower() or token[1:].islower() or token.isupper():
            continue  # the fallback wants coined mixed-case names only (HiDe, DivMorph)
        if _qualifies(token) and not _TITLE_COMPOUND_RE.fullmatch(token):
            cands.setdefault(token, _Candidate(token, m.start()))
    return _choose(cands, text, background, lead)


LEAD_BONUS = 2.0


def _choose(cands: dict[str, _Candidate], text: str, background: set[str], lead: set[str]) -> str | None:
    """The best candidate: cued names above uncued ones, the field's own acronyms below both."""
    best: tuple[int, float, int, str] | None = None
    for cand in cands.values():
        spots = name_spots(cand.name, text)  # one search for the three questions below
        whole, prefix = _counted(spots)
        if whole == 0 and prefix == 0:
            continue
        defined = _parens_defined(cand.name, text, spots)
        if cand.words == 1 and _TITLE_COMPOUND_RE.fullmatch(cand.name) and not defined:
            continue  # "Reward-Shaping", "Actor-Critic": ordinary compounds unless defined as a name
        score = cand.cue + min(whole - 1, 4) + 0.5 * min(prefix, 4)
        if defined:
            score += 2
        if _apposed(text, spots):
            score += 2
        if cand.name in lead:
            score += LEAD_BONUS
        if cand.cue >= 3:
            tier, ok = 2, score >= 5 and (whole >= 2 or cand.cue >= 4)
        else:  # no cue: only a coined mixed-case name used throughout (HiDe)
            tier, ok, score = 1, whole >= 3, whole
        if cand.name in background or f"{cand.name}s" in background:
            tier = 0  # the field's acronym ("… fields (NeRF) excel at"): only when nothing else is named
        key = (tier, score, -cand.first, cand.name)
        if ok and (best is None or key[:3] > best[:3]):
            best = key
    return best[3] if best else None
