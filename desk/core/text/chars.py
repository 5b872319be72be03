"""``str.isprintable`` with an ASCII shortcut.

The text analysis asks it of a whole abstract several times (cleaning, spacing, the cue scan,
web addresses); CPython looks every character up in the Unicode tables (≈ 30 instructions
a character). An ASCII text is printable exactly when it holds no control character (U+0000 to
U+001F, U+007F), which a bytes ``translate`` that deletes them finds at a few instructions a
character.
"""

from __future__ import annotations

_ASCII_CONTROLS = bytes(range(0x20)) + b"\x7f"


def is_printable(text: str) -> bool:
    """``text.isprintable()``."""
    if text.isascii():  # a flag of the string: no scan
        ascii_bytes = text.encode("ascii")
        return len(ascii_bytes.translate(None, _ASCII_CONTROLS)) == len(ascii_bytes)
    return text.isprintable()
