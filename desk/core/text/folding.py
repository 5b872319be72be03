"""Names compared as a reader compares them: case and accents ignored (Schölkopf = scholkopf)."""

from __future__ import annotations

import unicodedata

# Letters NFKD does not split into a base and a mark: ø, ł, đ, æ, œ, dotless ı, ð, þ.
_UNSPLIT = str.maketrans({"ø": "o", "ł": "l", "đ": "d", "æ": "ae", "œ": "oe", "ı": "i", "ð": "d", "þ": "th"})


def fold(text: str) -> str:
    """``text`` case folded, without accents, white space collapsed: how names are compared."""
    if text.isascii():
        return " ".join(text.lower().split())
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    plain = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return " ".join(plain.translate(_UNSPLIT).split())
