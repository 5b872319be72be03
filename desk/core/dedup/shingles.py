"""Text to comparable units: normalized words, 4-word shingle fingerprints, a cleanup fingerprint.

The input is the readable abstract (LaTeX already turned into Unicode by ``desk.core.text``);
what LaTeX survives, and the Unicode forms of math, normalize to the same words, so
``$O(n^2)$`` and ``O(n²)``, ``$\\alpha$`` and ``α``, ``\\times`` and ``×`` compare equal.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from hashlib import blake2b

import numpy as np

SHINGLE_WORDS = 4
"""Words per shingle: 3 shares too many template phrases, 5 loses too much to one typo."""
TAIL = 12
"""Shingles kept from a text's end: a truncated copy's end is found in the full text."""

_SCRIPTS = {
    **{sup: " ^" + base + " " for sup, base in zip("⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ⁿⁱ", "0123456789+-=()ni", strict=True)},
    **{sub: " _" + base + " " for sub, base in zip("₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎", "0123456789+-=()", strict=True)},
}
# Unicode math to the LaTeX command's name, so both renderings give the same word.
_SYMBOLS = {
    "×": "times", "≤": "leq", "≥": "geq", "≠": "neq", "≈": "approx", "→": "to", "←": "gets",
    "⇒": "implies", "∞": "infty", "∈": "in", "∑": "sum", "∏": "prod", "∫": "int", "±": "pm",
    "·": "cdot", "∼": "sim", "∇": "nabla", "∂": "partial", "∀": "forall", "∃": "exists",
    "√": "sqrt", "≪": "ll", "≫": "gg", "⊂": "subset", "⊆": "subseteq", "∩": "cap", "∪": "cup",
    "∘": "circ", "°": "circ", "ℓ": "ell", "∝": "propto", "⊕": "oplus", "⊗": "otimes", "…": "ldots",
}
_ALIASES = {"le": "leq", "ge": "geq", "ne": "neq", "rightarrow": "to", "leftarrow": "gets",
            "dots": "ldots", "cdots": "ldots", "varepsilon": "epsilon", "vartheta": "theta",
            "varphi": "phi", "Rightarrow": "implies", "mid": "", "left": "", "right": "",
            "big": "", "Big": "", "quad": "", "qquad": ""}
# Commands that only style their argument: dropped, the argument stays (joined: \\textbf{S}parse).
_STYLE_NAMES = (r"\\(?:text[a-z]*|math[a-z]*|emph|bm|boldsymbol|operatorname|url|mbox|hat|bar|tilde"
                r"|underline|overline|[dt]?frac)(?![a-z])")
_STYLED = re.compile(_STYLE_NAMES + r"\s*\{([^{}]*)\}", re.IGNORECASE)
_STYLE = re.compile(_STYLE_NAMES, re.IGNORECASE)
# A LaTeX exponent, braced or one character, set apart as its own word(s): D^2TR, D²TR.
_SCRIPT = re.compile(r"\^(?:\{([^{}]*)\}|(\w))")
_COMMAND = re.compile(r"\\([A-Za-z]+)")
_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
_HAS_CJK = re.compile(f"[{_CJK}]")
# Each CJK character is a word of its own (those scripts put no spaces between words).
_CJK_WORD = re.compile(f"[^\\s{_CJK}]+|[{_CJK}]")


def _symbol_table() -> dict[int, str]:
    table = {ord(c): " " + name + " " for c, name in _SYMBOLS.items()}
    for cp in range(0x391, 0x3CA):  # Greek letters by name, as \alpha spells them
        name = unicodedata.name(chr(cp), "")
        if name.startswith("GREEK") and " LETTER " in name:
            word = name.rsplit(" ", 1)[-1].lower()
            table[cp] = " " + ("lambda" if word == "lamda" else word) + " "
    return table


def _last_table() -> dict[int, str | None]:
    """Math by name; punctuation, symbols, spaces, controls and "_" to a space; accents dropped."""
    table: dict[int, str | None] = {}
    for cp in range(0x10000):
        category = unicodedata.category(chr(cp))
        if category[0] in "PSZC":
            table[cp] = " "
        elif category == "Mn":
            table[cp] = None
    return {**table, **_symbol_table()}


_SYMBOLS_TABLE = _symbol_table()
# Before NFKC, which would turn ² into 2 and ℓ into l; after it again, for ϕ → φ and the like.
_FIRST_TABLE = {**_SYMBOLS_TABLE, **{ord(c): s for c, s in _SCRIPTS.items()}}
_LAST_TABLE = _last_table()


def _command(match: re.Match[str]) -> str:
    name = match.group(1)
    return " " + _ALIASES.get(name, name) + " "


def normalize_words(text: str) -> list[str]:
    """Words of ``text`` after cleanup: math names, NFKC, casefold, punctuation and markup gone."""
    text = text.translate(_FIRST_TABLE).replace("$", "")  # math delimiters join: $\\textbf{S}$parse
    for _ in range(3):  # nested styles, innermost first
        text, found = _STYLED.subn(r"\1", text)
        if not found:
            break
    text = _STYLE.sub(" ", text)
    text = _SCRIPT.sub(lambda m: f" ^{m.group(1) or m.group(2)} ", text)
    text = _COMMAND.sub(_command, text)
    text = unicodedata.normalize("NFKC", text).casefold().translate(_LAST_TABLE)
    return _CJK_WORD.findall(text) if _HAS_CJK.search(text) else text.split()


_WORD_HASHES: dict[str, int] = {}
# Odd 64-bit multipliers, one per word position in a shingle.
_POSITION = np.array([0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9, 0xD6E8FEB86659FD93,
                      0xFF51AFD7ED558CCD, 0xC4CEB9FE1A85EC53][:SHINGLE_WORDS], dtype=np.uint64)


def _word_hash(word: str) -> int:
    """A stable 64-bit hash (Python's own ``hash`` changes between runs; the index is pickled)."""
    return int.from_bytes(blake2b(word.encode(), digest_size=8).digest(), "little")


def _word_hashes(word_lists: Sequence[Sequence[str]]) -> np.ndarray:
    """The hashes of all words of all texts, in order, through a cache of known words."""
    flat = [w for words in word_lists for w in words]
    missing = set(flat).difference(_WORD_HASHES)
    if missing:
        if len(_WORD_HASHES) + len(missing) > 2_000_000:
            _WORD_HASHES.clear()
            missing = set(flat)
        _WORD_HASHES.update((word, _word_hash(word)) for word in missing)
    return np.array(list(map(_WORD_HASHES.__getitem__, flat)), dtype=np.uint64)


def mix64(x: np.ndarray) -> np.ndarray:
    """The splitmix64 finalizer, element-wise on uint64 (wrapping arithmetic)."""
    x = x ^ (x >> np.uint64(30))
    x = x * np.uint64(0xBF58476D1CE4E5B9)
    x = x ^ (x >> np.uint64(27))
    x = x * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


def shingle_sets(word_lists: Sequence[Sequence[str]]) -> tuple[list[np.ndarray], np.ndarray]:
    """Each text's word shingles as 32-bit fingerprints: ``(sets, tails)``, vectorised over all texts.

    ``sets[i]`` is sorted and unique; ``tails[i]`` holds the last ``TAIL`` shingles in text order
    (the last one repeated when there are fewer), for telling a truncated copy's end. A text
    shorter than a shingle has one shingle, its whole word list; an empty one has none.
    """
    counts = np.fromiter((len(w) for w in word_lists), dtype=np.int64, count=len(word_lists))
    hashes = _word_hashes(word_lists)
    starts = np.zeros(len(counts), dtype=np.int64)
    np.cumsum(counts[:-1], out=starts[1:])
    ends = starts + counts
    windows = np.where(counts > 0, np.maximum(counts - SHINGLE_WORDS + 1, 1), 0)
    window_starts = np.cumsum(windows) - windows
    doc = np.repeat(np.arange(len(counts), dtype=np.int64), windows)
    first = np.repeat(starts, windows) + (np.arange(int(windows.sum())) - np.repeat(window_starts, windows))
    combined = np.zeros(len(first), dtype=np.uint64)
    if len(hashes):
        for j, weight in enumerate(_POSITION):
            at = first + j
            inside = at < ends[doc]
            combined += np.where(inside, hashes[np.minimum(at, len(hashes) - 1)], 0) * weight
    low = (mix64(combined) >> np.uint64(32)).astype(np.uint32)
    tails = np.zeros((len(counts), TAIL), dtype=np.uint32)
    if len(low):
        last = window_starts + windows - 1
        at = np.minimum(np.maximum(last - TAIL + 1, window_starts)[:, None] + np.arange(TAIL), last[:, None])
        tails = np.where((windows > 0)[:, None], low[np.clip(at, 0, len(low) - 1)], 0).astype(np.uint32)
    keys = np.sort((doc.astype(np.uint64) << np.uint64(32)) | low.astype(np.uint64))
    keys = keys[np.concatenate(([True], keys[1:] != keys[:-1]))] if len(keys) else keys
    bounds = np.searchsorted(keys >> np.uint64(32), np.arange(len(counts) + 1, dtype=np.uint64))
    unique = (keys & np.uint64(0xFFFFFFFF)).astype(np.uint32)
    return [unique[bounds[i]:bounds[i + 1]] for i in range(len(counts))], tails


def cleanup_fingerprint(words: Sequence[str]) -> int:
    """A 64-bit fingerprint of the normalized word sequence: equal when texts differ only in cleanup."""
    return int.from_bytes(blake2b("\x1f".join(words).encode(), digest_size=8).digest(), "little")
