"""Texts as ordered words with their sentences: what the verifier aligns and the sentence keys.

A truncated copy shares whole sentences (and the first or last words of a cut one) with its
original, a revised version shares most of its sentences; both are found as candidates by
keys of their sentences, where MinHash over the whole text sees too little in common.
Sentence ends are marked in the readable text before normalization, as a word no text holds,
and taken out again after: the words are exactly ``normalize(text).split()``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from desk.core.dedup.shingles import mix64, normalize

MARK = "qqdeskstopqq"
"""Stands for a sentence end while a text is normalized (letters only: it survives cleanup)."""
_END = re.compile(r"([.!?])\s+(?=[\"“'‘(\[]?[A-Z0-9])")
"""Whitespace after ``.!?`` before what starts a sentence: a sentence end (the punctuation kept)."""
_FULL_WIDTH_END = re.compile(r"[。！？]")
"""A full-width sentence end, which needs no space after it. Marked in a second pass: one pattern
for both (the second a lookbehind tried at every character) cost four times as much, a fifth
of hashing an abstract; neither kind of end can fall inside the other's match."""
KEY_WORDS = 6
"""A sentence of at least this many words gives keys: its whole word sequence, its first and its
last ``KEY_WORDS`` words (a copy cut inside a sentence keeps one end of it), and with the next
such sentence the ``2 * KEY_WORDS`` words around their boundary."""
_MIX = np.uint64(0x9E3779B97F4A7C15)


@dataclass(frozen=True)
class Structured:
    """Per text: 32-bit word hashes in order, sentence starts, and sentence keys."""

    words: list[np.ndarray]
    """uint32 per word of ``normalize(text).split()``."""
    starts: list[np.ndarray]
    """uint32 word positions where sentences start (the first is 0; empty for an empty text)."""
    keys: list[np.ndarray]
    """uint32 sentence keys, unique per text."""


def mark_sentences(text: str) -> str:
    """``text`` with each sentence end replaced by the marker word."""
    text = _END.sub(rf"\1 {MARK} ", text)
    return text if text.isascii() else _FULL_WIDTH_END.sub(rf"\g<0> {MARK} ", text)


def split_marked(normalized: str) -> tuple[list[str], list[int]]:
    """The words of a normalized marked text without the markers, and where sentences start."""
    tokens = normalized.split()
    words: list[str] = []
    starts = [0]
    at = 0
    while True:  # from marker to marker (list.index: a C scan, not a Python step per word)
        try:
            end = tokens.index(MARK, at)
        except ValueError:
            end = len(tokens)
        words += tokens[at:end]
        if end == len(tokens):
            break
        if len(words) > starts[-1]:
            starts.append(len(words))
        at = end + 1
    if starts[-1] == len(words) and len(starts) > 1:
        starts.pop()
    return words, starts if words else []


def sentence_words(texts: Sequence[str]) -> tuple[list[list[str]], list[list[int]]]:
    """Each readable text's words (``normalize(text).split()``) and its sentence starts."""
    words: list[list[str]] = []
    starts: list[list[int]] = []
    for text in texts:
        split, at = split_marked(normalize(mark_sentences(text)))
        words.append(split)
        starts.append(at)
    return words, starts


def normalized_sentences(texts: Sequence[str]) -> tuple[list[str], list[list[int]]]:
    """Each readable text normalized (as ``normalize`` gives it) and its sentence starts."""
    words, starts = sentence_words(texts)
    return [" ".join(split) for split in words], starts


_BASE = np.uint64(0x100000001B3)  # odd, so invertible modulo 2**64
_INVERSE = np.uint64(pow(0x100000001B3, -1, 1 << 64))
_TAGS = np.array(
    [0x51ED2701F3A5C7B9, 0x2545F4914F6CDD1D, 0x9E6C63D0676A9A99, 0xD1B54A32D192ED03], dtype=np.uint64
)


def structure(hashes: np.ndarray, counts: np.ndarray, starts: Sequence[Sequence[int]]) -> Structured:
    """Per-text words, sentence starts and keys from every text's 64-bit word hashes in one array
    (``counts`` words each) and the sentence starts of ``normalized_sentences``.

    A run of words hashes as a polynomial over the whole batch, cut and shifted back to its start
    (as ``shingles._hash_words`` hashes bytes): equal runs get equal keys wherever they stand.
    """
    offsets = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
    n = len(hashes)
    high = (hashes >> np.uint64(32)).astype(np.uint32)
    words = [high[offsets[k] : offsets[k + 1]] for k in range(len(counts))]
    out_starts = [np.asarray(at, dtype=np.uint32) for at in starts]
    sizes = np.fromiter((len(at) for at in starts), dtype=np.int64, count=len(starts))
    flat = np.concatenate([np.asarray(at, dtype=np.int64) for at in starts] or [np.zeros(0, np.int64)])
    text_of = np.repeat(np.arange(len(starts)), sizes)
    begin = flat + offsets[text_of]
    # A sentence ends where the next one of its text starts, or where the text ends.
    nxt = np.append(begin[1:], 0)
    last = np.append(text_of[1:] != text_of[:-1], True) if len(text_of) else np.zeros(0, bool)
    end = np.where(last, offsets[text_of + 1], nxt)
    long = (end - begin) >= KEY_WORDS
    begin, end, text_of = begin[long], end[long], text_of[long]
    keys: list[np.ndarray] = [np.zeros(0, dtype=np.uint32)] * len(counts)
    if n and len(begin):
        power = np.cumprod(np.broadcast_to(_BASE, (n,)))
        inverse = np.cumprod(np.broadcast_to(_INVERSE, (n,)))
        running = np.zeros(n + 1, dtype=np.uint64)
        np.cumsum(mix64(hashes) * power, out=running[1:])
        # Across each boundary of two long sentences side by side: the last words of one and the
        # first of the next (rare even where single sentences recur in many texts).
        joined = np.flatnonzero((text_of[1:] == text_of[:-1]) & (end[:-1] == begin[1:]))
        lo = np.concatenate((begin, begin, end - KEY_WORDS, end[joined] - KEY_WORDS))
        hi = np.concatenate((end, begin + KEY_WORDS, end, begin[joined + 1] + KEY_WORDS))
        tag = np.concatenate((np.repeat(_TAGS[:3], len(begin)), np.repeat(_TAGS[3:], len(joined))))
        runs = (running[hi] - running[lo]) * inverse[lo]
        found = (mix64(runs ^ tag) >> np.uint64(32)).astype(np.uint32)
        owner = np.concatenate((np.tile(text_of, 3), text_of[joined]))
        order = np.lexsort((found, owner))
        owner, found = owner[order], found[order]
        # Each text's keys once (np.unique of each text's run, for all texts in one pass).
        fresh = np.ones(len(found), dtype=bool)
        fresh[1:] = (found[1:] != found[:-1]) | (owner[1:] != owner[:-1])
        owner, found = owner[fresh], found[fresh]
        cuts = np.searchsorted(owner, np.arange(len(counts) + 1))
        keys = [found[cuts[k] : cuts[k + 1]] for k in range(len(counts))]
    return Structured(words, out_starts, keys)
