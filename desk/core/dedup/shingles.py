"""Text to comparable units: normalized words, 4-word shingle fingerprints, a cleanup fingerprint.

The input is the readable abstract (LaTeX already turned into Unicode by ``desk.core.text``);
what LaTeX survives, and the Unicode forms of math, normalize to the same words, so
``$O(n^2)$`` and ``O(n²)``, ``$\\alpha$`` and ``α``, ``\\times`` and ``×`` compare equal.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import chain

import numpy as np

from desk.core.text.translate import Translator

SHINGLE_WORDS = 4
"""Words per shingle: 3 shares too many template phrases, 5 loses too much to one typo."""
TAIL = 12
"""Shingles kept from a text's end: a truncated copy's end is found in the full text."""

_SCRIPTS = {
    **{sup: " ^" + base + " " for sup, base in zip("⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ⁿⁱᵀ", "0123456789+-=()niT", strict=True)},
    **{
        sub: " _" + base + " "
        for sub, base in zip("₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎ₐₑₒₓₕₖₗₘₙₚₛₜᵢⱼ", "0123456789+-=()aeoxhklmnpstij", strict=True)
    },
}
# Unicode math to the LaTeX command's name, so both renderings give the same word.
_SYMBOL_CHARS = "×≤≥≠≈→←⇒∞∈∑∏∫±·∼∇∂∀∃√≪≫⊂⊆∩∪∘°ℓ∝⊕⊗"
_SYMBOL_NAMES = (
    "times leq geq neq approx to gets implies infty in sum prod int pm cdot sim nabla partial forall "
    "exists sqrt ll gg subset subseteq cap cup circ circ ell propto oplus otimes"
)
_SYMBOLS = dict(zip(_SYMBOL_CHARS, _SYMBOL_NAMES.split(), strict=True))
# LaTeX commands spelt another way, and ones that say nothing (… is punctuation, and ends cut copies).
_ALIAS_PAIRS = (
    "le:leq ge:geq ne:neq rightarrow:to leftarrow:gets Rightarrow:implies ldots: dots: cdots: "
    "varepsilon:epsilon vartheta:theta varphi:phi mid: left: right: big: Big: quad: qquad:"
)
_ALIASES = dict(pair.split(":") for pair in _ALIAS_PAIRS.split())
# Commands that only style their argument: dropped, the argument stays (joined: \\textbf{S}parse).
_STYLE_NAMES = (
    r"\\(?:text[a-z]*|math[a-z]*|emph|bm|boldsymbol|operatorname|url|mbox|hat|bar|tilde"
    r"|underline|overline|[dt]?frac)(?![a-z])"
)
_STYLED = re.compile(_STYLE_NAMES + r"\s*\{([^{}]*)\}", re.IGNORECASE)
_STYLE = re.compile(_STYLE_NAMES, re.IGNORECASE)
# A LaTeX exponent, braced or one character, set apart as its own word(s): D^2TR, D²TR.
_SCRIPT = re.compile(r"\^(?:\{([^{}]*)\}|(\w))")
_COMMAND = re.compile(r"\\([A-Za-z]+)")
_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
_CJK_CHAR = re.compile(f"[{_CJK}]")  # each a word: those scripts put no spaces between words


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
_first, _last = Translator(_FIRST_TABLE), Translator(_LAST_TABLE)
_ASCII_LAST = bytes(ord(_LAST_TABLE.get(b) or chr(b)) if b < 128 else b for b in range(256))


def _command(match: re.Match[str]) -> str:
    name = match.group(1)
    return " " + _ALIASES.get(name, name) + " "


def _spaces_only(candidates: str) -> str:
    """The ``candidates`` (non-ASCII) that the general path below turns into one space and nothing
    else, whatever stands around them: NFKC leaves them as they are (so none combines), casefold
    too, and the last table makes them a space."""
    return "".join(
        c
        for c in candidates
        if unicodedata.normalize("NFKC", c) == c and c.casefold() == c and _last(c) == " "
    )


# Curly quotes and dashes: a third of real abstracts hold no other non-ASCII character; with
# them made spaces (as the general path makes them) they take the ASCII path (85 -> 8 µs).
_SPACED = re.compile(f"[{_spaces_only('‘’‚‛′“”„‟«»‐‑‒–—―−')}]")


def normalize(text: str) -> str:
    """``text`` after cleanup, words separated by spaces: math by name, NFKC, casefold,
    punctuation and markup gone, each CJK character a word."""
    if not text.isascii():  # the table maps no ASCII character
        text = _first(text)
    text = text.replace("$", "")  # math delimiters join: $\\textbf{S}$parse
    if "\\" in text:  # what LaTeX is left: every pattern below but _SCRIPT starts with a backslash
        for _ in range(3):  # nested styles, innermost first
            text, found = _STYLED.subn(r"\1", text)
            if not found:
                break
        text = _STYLE.sub(" ", text)
    if "^" in text:
        text = _SCRIPT.sub(lambda m: f" ^{m.group(1) or m.group(2)} ", text)
    if "\\" in text:
        text = _COMMAND.sub(_command, text)
    if not text.isascii():
        spaced = _SPACED.sub(" ", text)
        if spaced.isascii():
            text = spaced
    if text.isascii():  # NFKC leaves ASCII as it is, casefold is lower: one C-speed table
        return text.lower().encode("ascii").translate(_ASCII_LAST).decode("ascii")
    text = _last(unicodedata.normalize("NFKC", text).casefold())
    return _CJK_CHAR.sub(r" \g<0> ", text) if _CJK_CHAR.search(text) else text


def mix64(x: np.ndarray) -> np.ndarray:
    """The splitmix64 finalizer, element-wise on uint64 (wrapping arithmetic)."""
    x = x ^ (x >> np.uint64(30))
    x = x * np.uint64(0xBF58476D1CE4E5B9)
    x = x ^ (x >> np.uint64(27))
    x = x * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


# Odd 64-bit multipliers, one per word position in a shingle.
_POSITION = np.array([0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9, 0xD6E8FEB86659FD93,
                      0xFF51AFD7ED558CCD][:SHINGLE_WORDS], dtype=np.uint64)  # fmt: skip
_SPACE, _NEWLINE = ord(" "), ord("\n")
_BYTE_BASE = np.uint64(0x100000001B3)  # odd, so invertible modulo 2**64
_BYTE_INVERSE = np.uint64(pow(0x100000001B3, -1, 1 << 64))


def _hash_words(texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """``(hashes, counts)``: a stable 64-bit hash of every word of the normalized texts, in order,
    and each text's word count. Computed on the UTF-8 bytes of all texts at once, no Python string
    per word: a polynomial hash over the whole batch, cut per word and shifted back to its start."""
    data = np.frombuffer("\n".join(texts).encode("utf-8"), dtype=np.uint8)
    sep = data <= _SPACE  # normalized text keeps no other control or space character
    edge = np.diff(np.concatenate(([1], sep.view(np.int8), [1])))
    starts, ends = np.flatnonzero(edge == -1), np.flatnonzero(edge == 1)  # each word is data[start:end]
    power = np.cumprod(np.broadcast_to(_BYTE_BASE, data.shape))  # base**(i+1), wrapping as meant
    running = np.zeros(len(data) + 1, dtype=np.uint64)
    np.cumsum(np.where(sep, 0, data.astype(np.uint64) + np.uint64(1)) * power, out=running[1:])
    del power
    inverse = np.cumprod(np.broadcast_to(_BYTE_INVERSE, data.shape))  # base**-(i+1)
    sums = (running[ends] - running[starts]) * inverse[starts]
    hashes = mix64(sums ^ ((ends - starts).astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15)))
    doc = np.searchsorted(np.flatnonzero(data == _NEWLINE), starts)
    return hashes, np.bincount(doc, minlength=len(texts)).astype(np.int64)


_WORD_HASH: dict[str, int] = {}  # word -> its _hash_words() hash, in this process
_WORD_HASH_LIMIT = 500_000  # words remembered before the table starts again (memory)


def word_hashes(texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """What ``_hash_words(texts)`` gives: the hash of a word depends on the word alone, so each
    distinct word is hashed once (with ``_hash_words``) and looked up after; the vocabulary of
    abstracts is small beside their text."""
    return _hashed([t.split() for t in texts])  # the only spaces normalized text keeps are " "


def _hashed(split: Sequence[list[str]]) -> tuple[np.ndarray, np.ndarray]:
    """``word_hashes`` of texts given as their lists of words."""
    words = list(chain.from_iterable(split))
    missing = set(words).difference(_WORD_HASH)
    if missing:
        if len(_WORD_HASH) + len(missing) > _WORD_HASH_LIMIT:
            _WORD_HASH.clear()
            missing = set(words)
        new = list(missing)
        _WORD_HASH.update(zip(new, _hash_words(new)[0].tolist(), strict=True))
    hashes = np.fromiter(map(_WORD_HASH.__getitem__, words), dtype=np.uint64, count=len(words))
    return hashes, np.fromiter(map(len, split), dtype=np.int64, count=len(split))


@dataclass(frozen=True)
class Shingled:
    """Texts as shingles: what the verifier compares."""

    sets: list[np.ndarray]
    """Per text, the sorted unique 32-bit fingerprints of its word shingles."""
    tails: np.ndarray
    """``(n, TAIL)``: the last shingles in text order (the last repeated when fewer)."""
    cleanup: np.ndarray
    """Per text, a 64-bit fingerprint of its word sequence: equal when texts differ only in cleanup."""
    hashes: np.ndarray
    """Every text's 64-bit word hashes in order, one array for all."""
    counts: np.ndarray
    """Words per text."""


def shingle(normalized: Sequence[str]) -> Shingled:
    """Shingle texts that went through ``normalize``, vectorised over all of them.

    A text shorter than a shingle has one shingle, its whole word list; an empty one has none.
    """
    return shingle_words([t.split() for t in normalized])


def shingle_words(split: Sequence[list[str]]) -> Shingled:
    """``shingle`` of normalized texts given as their words (``text.split()`` of each)."""
    hashes, counts = _hashed(split)
    starts = np.zeros(len(counts), dtype=np.int64)
    np.cumsum(counts[:-1], out=starts[1:])
    ends = starts + counts
    at_word = (np.arange(len(hashes)) - np.repeat(starts, counts)).astype(np.uint64)
    running = np.concatenate((np.zeros(1, np.uint64), np.cumsum(mix64(hashes + at_word * _POSITION[1]))))
    cleanup = running[ends] - running[starts]  # an order-aware sum over each text's words
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
    sets = [unique[bounds[i] : bounds[i + 1]] for i in range(len(counts))]
    return Shingled(sets, tails, cleanup, hashes, counts)
