"""Control characters: shown harmlessly, escaped in JSON, kept out of a title.

A library or a backup can come from anywhere, and so can the files imported into it: a title, a
file name or a note may hold ESC, BEL, DEL or a C1 control, which a terminal would act on (clear
the screen, set the window's title, answer back) if desk printed them raw. The bidi embeddings,
overrides and isolates do not act on a terminal but reorder what it shows (after U+202E,
"exe.txt" reads "txt.exe"). No database, no Qt: the command line's fast paths use this module.
"""

from __future__ import annotations

import re

#: Unicode's control characters (category Cc): C0, DEL and C1.
CONTROLS = "\x00-\x1f\x7f-\x9f"
#: The bidi embeddings, overrides (U+202A–U+202E) and isolates (U+2066–U+2069).
BIDI_CONTROLS = "\u202a-\u202e\u2066-\u2069"
REPLACEMENT = "\ufffd"

# "\r\n" first: a line end typed on Windows reads as one newline, not as U+FFFD and a newline.
_SHOWN_RE = re.compile(f"\r\n|[{CONTROLS}{BIDI_CONTROLS}\ud800-\udfff]")
_KEPT_IN_LINES = frozenset("\n\t")
_CONTROLS_RE = re.compile(f"[{CONTROLS}]")
_BIDI_RE = re.compile(f"[{BIDI_CONTROLS}]")
_JSON_RE = re.compile("[\x7f-\x9f]")
# DEL and C1 in UTF-8 (C1 is 0xC2 0x80–0x9F); JSON's own escapes already cover C0. C1 is searched
# for alone: the regex engine skips to a literal first byte at C speed, where an alternation beside
# it makes it try every position (11 → 150 ms over 27 MB holding a "±" in every paper).
_C1_BYTES_RE = re.compile(rb"\xc2[\x80-\x9f]")
_JSON_BYTES_RE = re.compile(rb"\xc2[\x80-\x9f]|\x7f")


def _shown(char: str, lines: bool) -> str:
    if char == "\r\n":
        return "\n" if lines else " "
    if char in _KEPT_IN_LINES:
        return char if lines else " "
    code = ord(char)
    if 0xDC80 <= code <= 0xDCFF:  # a byte that is not UTF-8 in a file name (os.fsdecode's escape)
        return f"\\x{code - 0xDC00:02x}"
    if 0xD800 <= code <= 0xDFFF:  # a lone surrogate: no character at all
        return REPLACEMENT
    if _BIDI_RE.match(char):  # it only reorders what is around it
        return ""
    return REPLACEMENT


def harmless(text: str, *, lines: bool = True) -> str:
    """``text`` as it can be shown: every control character but newline and tab as U+FFFD, the
    bidi controls dropped, a byte of a file name that is not UTF-8 as ``\\xff`` (as
    ``paths.shown_name`` writes it) and any other lone surrogate as U+FFFD. ``lines=False``: on
    one line (newlines and tabs as spaces)."""
    if _SHOWN_RE.search(text) is None:  # the common case: one scan at C speed, no copy
        return text
    return _SHOWN_RE.sub(lambda m: _shown(m.group(0), lines), text)


def one_line(text: str) -> str:
    """``text`` as one line a user means as a title: each control character a space, the bidi
    controls dropped (as an imported abstract's are), each run of whitespace one space, none at
    either end."""
    return " ".join(_CONTROLS_RE.sub(" ", _BIDI_RE.sub("", text)).split())


def _json_escape(char: str) -> str:
    return f"\\u{ord(char):04x}"


def json_escaped(text: str) -> str:
    """JSON text (``json.dumps(..., ensure_ascii=False)``) with DEL and the C1 controls written
    as ``\\u`` escapes too, as JSON writes C0's: the same JSON, no control character raw."""
    if text.isascii() and "\x7f" not in text:  # a flag of the string, then one memchr
        return text
    return _JSON_RE.sub(lambda m: _json_escape(m.group(0)), text)


def json_escaped_bytes(body: bytes) -> bytes:
    """``json_escaped`` of UTF-8 JSON text, as bytes. Two memchr scans when neither DEL nor a C1
    lead byte is there (2 ms over `desk list --json`'s 27 MB at 100k papers), one regex with a
    literal first byte when one is (11 ms with a "±" in every paper); timeit, best of 5."""
    if b"\x7f" not in body and (b"\xc2" not in body or _C1_BYTES_RE.search(body) is None):
        return body
    return _JSON_BYTES_RE.sub(lambda m: _json_escape(m.group(0).decode("utf-8")).encode("ascii"), body)
