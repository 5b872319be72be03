"""Readable text as titles and short names see it: sentences, web addresses, a name's places."""

from __future__ import annotations

import re
from functools import lru_cache

from desk.core.text.chars import is_printable

_URL_RE = re.compile(r"(?i:https?://)\S+|\b(?:[\w-]++\.)++(?:io|com|org|net|ai)\b(?:/\S*)?")
_URL_HINTS = ("://", ".io", ".com", ".org", ".net", ".ai")  # _URL_RE matches nothing without one


def strip_urls(text: str, replacement: str) -> str:
    """``text`` with web addresses replaced (``_URL_RE.sub(replacement, text)``)."""
    spans = url_spans(text)
    if not spans:
        return text
    pieces: list[str] = []
    last = 0
    for start, end in spans:
        pieces += (text[last:start], replacement)
        last = end
    pieces.append(text[last:])
    return "".join(pieces)


@lru_cache(maxsize=64)  # the short name and the title of one abstract both strip its addresses
def url_spans(text: str) -> tuple[tuple[int, int], ...]:
    """Where ``_URL_RE`` matches ``text``; the regex runs only on the words that hold a hint.

    A match holds no whitespace and one of _URL_HINTS, so it lies in one such word, and a word's
    edges (whitespace, or the text's ends) look the same to the regex as the whole text's.
    """
    if not any(h in text for h in _URL_HINTS):
        return ()
    if not is_printable(text):  # whitespace other than " ": the whole text
        return tuple(m.span() for m in _URL_RE.finditer(text))
    words = set()
    for hint in _URL_HINTS:
        i = text.find(hint)
        while i >= 0:
            end = text.find(" ", i)
            end = len(text) if end < 0 else end
            words.add((text.rfind(" ", 0, i) + 1, end))
            i = text.find(hint, end)
    return tuple(m.span() for start, end in sorted(words) for m in _URL_RE.finditer(text, start, end))


_ABBREV = ("e.g.", "i.e.", "et al.", "vs.", "cf.", "Fig.", "Eq.", "a.k.a.", "approx.", "resp.", "U.S.")
_SENT_END_RE = re.compile(
    r"[.!?。！？](?:\s+(?=[\"“(\[]?[A-Z0-9\u3040-\u30ff\u4e00-\u9fff])"  # ". Next"
    r"|(?<=[。！？])"  # CJK full stops need no space
    r"|(?<=[a-z]{2}\.)(?=[A-Z][a-z]{2}))"  # "pipeline.Experiments": a missing space
)


@lru_cache(maxsize=256)
def split_sentences(text: str) -> tuple[str, ...]:
    """Sentences of readable text (abbreviations such as "e.g." do not end one)."""
    out: list[str] = []
    start = 0
    for m in _SENT_END_RE.finditer(text):
        piece = text[start : m.start() + 1]
        if piece.endswith(_ABBREV):
            continue
        out.append(piece.strip())
        start = m.end()
    out.append(text[start:].strip())
    return tuple(s for s in out if s)


def name_spots(name: str, text: str) -> list[tuple[int, bool]]:
    """End offsets of `name` as a whole token in text, each flagged when it is a prefix ("SCORE-LOND")."""
    # Plain string search: a regex per candidate name would be compiled anew for every abstract.
    out: list[tuple[int, bool]] = []
    i = text.find(name)
    n = len(name)
    while i >= 0:
        end = i + n
        before_ok = i == 0 or not (text[i - 1].isalnum() or text[i - 1] in "_-")
        nxt = text[end : end + 1]
        if before_ok and not (nxt.isalnum() or nxt == "_"):
            prefix = nxt == "-" and (text[end + 1 : end + 2].isalnum() or text[end + 1 : end + 2] == "_")
            out.append((end, prefix))
        i = text.find(name, i + 1)
    return out
