"""The spelling lexicon's counts held compactly: sorted words in one UTF-8 buffer, counts in numpy.

A dict of a million words (a recombined corpus's mutated acronyms are words of their own) held
~170 MB in the window: a str object, an int and a hash slot per word. Here the words a file
holds, sorted, are one ``bytes`` buffer with an array of where each starts (int64) and one of
their counts (int64): ~20 MB for the same million. A word is found by bisection (UTF-8 bytes
sort as the code points of their text do, so the order is ``sorted()``'s); words added since
the file was read (an import, a note) wait in a small dict until they are folded in.

Parsing a file is numpy over its bytes (newlines, tabs, digits), not a Python loop per line;
the rule is the lexicon's: a line is ``word<TAB>count`` with a non-empty word and a count of
decimal digits, and the last such line of a word is its count.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable, Iterator, Mapping

import numpy as np

MAX_DIGITS = 18  # a count longer than this (never written by desk) sends the file to the slow parse
FOLD_AT = 65_536  # words waiting beside the buffer that are folded into it
BATCH_LOOKUP = 2_000  # words looked up at once from which their first bytes narrow the search
_INT64_MAX = int(np.iinfo(np.int64).max)


def _encode(word: str) -> bytes:
    # surrogatepass: a probe string of an edit automaton may hold any code point; its bytes still
    # sort as its code points do
    return word.encode("utf-8", "surrogatepass")


class WordCounts:
    """Word -> count: sorted words in one buffer (``base``) and a dict of words not in it."""

    def __init__(self, buf: bytes = b"", starts: np.ndarray | None = None, counts: np.ndarray | None = None):
        self._buf = buf
        self._starts = np.zeros(1, np.int64) if starts is None else np.ascontiguousarray(starts, np.int64)
        self._vals = np.zeros(0, np.int64) if counts is None else counts  # n, beside the words
        self._at: memoryview = self._starts.data  # Python ints from the offsets, quickly
        self._extra: dict[str, int] = {}
        self._extra_sorted: list[str] | None = None

    # ---- building ------------------------------------------------------------------------

    @classmethod
    def from_items(cls, items: Iterable[tuple[str, int]]) -> WordCounts:
        """Counts of ``items`` (the last count of a word given twice)."""
        merged: dict[str, int] = {}
        for word, n in items:
            merged[word] = n
        return cls._of_sorted(sorted(merged.items()))

    @classmethod
    def _of_sorted(cls, items: list[tuple[str, int]]) -> WordCounts:
        encoded = [_encode(w) for w, _ in items]
        starts = np.zeros(len(encoded) + 1, np.int64)
        np.cumsum([len(b) for b in encoded], out=starts[1:])
        counts = np.array([min(n, _INT64_MAX) for _, n in items], np.int64)
        return cls(b"".join(encoded), starts, counts)

    @classmethod
    def parse(cls, raw: bytes) -> WordCounts | None:
        """The counts of a lexicon file's bytes (valid UTF-8, "\\n" line ends only), or None when a
        line needs the slow parse (a count of non-ASCII digits, or longer than MAX_DIGITS)."""
        arr = np.frombuffer(raw, np.uint8)
        if not len(arr):
            return cls()
        newlines = np.flatnonzero(arr == 10)
        starts = np.concatenate(([0], newlines + 1))
        ends = np.concatenate((newlines, [len(arr)]))
        del newlines
        tabs = np.flatnonzero(arr == 9)
        first = np.searchsorted(tabs, starts)
        has = first < len(tabs)
        tab = np.where(has, tabs[np.minimum(first, max(0, len(tabs) - 1))] if len(tabs) else 0, 0)
        del tabs, first
        has &= (tab < ends) & (tab > starts)  # a tab on the line, after a non-empty word
        digits = np.where(has, ends - tab - 1, 0)
        if np.any(has & (digits > MAX_DIGITS)):
            return None
        high = np.flatnonzero(arr >= 0x80)  # non-ASCII bytes: none may be in a count
        if len(high):
            line = np.searchsorted(starts, high, side="right") - 1
            if np.any(has[line] & (high > tab[line])):
                return None
        del high
        ok = has & (digits >= 1)
        value = np.zeros(len(starts), np.int64)
        for j in range(int(digits[ok].max()) if ok.any() else 0):
            m = ok & (digits > j)
            byte = arr[tab[m] + 1 + j].astype(np.int64) - 48
            good = (byte >= 0) & (byte <= 9)
            ok[np.flatnonzero(m)[~good]] = False
            value[m] = value[m] * 10 + np.where(good, byte, 0)
        keep = np.flatnonzero(ok)
        wstart, wend, value = starts[keep], tab[keep], value[keep]
        del starts, ends, tab, has, digits, ok, keep
        run = _sorted_run(arr, wstart, wend)  # the file's first block, as save() writes it
        lens = wend[:run] - wstart[:run]
        delta = np.zeros(len(arr) + 1, np.int8)  # +1 where a word starts, -1 at its tab
        delta[wstart[:run]] = 1
        delta[wend[:run]] = -1
        inside = np.cumsum(delta[:-1], dtype=np.int8).astype(bool)
        del delta
        buf = arr[inside].tobytes()
        del inside
        offsets = np.zeros(run + 1, np.int64)
        np.cumsum(lens, out=offsets[1:])
        out = cls(buf, offsets, value[:run].copy())
        rest = [raw[s:e] for s, e in zip(wstart[run:].tolist(), wend[run:].tolist(), strict=True)]
        places = out._find_many(rest).tolist()
        vals, extra = out._vals, out._extra
        for key, place, n in zip(rest, places, value[run:].tolist(), strict=True):
            if place >= 0:  # appended edits: the last line of a word wins
                vals[place] = n
            else:
                extra[key.decode("utf-8")] = n
        return out

    # ---- looking up ----------------------------------------------------------------------

    def _index(self, key: bytes, lo: int = 0, hi: int = -1) -> int:
        """The first position of the buffer's words in [lo, hi) whose word is >= key (hi if none)."""
        buf, at = self._buf, self._at
        hi = len(self._vals) if hi < 0 else hi
        while lo < hi:
            mid = (lo + hi) // 2
            if buf[at[mid] : at[mid + 1]] < key:
                lo = mid + 1
            else:
                hi = mid
        return lo

    def _find(self, word: str) -> int:
        """The buffer position of ``word``, or -1."""
        key = _encode(word)
        i = self._index(key)
        if i < len(self._vals) and self._buf[self._at[i] : self._at[i + 1]] == key:
            return i
        return -1

    def _find_many(self, keys: list[bytes]) -> np.ndarray:
        """The buffer positions of many encoded words (-1 for a word not there): the words' first
        8 bytes, as integers, narrow each search to the words sharing them (numpy), then bisection."""
        out = np.full(len(keys), -1, np.int64)
        n = len(self._vals)
        if not keys or not n:
            return out
        if len(keys) < BATCH_LOOKUP:
            for i, key in enumerate(keys):
                j = self._index(key)
                if j < n and self._buf[self._at[j] : self._at[j + 1]] == key:
                    out[i] = j
            return out
        arr = np.frombuffer(self._buf, np.uint8)
        prefixes = _key(arr, self._starts[:-1], np.diff(self._starts), 0)  # non-decreasing
        probe = np.array([int.from_bytes(k[:8].ljust(8, b"\0"), "big") for k in keys], np.uint64)
        los = np.searchsorted(prefixes, probe, "left").tolist()
        his = np.searchsorted(prefixes, probe, "right").tolist()
        del prefixes, probe
        buf, at = self._buf, self._at
        for i, (key, lo, hi) in enumerate(zip(keys, los, his, strict=True)):
            if lo < hi:
                j = self._index(key, lo, hi)
                if j < hi and buf[at[j] : at[j + 1]] == key:
                    out[i] = j
        return out

    def add_counts(self, counts: Mapping[str, int]) -> bool:
        """Add ``counts`` to the words' counts; True when a word had none (or 0) before."""
        new = False
        extra = self._extra
        rest = [w for w in counts if w not in extra]
        for w in counts.keys() & extra.keys() if len(extra) else ():
            new = new or extra[w] == 0
            extra[w] += counts[w]
        places = self._find_many([_encode(w) for w in rest])
        found = places >= 0
        if found.any():
            at = places[found]
            old = self._vals[at]
            new = new or bool((old == 0).any())
            self._vals[at] = old + np.array(
                [counts[w] for w, f in zip(rest, found.tolist(), strict=True) if f], np.int64
            )
        for w, f in zip(rest, found.tolist(), strict=True):
            if not f:
                extra[w] = counts[w]
                new = True
                self._extra_sorted = None
        return new

    def _word(self, i: int) -> str:
        return self._buf[self._at[i] : self._at[i + 1]].decode("utf-8", "surrogatepass")

    def get(self, word: str) -> int | None:
        """The count of ``word``, None when it has none."""
        if word in self._extra:
            return self._extra[word]
        i = self._find(word)
        return int(self._vals[i]) if i >= 0 else None

    def set(self, word: str, n: int) -> None:
        """Set the count of ``word``."""
        i = self._find(word) if word not in self._extra else -1
        if i >= 0:
            self._vals[i] = min(n, _INT64_MAX)
            return
        if word not in self._extra:
            self._extra_sorted = None
        self._extra[word] = n

    def __len__(self) -> int:
        return len(self._vals) + len(self._extra)

    def non_ascii_words(self) -> list[str]:
        """Every word holding a non-ASCII character (numpy over the buffer's bytes, then the dict)."""
        high = np.flatnonzero(np.frombuffer(self._buf, np.uint8) >= 0x80)
        out: list[str] = []
        if len(high):
            rows = np.searchsorted(self._starts, high, side="right") - 1  # sorted: high is
            first = np.ones(len(rows), bool)
            first[1:] = rows[1:] != rows[:-1]
            out = [self._word(i) for i in rows[first].tolist()]
        out += [w for w in self._extra if not w.isascii()]
        return out

    def at_least(self) -> _AtLeast:
        """A lookup of the first word >= a probe, for probes that only grow (an automaton's walk)."""
        if self._extra_sorted is None:
            self._extra_sorted = sorted(self._extra)
        return _AtLeast(self, self._extra_sorted)

    def items(self) -> Iterator[tuple[str, int]]:
        """Every (word, count) in sorted order."""
        extra = sorted(self._extra.items())
        j = 0
        vals = self._vals
        for i in range(len(vals)):
            word = self._word(i)
            while j < len(extra) and extra[j][0] < word:
                yield extra[j]
                j += 1
            yield word, int(vals[i])
        yield from extra[j:]

    def fold(self) -> None:
        """Put the words waiting in the dict into the buffer (their sorted places)."""
        if not self._extra:
            return
        extra = sorted((_encode(w), n) for w, n in self._extra.items())
        places = [self._index(key) for key, _ in extra]  # each extra word is not in the buffer
        pieces: list[bytes] = []
        lens = np.diff(self._starts)
        new_lens = np.insert(lens, places, [len(key) for key, _ in extra])
        counts = np.insert(self._vals, places, [min(n, _INT64_MAX) for _, n in extra])
        prev = 0
        for (key, _), place in zip(extra, places, strict=True):
            cut = int(self._starts[place])
            pieces.append(self._buf[prev:cut])
            pieces.append(key)
            prev = cut
        pieces.append(self._buf[prev:])
        starts = np.zeros(len(new_lens) + 1, np.int64)
        np.cumsum(new_lens, out=starts[1:])
        self.__init__(b"".join(pieces), starts, counts)  # type: ignore[misc]

    def maybe_fold(self) -> None:
        """Fold when many words wait beside the buffer (a dict costs ~150 bytes a word)."""
        if len(self._extra) >= FOLD_AT:
            self.fold()

    def lines(self, chunk: int = 65_536) -> Iterator[bytes]:
        """The file's text for every word in order, ``chunk`` lines at a time (folds first)."""
        self.fold()
        buf, at, vals = self._buf, self._at, self._vals.tolist()
        for lo in range(0, len(vals), chunk):
            hi = min(lo + chunk, len(vals))
            yield b"".join(
                buf[at[i] : at[i + 1]] + b"\t" + str(vals[i]).encode() + b"\n" for i in range(lo, hi)
            )

    def as_dict(self) -> dict[str, int]:
        """Every count as a dict (tests and small lexicons)."""
        return dict(self.items())

    def update(self, counts: Mapping[str, int]) -> None:
        """Set each count of ``counts``."""
        for word, n in counts.items():
            self.set(word, n)


class _AtLeast:
    """``lookup(w)``: the first word >= w of the buffer and the waiting words (w only grows)."""

    def __init__(self, counts: WordCounts, extra: list[str]) -> None:
        self.counts = counts
        self.extra = extra
        self.lo = 0
        self.lo_extra = 0

    def __call__(self, probe: str) -> str | None:
        counts = self.counts
        self.lo = counts._index(_encode(probe), self.lo)
        self.lo_extra = bisect_left(self.extra, probe, self.lo_extra)
        base = counts._word(self.lo) if self.lo < len(counts._vals) else None
        other = self.extra[self.lo_extra] if self.lo_extra < len(self.extra) else None
        if base is None or (other is not None and other < base):
            return other
        return base


def _sorted_run(arr: np.ndarray, start: np.ndarray, end: np.ndarray) -> int:
    """How many of the words [start, end) of ``arr``, from the first, are in strictly increasing
    byte order (compared 8 bytes at a time, as big-endian integers padded with zeros)."""
    n = len(start)
    if n < 2:
        return n
    lens = end - start
    cmp = np.zeros(n - 1, np.int8)  # sign of word[i + 1] - word[i]; 0: not decided yet
    tied = np.arange(n - 1)
    k = 0
    while len(tied):
        a, b = tied, tied + 1
        ka, kb = _key(arr, start[a], lens[a], k), _key(arr, start[b], lens[b], k)
        cmp[tied] = (kb > ka).astype(np.int8) - (kb < ka).astype(np.int8)
        k += 8
        equal = cmp[tied] == 0
        longer = np.maximum(lens[a], lens[b]) > k
        settled = equal & ~longer  # equal as far as either goes: the shorter is first
        cmp[tied[settled]] = np.sign(lens[b[settled]] - lens[a[settled]]).astype(np.int8)
        tied = tied[equal & longer]
    bad = np.flatnonzero(cmp <= 0)
    return int(bad[0]) + 1 if len(bad) else n


def _key(arr: np.ndarray, start: np.ndarray, lens: np.ndarray, k: int) -> np.ndarray:
    """Bytes [k, k + 8) of each word as a big-endian uint64, zero past the word's end."""
    key = np.zeros(len(start), np.uint64)
    last = len(arr) - 1
    for j in range(8):
        byte = arr[np.minimum(start + (k + j), last)].astype(np.uint64)
        byte[lens <= k + j] = 0
        key <<= np.uint64(8)
        key |= byte
    return key
