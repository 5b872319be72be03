"""Marks (highlighted words) in the units Qt draws with, and a snippet cut so its first mark shows.

The core gives (start, end) in code points, Python's `str` indices; Qt's text layout counts
UTF-16 units, in which a character outside the Basic Multilingual Plane (𝒪, 𝕀, most emoji)
takes two.  Without the conversion every such character before a mark shifts it one place.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from PySide6.QtGui import QTextCharFormat, QTextLayout

Spans = tuple[tuple[int, int], ...]
ELLIPSIS = "…"
LEAD_CHARS = 24  # how much of the text before a mark stays when a snippet is cut to show it
_ASTRAL = re.compile("[\U00010000-\U0010ffff]")


def utf16_length(text: str) -> int:
    """The length of `text` as Qt counts it."""
    return len(text) + len(_ASTRAL.findall(text))


def utf16_spans(text: str, spans: Sequence[tuple[int, int]]) -> Spans:
    """Code-point (start, end) pairs of `text` as UTF-16 offsets; pairs outside `text` are dropped."""
    valid = [(s, e) for s, e in spans if 0 <= s < e <= len(text)]
    if not valid or not _ASTRAL.search(text):
        return tuple(valid)
    table = [0] * (len(text) + 1)
    units = 0
    for i, ch in enumerate(text):
        table[i] = units
        units += 2 if ch > "\uffff" else 1
    table[len(text)] = units
    return tuple((table[s], table[e]) for s, e in valid)


def format_ranges(
    text: str, spans: Sequence[tuple[int, int]], fmt: QTextCharFormat
) -> list[QTextLayout.FormatRange]:
    """QTextLayout format ranges marking `spans` (code points) of `text`."""
    ranges = []
    for start, end in utf16_spans(text, spans):
        r = QTextLayout.FormatRange()
        r.start, r.length, r.format = start, end - start, fmt
        ranges.append(r)
    return ranges


def cut_to_first_mark(text: str, spans: Sequence[tuple[int, int]], shown: int) -> tuple[str, Spans]:
    """`text` cut in front so that its first mark begins within the first `shown` characters.

    A short abstract's snippet is the whole abstract, its match maybe past what two lines of
    a narrow list show: the text before the match gives way ("…" where it was cut, at a word).
    """
    if not spans:
        return text, tuple(spans)
    first = min(s for s, _ in spans)
    if first < shown - LEAD_CHARS // 2 or first <= LEAD_CHARS:
        return text, tuple(spans)
    cut = max(0, first - LEAD_CHARS)
    space = text.find(" ", cut, first)
    cut = space + 1 if space >= 0 else first
    head = ELLIPSIS
    shift = len(head) - cut
    kept = tuple((s + shift, e + shift) for s, e in spans if s >= cut)
    return head + text[cut:], kept
