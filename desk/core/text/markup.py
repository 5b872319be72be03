"""Abstract text (inline LaTeX + Markdown emphasis + URLs) to typed spans of readable Unicode."""

from __future__ import annotations

import enum
import html
import logging
import re
import unicodedata
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Literal
from urllib.parse import urlsplit

from desk.core.text.chars import is_printable
from desk.core.text.latex import (
    STYLE_MACROS,
    brace_groups,
    convert_text,
    crude_strip,
    find_math_close,
    math_parts,
)
from desk.core.text.scripts import MARKS, MathPart, Script
from desk.core.text.translate import Translator

log = logging.getLogger(__name__)

SpanKind = Literal["text", "bold", "italic", "code", "link"]


@dataclass(frozen=True)
class Span:
    """A run of readable text with one presentation; `url` is set only for links (http/https).

    A sub/superscript of math is a span of its own: ``script`` says which, ``text`` is its
    plain form (ᵈ, or _α where Unicode has no such letter) and ``raised`` its own text (d, α).
    """

    text: str
    kind: SpanKind
    url: str | None = None
    script: Script | None = None
    raised: str = ""


_PRIORITY: dict[SpanKind, int] = {"text": 0, "italic": 1, "bold": 2, "code": 3, "link": 4}


class _Mode(enum.Enum):
    """How a piece's raw text becomes readable."""

    TEXT = "text"  # LaTeX text mode: macros, dashes and quotes converted
    MATH = "math"  # LaTeX math: symbols, scripts
    LITERAL = "literal"  # as it is (code, link targets, marks kept literal)


@dataclass(frozen=True, slots=True)
class _Skip:
    """What a markup handler returns when the characters are not markup: scanning resumes ``at``."""

    at: int


_Piece = tuple[str, SpanKind, str | None, _Mode]  # raw text, kind, url, mode
_Flush = tuple[int, _Mode]  # where pending plain text starts, and its mode
_MAX_DEPTH = 40

# Zero-width, soft hyphen and bidi controls: invisible, and they would split or spoof words.
_INVISIBLE = dict.fromkeys(
    map(ord, "\u200b\u200c\u200d\u2060\ufeff\u00ad\u200e\u200f\u202a\u202b\u202c\u202d\u202e")
)
_LIGATURES = {"ﬀ": "ff", "ﬁ": "fi", "ﬂ": "fl", "ﬃ": "ffi", "ﬄ": "ffl", "ﬅ": "st", "ﬆ": "st"}
# The private-use marks scripts.py puts around sub/superscripts mean nothing in a file.
_CLEAN_TABLE = {**_INVISIBLE, **dict.fromkeys(map(ord, MARKS)), **{ord(k): v for k, v in _LIGATURES.items()}}
_clean = Translator(_CLEAN_TABLE)
_CONTROL_RE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_WS_RE = re.compile(r"\s+")

# Where markup may start in text: one of \$*_`[< or a web address. Written as one leading class
# (then, after an h, the rest of https?://) so the regex engine skips to the next such character
# at C speed; with two alternatives it tried every position (the same matches).
_TEXT_TOKEN_RE = re.compile(r"[\\$*_`\[<hH](?:(?<![hH])|(?<=[hH])(?i:ttps?://))")
_MATH_TOKEN_RE = re.compile(r"\\")
_NAME_RE = re.compile(r"\\(?:([A-Za-z]+)\*?|(.))", re.DOTALL)
_URL_RE = re.compile(r"(?i:https?://)[^\s<>\"`{}|\\^\[\]*$]+")
_AUTOLINK_RE = re.compile(r"<((?i:https?://)[^\s<>\"`]+)>")
_URL_TRAIL = ".,;:!?'\"…"
_PAIRS = {")": "(", "]": "[", "}": "{"}
_STRAY_STARS_RE = re.compile(r"\*{2,}")


_SPACES_RE = re.compile(" {2,}")


def one_space(text: str) -> str:
    """Each run of whitespace as one space (``\\s+`` → " "), skipping the regex when none can match.

    Besides " ", every character ``\\s`` matches is unprintable (controls and separators).
    """
    if "  " in text or not is_printable(text):
        return _WS_RE.sub(" ", text)
    return text


def clean_raw(text: str) -> str:
    """Decode stray entities, NFC, drop invisible characters, undo PDF ligatures, collapse spaces."""
    if "&" in text:
        text = html.unescape(text)
    text = _clean(unicodedata.normalize("NFC", text))
    if not is_printable(text):  # every control character is unprintable
        text = _CONTROL_RE.sub(" ", text)
    return one_space(text).strip()


def safe_url(url: str) -> str | None:
    """The URL if it is a well-formed http(s) address, else None."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return None
    if parts.scheme.lower() not in ("http", "https") or not parts.netloc:
        return None
    if any(c.isspace() or c in "<>\"'`\\" or ord(c) < 32 for c in url):
        return None
    return url


def trim_url(url: str) -> str:
    """Drop trailing punctuation that belongs to the sentence, keeping balanced brackets."""
    while url:
        last = url[-1]
        unbalanced = last in _PAIRS and url.count(_PAIRS[last]) < url.count(last)
        if last not in _URL_TRAIL and not unbalanced:
            break
        url = url[:-1]
    return url


class _Scanner:
    """Splits one abstract into pieces (raw text, kind, url, mode) before LaTeX conversion."""

    def __init__(self, text: str) -> None:
        self.s = text
        self.pieces: list[_Piece] = []

    def add(self, raw: str, kind: SpanKind, url: str | None, mode: _Mode) -> None:
        if raw:
            self.pieces.append((raw, kind, url, mode))

    def parse(self, start: int, end: int, kind: SpanKind, url: str | None, math: bool, depth: int) -> None:
        s = self.s
        mode = _Mode.MATH if math else _Mode.TEXT
        if depth > _MAX_DEPTH:
            self.add(crude_strip(s[start:end]), kind, url, _Mode.LITERAL)
            return
        token_re = _MATH_TOKEN_RE if math else _TEXT_TOKEN_RE
        i = buf = start
        while i < end:
            m = token_re.search(s, i, end)
            if m is None:
                break
            j = m.start()
            nxt = self.token(j, end, kind, url, math, depth, flush=(buf, mode))
            if isinstance(nxt, _Skip):  # not markup: keep the characters as text
                i = nxt.at
                continue
            i = buf = nxt
        self.add(s[buf:end], kind, url, mode)

    def _flush(self, flush: _Flush, upto: int, kind: SpanKind, url: str | None) -> None:
        self.add(self.s[flush[0] : upto], kind, url, flush[1])

    def token(
        self, j: int, end: int, kind: SpanKind, url: str | None, math: bool, depth: int, flush: _Flush
    ) -> int | _Skip:
        """Handle markup at `j`; return the index after it, or where to resume scanning if it is none."""
        s = self.s
        c = s[j]
        if c == "\\":
            return self.macro(j, end, kind, url, math, depth, flush)
        if c == "$":
            opener = "$$" if s.startswith("$$", j) and j + 1 < end else "$"
            close = find_math_close(s, j + len(opener), opener, end)
            self._flush(flush, j, kind, url)
            if close < 0:  # an unmatched dollar is dropped
                return j + len(opener)
            self.parse(j + len(opener), close, kind, url, True, depth + 1)
            return close + len(opener)
        if c in "*_":
            return self.emphasis(j, end, kind, url, depth, flush)
        if c == "`":
            return self.code(j, end, kind, url, flush)
        if c == "[":
            return self.md_link(j, end, kind, url, depth, flush)
        if c == "<":
            m = _AUTOLINK_RE.match(s, j, end)
            target = safe_url(m.group(1)) if m else None
            if m is None or target is None:
                return _Skip(j + 1)
            self._flush(flush, j, kind, url)
            self.add(target, "link", url or target, _Mode.LITERAL)
            return m.end()
        return self.bare_url(j, end, kind, url, flush)

    def macro(
        self, j: int, end: int, kind: SpanKind, url: str | None, math: bool, depth: int, flush: _Flush
    ) -> int | _Skip:
        s = self.s
        m = _NAME_RE.match(s, j, end)
        if m is None:
            return _Skip(j + 1)
        name, symbol = m.group(1), m.group(2)
        if symbol is not None:
            if symbol in "([" and not math:
                closer = "\\)" if symbol == "(" else "\\]"
                close = s.find(closer, m.end(), end)
                if close >= 0:
                    self._flush(flush, j, kind, url)
                    self.parse(m.end(), close, kind, url, True, depth + 1)
                    return close + 2
            return _Skip(m.end())  # an escaped character stays for the LaTeX converter
        if name in ("url", "href"):
            groups, after = brace_groups(s[:end], m.end(), 2 if name == "href" else 1)
            if not groups:
                return _Skip(m.end())
            self._flush(flush, j, kind, url)
            target = safe_url(groups[0].strip())
            if target is None:  # not a web address: just text
                self.add(groups[-1], kind, url, _Mode.TEXT)
                return after
            shown = groups[0].strip() if len(groups) == 1 else convert_text(groups[1])
            self.add(shown, "link", url or target, _Mode.LITERAL)
            return after
        if name in STYLE_MACROS:
            style, is_math = STYLE_MACROS[name]
            if math and style is None:
                # \mathrm{CVaR}, \text{…}: no presentation of their own, so the math stays whole
                # (a script around them, x^{\mathrm{max}}, is read with its base).
                return _Skip(m.end())
            groups, after = brace_groups(s[:end], m.end(), 1)
            self._flush(flush, j, kind, url)
            if not groups:
                return m.end()
            inner_start = s.index("{", m.end()) + 1
            inner_kind = kind if style is None or _PRIORITY[style] < _PRIORITY[kind] else style
            inner_math = math if is_math is None else is_math
            self.parse(inner_start, inner_start + len(groups[0]), inner_kind, url, inner_math, depth + 1)
            return after
        return _Skip(m.end())

    def emphasis(
        self, j: int, end: int, kind: SpanKind, url: str | None, depth: int, flush: _Flush
    ) -> int | _Skip:
        s = self.s
        c = s[j]
        run = _run_length(s, j, end, c)
        after = j + run
        if after >= end or s[after].isspace():
            return _Skip(after)
        if c == "_" and j > 0 and s[j - 1].isalnum():
            return _Skip(after)
        close = -1
        width = 0
        if run >= 2:
            close = self._find_closer(c, after, end, double=True)
            width = 2
        if close < 0:
            close = self._find_closer(c, after, end, double=False)
            width = 1
        if close < 0:
            return _Skip(after)
        self._flush(flush, j, kind, url)
        if width == 1 and run > 1:  # **x* : the spare mark is literal
            self.add(s[j : after - 1], kind, url, _Mode.LITERAL)
            j = after - 1
        style: SpanKind = "bold" if width == 2 else "italic"
        inner_kind = kind if _PRIORITY[style] < _PRIORITY[kind] else style
        # A longer opening run (***x***) leaves its extra marks inside, where they nest.
        self.parse(j + width, close, inner_kind, url, False, depth + 1)
        return close + width

    def _find_closer(self, c: str, start: int, end: int, *, double: bool) -> int:
        s = self.s
        k = start
        while True:
            p = s.find(c, k, end)
            if p < 0:
                return -1
            run = _run_length(s, p, end, c)
            q = p + run
            ok = not s[p - 1].isspace()
            if c == "_" and q < end and s[q].isalnum():
                ok = False
            if ok and double and run >= 2:
                return q - 2
            if ok and not double and run != 2:
                return q - 1 if run > 2 else p
            k = q

    def code(self, j: int, end: int, kind: SpanKind, url: str | None, flush: _Flush) -> int | _Skip:
        s = self.s
        run = _run_length(s, j, end, "`")
        after = j + run
        close = after
        while True:
            close = s.find("`" * run, close, end)
            if close < 0 or _run_length(s, close, end, "`") == run:
                break
            close += _run_length(s, close, end, "`")
        if run <= 2:
            quote = _latex_quote_end(s, after, end, run)
            if quote >= 0 and (close < 0 or quote < close):
                return _Skip(after)  # ``LaTeX quotes'' are converted with the text
        if close < 0:  # an unmatched run stays literal (and so reads the same a second time)
            self._flush(flush, j, kind, url)
            self.add(s[j:after], kind, url, _Mode.LITERAL)
            return after
        body = s[after:close]
        if len(body) > 2 and body[0] == " " and body[-1] == " " and body.strip():
            body = body[1:-1]
        self._flush(flush, j, kind, url)
        self.add(body, "link" if kind == "link" else "code", url, _Mode.LITERAL)
        return close + run

    def md_link(
        self, j: int, end: int, kind: SpanKind, url: str | None, depth: int, flush: _Flush
    ) -> int | _Skip:
        s = self.s
        close = _matching(s, j, end, "[", "]")
        if close < 0 or close + 1 >= end or s[close + 1] != "(":
            return _Skip(j + 1)
        paren = _matching(s, close + 1, end, "(", ")")
        if paren < 0:
            return _Skip(j + 1)
        dest = s[close + 2 : paren].strip().split(" ")[0].strip("<>")
        target = safe_url(dest)
        if target is None:
            return _Skip(j + 1)
        self._flush(flush, j, kind, url)
        if close == j + 1:
            self.add(target, "link", url or target, _Mode.LITERAL)
        else:
            self.parse(j + 1, close, "link", url or target, False, depth + 1)
        return paren + 1

    def bare_url(self, j: int, end: int, kind: SpanKind, url: str | None, flush: _Flush) -> int | _Skip:
        s = self.s
        if j > 0 and s[j - 1].isalnum():
            return _Skip(j + 1)
        m = _URL_RE.match(s, j, end)
        if m is None:
            return _Skip(j + 1)
        found = trim_url(m.group(0))
        target = safe_url(found)
        if target is None:
            return _Skip(j + 1)
        self._flush(flush, j, kind, url)
        self.add(found, "link", url or target, _Mode.LITERAL)
        return j + len(found)


def _run_length(s: str, i: int, end: int, c: str) -> int:
    k = i
    while k < end and s[k] == c:
        k += 1
    return k - i


def _matching(s: str, start: int, end: int, open_c: str, close_c: str) -> int:
    depth = 0
    for k in range(start, min(end, start + 1000)):
        ch = s[k]
        if ch == open_c:
            depth += 1
        elif ch == close_c:
            depth -= 1
            if depth == 0:
                return k
    return -1


def _latex_quote_end(s: str, start: int, end: int, run: int) -> int:
    """Where the ''closing'' of a LaTeX `opening quote sits, or -1."""
    closer = "'" * run
    k = start
    while True:
        q = s.find(closer, k, end)
        if q < 0:
            return -1
        after = q + run
        if q > start and not s[q - 1].isspace() and (after >= end or not s[after].isalnum()):
            return q
        k = q + 1


def _convert(raw: str, mode: _Mode) -> tuple[MathPart, ...]:
    if mode is _Mode.MATH:
        return math_parts(raw)
    return (MathPart(convert_text(raw) if mode is _Mode.TEXT else raw),)


def _assemble(pieces: list[_Piece]) -> tuple[Span, ...]:
    """Convert pieces, merge neighbours of one kind, and tidy spaces and markup debris."""
    merged: list[Span] = []
    for raw, kind, url, mode in pieces:
        for part in _convert(raw, mode):
            text = one_space(part.text.replace("\\", ""))
            if not text:
                continue
            if part.script is not None:  # a script stays a span of its own
                merged.append(Span(text, kind, url, part.script, part.raised.replace("\\", "")))
            elif merged and (merged[-1].kind, merged[-1].url, merged[-1].script) == (kind, url, None):
                merged[-1] = Span(merged[-1].text + text, kind, url)
            else:
                merged.append(Span(text, kind, url))
    spans: list[Span] = []
    prev_star = False
    prev_space = True  # drops leading space
    for span in merged:
        text = span.text
        # A "**" that closes nothing is markup debris, never meant as text (even in code).
        if "**" in text:
            text = _STRAY_STARS_RE.sub("", text)
        text = unicodedata.normalize("NFC", text)
        if prev_star and text.startswith("*"):
            text = text[1:]
        prev_star = text.endswith("*") or (prev_star and not text)
        if prev_space:
            text = text.lstrip(" ")
        if "  " in text:
            text = _SPACES_RE.sub(" ", text)
        if not text:
            continue
        prev_space = text.endswith(" ")
        spans.append(replace(span, text=text) if text != span.text else span)
    if spans and spans[-1].text.endswith(" "):
        last = spans.pop()
        if last.text.rstrip(" "):
            spans.append(replace(last, text=last.text.rstrip(" ")))
    return tuple(spans)


@lru_cache(maxsize=4096)
def parse_spans(raw: str) -> tuple[Span, ...]:
    """Readable structure of an abstract: LaTeX → Unicode, emphasis and code typed, URLs linked.

    Never raises; anything unparseable becomes plain text with the LaTeX syntax removed.
    """
    try:
        text = clean_raw(raw)
        scanner = _Scanner(text)
        scanner.parse(0, len(text), "text", None, False, 0)
        return _assemble(scanner.pieces)
    except Exception:  # RecursionError included: a bug here must not stop an import or a view
        log.warning("abstract markup could not be parsed, shown as plain text: %.80r", raw, exc_info=True)
        fallback = _WS_RE.sub(" ", crude_strip(str(raw)).replace("**", "")).strip()
        return (Span(fallback, "text"),) if fallback else ()


def readable_text(raw: str) -> str:
    """Plain Unicode text of an abstract: no markup, no LaTeX, no `$`, `\\` or `**` syntax."""
    return "".join(span.text for span in parse_spans(raw))
