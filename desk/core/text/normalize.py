"""Normal forms: the exact-duplicate key of an abstract, and the search stemmer."""

from __future__ import annotations

import hashlib
import html
import re
import unicodedata
from functools import lru_cache

from desk.core.text.markup import readable_text
from desk.core.text.stemming import stem
from desk.core.text.translate import Translator

# Characters that differ between copies of one abstract without changing its words.
_FOLD = str.maketrans(
    {
        **dict.fromkeys(map(ord, "‘’‚‛′´"), "'"),
        **dict.fromkeys(map(ord, "“”„‟″«»"), '"'),
        **dict.fromkeys(map(ord, "‐‑‒–—―−﹘﹣－"), "-"),
        **dict.fromkeys(map(ord, "\u200b\u200c\u200d\u2060\ufeff\u00ad"), None),
    }
)
# Markup characters left in readable text (escaped, unmatched or in code) are deleted, not word breaks:
# a second reading may pair them up and join the words around them.
_MARKUP = dict.fromkeys(map(ord, "*_$\\{}`"))
# Letters and digits are split so that D$^2$TR, D²TR and D2TR agree, as do GPT-4 and GPT4.
_WORD_RE = re.compile(r"[^\W\d_]+|\d+")
# The same words in lowercased ASCII text (where \w is [A-Za-z0-9_] and no A-Z is left): a
# pattern starting with a plain class runs at C speed over what it skips (45 -> 26 µs an abstract).
_ASCII_WORD_RE = re.compile(rb"[a-z]+|[0-9]+")


def dedup_key(raw: str) -> str:
    """Exact-duplicate key: equal across whitespace, case, quotes, dashes, LaTeX vs Unicode,
    emphasis markup, HTML entities, ligatures and invisible characters; words only."""
    return dedup_key_of_readable(readable_text(raw))


_MARKUP_BYTES = "".join(map(chr, _MARKUP)).encode("ascii")
_fold, _drop_markup = Translator(_FOLD), Translator(_MARKUP)


def stored_key(key: str) -> str:
    """What the database keeps of a duplicate key: its 128-bit BLAKE2b digest, in hex.

    A key is the abstract's whole normalised text; indexed as it was, the index was as big
    as the table (≈ 1.5 KB an abstract) and inserting into it dominated a big import.
    """
    return hashlib.blake2b(key.encode("utf-8"), digest_size=16).hexdigest()


# Non-ASCII characters that only ever stand between words: NFKC, casefold and _FOLD leave no
# letter or digit of them, none is deleted (as soft hyphens are) and none combines with what is
# around it. A third of real abstracts hold no other non-ASCII character (curly quotes, dashes,
# ×, °): with these made spaces they take the ASCII path (0.10 -> 0.05 ms an abstract).
_SEPARATORS = re.compile("[‘’‚‛′´“”„‟″«»‐‑‒–—―−×°]")


def dedup_key_of_readable(text: str) -> str:
    """``dedup_key`` of an abstract already turned into ``readable_text``."""
    if "&" in text:
        text = html.unescape(text)
    if not text.isascii():
        spaced = _SEPARATORS.sub(" ", text)
        if spaced.isascii():
            text = spaced
    if text.isascii():  # the common case, at C speed: NFKC, NFC and _FOLD leave ASCII as it is
        folded = text.lower().encode("ascii").translate(None, _MARKUP_BYTES)
        return b" ".join(_ASCII_WORD_RE.findall(folded)).decode("ascii")
    text = _fold(unicodedata.normalize("NFKC", text).casefold())
    # NFKC may leave combining marks after casefold (e.g. "İ"); recompose before tokenising.
    text = _drop_markup(unicodedata.normalize("NFC", text))
    return " ".join(_WORD_RE.findall(text))


@lru_cache(maxsize=65536)
def stem_word(word: str) -> str:
    """Lowercase + Snowball stem, exactly as Whoosh's StemmingAnalyzer indexes a token."""
    return stem(word.lower())
