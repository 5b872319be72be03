"""'Did you mean': corrections of unknown query words from a lexicon of unstemmed words.

The lexicon is a small side file of the index (word, document count), not a
Whoosh field: a field of every unstemmed word would double the postings
written per abstract, and indexing speed is a product target.
"""

from __future__ import annotations

import os
from bisect import bisect_left
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path

from whoosh.automata.fsa import find_all_matches
from whoosh.automata.lev import levenshtein_automaton

from desk.core.search.query import Word
from desk.core.search.schema import analyze

MIN_LENGTH = 3  # shorter words are too often acronyms to correct
MAX_LENGTH = 40  # a longer "word" is pasted junk: its edit automaton would take seconds to build


class Lexicon:
    """Unstemmed words with the number of documents holding them."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path
        self.counts: dict[str, int] = {}
        self._sorted: list[str] | None = None
        self._stamp: tuple[int, int] | None = None
        self._memo: dict[str, str | None] = {}

    def __len__(self) -> int:
        return len(self.counts)

    def __contains__(self, word: str) -> bool:
        return word in self.counts

    def add(self, words: Iterable[str]) -> bool:
        """Count one document's words; True when a word was new."""
        return self.add_counts(dict.fromkeys(words, 1))

    def add_counts(self, counts: Mapping[str, int]) -> bool:
        """Add the word counts of many documents at once; True when a word was new."""
        new = False
        for w, k in counts.items():
            n = self.counts.get(w, 0)
            new = new or n == 0
            self.counts[w] = n + k
        if new:
            self._sorted = None
            self._memo.clear()
        return new

    def refresh(self) -> None:
        """Reload from disk when another writer changed the file."""
        if self.path is None:
            return
        try:
            st = self.path.stat()
        except OSError:
            self.counts, self._sorted, self._stamp = {}, None, None
            self._memo.clear()
            return
        stamp = (st.st_mtime_ns, st.st_size)
        if stamp == self._stamp:
            return
        counts: dict[str, int] = {}
        try:
            for line in self.path.read_text(encoding="utf-8").splitlines():
                word, _, n = line.partition("\t")
                if word and n.isdigit():
                    counts[word] = int(n)
        except (OSError, UnicodeDecodeError):
            counts = {}
        self.counts, self._sorted, self._stamp = counts, None, stamp
        self._memo.clear()

    def save(self, path: Path | None = None) -> None:
        """Write atomically (temp file + replace)."""
        target = path or self.path
        if target is None:
            return
        tmp = target.with_name(target.name + ".tmp")
        tmp.write_text("".join(f"{w}\t{n}\n" for w, n in sorted(self.counts.items())), encoding="utf-8")
        os.replace(tmp, target)
        if target == self.path:
            st = target.stat()
            self._stamp = (st.st_mtime_ns, st.st_size)

    def within(self, word: str, maxdist: int) -> list[str]:
        """Lexicon words within ``maxdist`` edits of ``word`` sharing its first letter."""
        if self._sorted is None:
            self._sorted = sorted(self.counts)
        data = self._sorted
        if not data:
            return []
        dfa = levenshtein_automaton(word, maxdist, 1).to_dfa()
        state = {"i": 0}

        # Whoosh's sorted-list skipper: next word >= w, or None.
        def lookup(w: str) -> str | None:
            i = bisect_left(data, w, state["i"])
            state["i"] = i
            return data[i] if i < len(data) else None

        return list(find_all_matches(dfa, lookup))

    def correct(self, word: str, stem_known: Callable[[str], bool]) -> str | None:
        """The most frequent close word for an unknown ``word``; None when known or hopeless."""
        w = word.lower()
        if w in self._memo:
            return self._memo[w]
        fix = self._correct(w, stem_known)
        if len(self._memo) > 4096:
            self._memo.clear()
        self._memo[w] = fix
        return fix

    def _correct(self, w: str, stem_known: Callable[[str], bool]) -> str | None:
        if not MIN_LENGTH <= len(w) <= MAX_LENGTH or not w.isalpha() or w in self.counts or not self.counts:
            return None
        stems = analyze(w)
        if not stems:  # a stop word
            return None
        # A misspelling that still stems to an indexed term already finds its
        # papers: only offer the properly spelled word of the same stem.
        same_stem = stem_known(stems[0])
        # Swapped letters ("modle") are two Levenshtein edits; count them as one.
        swaps = {w[:i] + w[i + 1] + w[i] + w[i + 2 :] for i in range(len(w) - 1)}
        for maxdist in (1, 2) if len(w) >= 5 else (1,):
            found = [c for c in self.within(w, maxdist) if c != w]
            if maxdist == 1:
                found += [c for c in swaps if c in self.counts and c != w]
            if same_stem:
                found = [c for c in found if analyze(c) == stems]
            if found:
                return max(sorted(set(found)), key=lambda c: self.counts.get(c, 0))
        return None


def corrections(
    lexicon: Lexicon, query: str, words: Sequence[Word], stem_known: Callable[[str], bool]
) -> dict[tuple[int, int], str]:
    """(start, end) in ``query`` of each unknown typed word -> its correction."""
    out: dict[tuple[int, int], str] = {}
    for w in words:
        if w.prefix or w.end <= w.start or query[w.start : w.end] != w.text:
            continue
        fix = lexicon.correct(w.text, stem_known)
        if fix is not None:
            out[(w.start, w.end)] = fix
    return out


def apply(query: str, fixes: dict[tuple[int, int], str]) -> str | None:
    """``query`` with the corrections of ``fixes`` put in, or None when there are none."""
    if not fixes:
        return None
    out = query
    for (start, end), fix in sorted(fixes.items(), reverse=True):
        out = out[:start] + fix + out[end:]
    return out
