"""Snippets: the best ~240-character window of a text, with matched words located.

Stemming every word of every returned abstract would cost milliseconds per
hit, so a regex built from the query's stems finds candidate words first (in
C) and only those are stemmed to confirm the match.

Offsets are in code points (Python's `str` indices); a renderer counting UTF-16 units (Qt)
converts them.  A mark never splits a character from the combining marks after it.  A word
searched only inside a phrase is marked only where the phrase stands.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Iterator

from desk.core.search.model import Marks
from desk.core.search.schema import analyze, cached_stem

WIDTH = 240
ELLIPSIS = "…"
MAX_MATCHES = 400  # per text; the window search is quadratic in this
MEMO = 256  # texts whose matches a Highlighter keeps (rescoring, then snippets, read the same texts)

Span = tuple[int, int]
Match = tuple[int, int, str]  # (start, end, query term)
Phrase = tuple[tuple[str, ...], tuple[str, ...]]  # stems in a row, prefix variants of a last word
_GAP_WORD = re.compile(r"\w+")


def stem_word(word: str) -> str:
    """The stemmed-field form of one word (lowercased Snowball stem)."""
    return cached_stem(word.lower())


class Highlighter:
    """Finds the words of a text whose stems are query terms or start with a query prefix."""

    def __init__(
        self,
        terms: Iterable[str],
        prefixes: Iterable[str] = (),
        phrases: Iterable[Phrase] = (),
        loose: Iterable[str] | None = None,
    ) -> None:
        self.terms = frozenset(terms)
        self.prefixes = tuple(p for p in prefixes if p)
        self.phrases = tuple((tuple(s), tuple(v)) for s, v in phrases if len(s) + bool(v) > 1)
        # Without phrases (or without the list of what is searched outside them) every match counts.
        self._loose = None if loose is None or not self.phrases else frozenset(loose)
        # Porter changes word endings ("probability" -> "probabl"), so the
        # regex only requires a shorter head of each stem.
        heads = {t[: max(3, len(t) - 2)] for t in self.terms if t}
        heads.update(self.prefixes)
        if heads:
            alternatives = "|".join(re.escape(h) for h in sorted(heads, key=len, reverse=True))
            # Without a leading \b the regex engine scans for the heads' first letters
            # in C, twice as fast; a match inside a word is dropped in the loop below.
            self._lower: re.Pattern[str] | None = re.compile(rf"(?:{alternatives})\w*")
            self._regex: re.Pattern[str] | None = re.compile(rf"\b(?:{alternatives})\w*", re.IGNORECASE)
        else:
            self._lower = self._regex = None
        self._known: dict[str, str | None] = {}  # lowercased word -> matched term
        self._memo: dict[str, list[Match]] = {}

    @classmethod
    def of(cls, marks: Marks) -> Highlighter:
        """The highlighter for what a search result says to mark."""
        return cls(marks.terms, marks.prefixes, marks.phrases, marks.loose)

    def matches(self, text: str) -> list[Match]:
        """(start, end, term) of every matched word in ``text`` (a list the caller must not change)."""
        if self._lower is None or self._regex is None:
            return []
        memo = self._memo.get(text)
        if memo is not None:
            return memo
        lowered = text.lower()
        found: Iterator[re.Match[str]]
        if len(lowered) == len(text):
            found = (m for m in self._lower.finditer(lowered) if not _inside_word(lowered, m.start()))
        else:  # a few characters lowercase to two ("İ"): offsets would shift
            found = self._regex.finditer(text)
        out: list[Match] = []
        known = self._known
        for m in found:
            word = m.group().lower()
            term = known.get(word, "")
            if term == "":
                term = known[word] = self._classify(word)
            if term is not None:
                end = m.end()
                while end < len(text) and text[end] > "\x7f" and unicodedata.category(text[end])[0] == "M":
                    end += 1  # "é" written e + U+0301: the accent belongs to the word
                out.append((m.start(), end, term))
                if len(out) >= MAX_MATCHES:
                    break
        if len(self._memo) < MEMO:
            self._memo[text] = out
        return out

    def marks(self, text: str) -> list[Match]:
        """The matches to mark: those of a word searched only in a phrase only where the phrase stands."""
        found = self.matches(text)
        loose = self._loose
        if loose is None or not found:
            return found
        keep = [self._is_loose(term, loose) for _, _, term in found]
        for stems, variants in self.phrases:
            n = len(stems) + bool(variants)
            for i in range(len(found) - n + 1):
                if all(_fits(found[i + k][2], k, stems, variants) for k in range(n)) and all(
                    _adjacent(text, found[i + k][1], found[i + k + 1][0]) for k in range(n - 1)
                ):
                    keep[i : i + n] = [True] * n
        return [m for m, k in zip(found, keep, strict=True) if k]

    def spans(self, text: str) -> tuple[Span, ...]:
        """(start, end) of every word to mark in ``text``, in code points."""
        return tuple((s, e) for s, e, _ in self.marks(text))

    def _is_loose(self, term: str, loose: frozenset[str]) -> bool:
        # A prefix searched on its own ("diffus*") marks its expansions ("diffusion") too.
        return term in loose or any(term.startswith(p) for p in loose if p in self.prefixes)

    def _classify(self, word: str) -> str | None:
        s = stem_word(word)
        if s in self.terms:
            return s
        return next((p for p in self.prefixes if word.startswith(p) or s.startswith(p)), None)


def _fits(term: str, k: int, stems: tuple[str, ...], variants: tuple[str, ...]) -> bool:
    """Whether a word matched as `term` is the phrase's k-th word."""
    if k < len(stems):
        return term == stems[k]
    return any(term.startswith(v) for v in variants)


def _adjacent(text: str, end: int, start: int) -> bool:
    """Only punctuation and stopwords between two words (the index counts no position for those)."""
    return all(not analyze(w.group()) for w in _GAP_WORD.finditer(text, end, start))


def _inside_word(text: str, pos: int) -> bool:
    """True when ``pos`` follows a word character (no \\b there)."""
    return pos > 0 and (text[pos - 1].isalnum() or text[pos - 1] == "_")


def _best_window(matches: list[Match], width: int) -> tuple[int, int]:
    """Index range [i, j) of the matches forming the richest window (most distinct terms, then most)."""
    best = (-1, -1)
    best_range = (0, 1)
    counts: dict[str, int] = {}
    j = 0
    for i, (start, _, _) in enumerate(matches):
        while j < len(matches) and matches[j][1] - start <= width:
            counts[matches[j][2]] = counts.get(matches[j][2], 0) + 1
            j += 1
        key = (len(counts), j - i)
        if j > i and key > best:
            best, best_range = key, (i, j)
        if j > i:
            term = matches[i][2]
            counts[term] -= 1
            if not counts[term]:
                del counts[term]
        else:
            j = i + 1
    return best_range


def _snap_start(text: str, pos: int, limit: int) -> int:
    """Move ``pos`` forward to the start of a word, not beyond ``limit``."""
    if pos <= 0:
        return 0
    if not text[pos - 1].isspace():
        space = text.find(" ", pos, limit)
        if space < 0:
            return pos if text[pos].isspace() else limit
        pos = space
    while pos < limit and text[pos].isspace():
        pos += 1
    return pos


def _snap_end(text: str, pos: int, limit: int) -> int:
    """Move ``pos`` back to the end of a word, not before ``limit``."""
    if pos >= len(text):
        return len(text)
    if not text[pos].isspace():
        space = text.rfind(" ", limit, pos)
        pos = space if space >= 0 else limit
    while pos > limit and text[pos - 1].isspace():
        pos -= 1
    return pos


def snippet(text: str, highlighter: Highlighter, width: int = WIDTH) -> tuple[str, tuple[Span, ...]] | None:
    """The window of ``text`` around its best matches, or None when nothing matches."""
    matches = highlighter.marks(text)
    if not matches:
        return None
    i, j = _best_window(matches, width)
    first, last = matches[i][0], matches[j - 1][1]
    slack = max(0, width - (last - first))
    start = max(0, first - slack // 3)
    end = min(len(text), start + width)
    if end == len(text):
        start = max(0, min(start, end - width))
    start = _snap_start(text, start, first)
    end = _snap_end(text, max(end, last), last)
    return _cut(text, start, end, matches)


def lead(text: str, width: int = WIDTH) -> tuple[str, tuple[Span, ...]]:
    """The opening of ``text`` (no match to center on)."""
    end = _snap_end(text, min(len(text), width), min(len(text), width // 2))
    return _cut(text, 0, end, [])


def _cut(text: str, start: int, end: int, matches: list[Match]) -> tuple[str, tuple[Span, ...]]:
    head = ELLIPSIS if start > 0 else ""
    tail = ELLIPSIS if end < len(text) else ""
    shift = len(head) - start
    spans = tuple((s + shift, e + shift) for s, e, _ in matches if s >= start and e <= end)
    return head + text[start:end] + tail, spans
