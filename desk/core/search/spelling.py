"""'Did you mean': corrections of unknown query words from a lexicon of unstemmed words.

The lexicon is a small side file of the index (word, document count), not a
Whoosh field: a field of every unstemmed word would double the postings
written per abstract, and indexing speed is a product target.
"""

from __future__ import annotations

import os
import re
from bisect import bisect_left
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path

from whoosh.automata.fsa import find_all_matches
from whoosh.automata.lev import levenshtein_automaton

from desk.core.search.query import Word
from desk.core.search.schema import analyze

MIN_LENGTH = 3  # shorter words are too often acronyms to correct
MAX_LENGTH = 40  # a longer "word" is pasted junk: its edit automaton would take seconds to build
KNOWN = 3  # a word in this many papers is the library's own: never corrected
RARER = 20  # a word in fewer papers is corrected only into one this many times as common
COMPACT_SHARE = 4  # the file is written whole again once the lines appended reach 1/4 of its words


class Lexicon:
    """Unstemmed words with the number of documents holding them."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path
        self.counts: dict[str, int] = {}
        self._sorted: list[str] | None = None
        self._stamp: tuple[int, int] | None = None
        self._memo: dict[tuple[str, bool], str | None] = {}
        self._changed: set[str] = set()  # words counted since the file was last written
        self._appended = 0  # lines appended to the file since it was last written whole

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
        self._changed.update(counts)
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
        self._changed.clear()
        self._appended = 0

    def save(self, path: Path | None = None) -> None:
        """Write atomically (temp file + replace)."""
        target = path or self.path
        if target is None:
            return
        tmp = target.with_name(target.name + ".tmp")
        tmp.write_text("".join(f"{w}\t{n}\n" for w, n in sorted(self.counts.items())), encoding="utf-8")
        os.replace(tmp, target)
        if target == self.path:
            self._changed.clear()
            self._appended = 0
            self._note_stamp()

    def save_changes(self) -> None:
        """Write the counts changed since the last write (an edit's few words), appended to the file.

        A word's last line is its count (refresh reads them in order), so a note's save costs its
        own words, not the whole lexicon (tens of milliseconds at 10k papers). The file is written
        whole again once the appended lines reach a quarter of its words. The block starts on a
        line of its own: a line a kill cut short is one malformed line, which refresh skips.
        """
        if self.path is None:
            return
        if self._stamp is None or (self._appended + len(self._changed)) * COMPACT_SHARE > len(self.counts):
            self.save()
            return
        lines = "".join(f"{w}\t{self.counts[w]}\n" for w in self._changed if w in self.counts)
        with self.path.open("a", encoding="utf-8") as fh:
            fh.write("\n" + lines)
        self._appended += len(self._changed)
        self._changed.clear()
        self._note_stamp()

    def _note_stamp(self) -> None:
        if self.path is not None:
            st = self.path.stat()
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
        """The most frequent close word for a word the library (nearly) lacks; None when known or hopeless.

        A typed word whose stem is indexed (``stem_known``) is an inflection the library has:
        it is corrected only by one slip (a swapped, doubled, missing or wrong letter:
        "shapely" stems to "shape", but a library with Shapley means that), never by two
        edits into another word ("signing", a form of "sign", is not "skinning").
        """
        w = word.lower()
        stems = analyze(w) if MIN_LENGTH <= len(w) <= MAX_LENGTH else []
        key = (w, len(stems) == 1 and stem_known(stems[0]))
        if key in self._memo:
            return self._memo[key]
        fix = self._correct(*key)
        if len(self._memo) > 4096:
            self._memo.clear()
        self._memo[key] = fix
        return fix

    def _correct(self, w: str, inflection: bool) -> str | None:
        if not MIN_LENGTH <= len(w) <= MAX_LENGTH or not w.isalpha() or not self.counts:
            return None
        own = self.counts.get(w, 0)
        if own >= KNOWN or not analyze(w):  # the library's own word, or a stop word
            return None
        # A word a paper or two uses (a typo in an abstract) gives way only to a far commoner one.
        least = max(1, RARER * own)
        # Swapped letters ("modle", "shapely") are two Levenshtein edits; count them as one.
        swaps = {w[:i] + w[i + 1] + w[i] + w[i + 2 :] for i in range(len(w) - 1)}
        for maxdist in (1, 2) if len(w) >= 5 and not inflection else (1,):
            found = set(self.within(w, maxdist))
            if maxdist == 1:
                found.update(c for c in swaps if c in self.counts)
            found.discard(w)
            found = {c for c in found if self.counts.get(c, 0) >= least}
            if found:
                return max(sorted(found), key=lambda c: self.counts.get(c, 0))
        return None


def corrections(
    lexicon: Lexicon, query: str, words: Sequence[Word], stem_known: Callable[[str], bool]
) -> dict[tuple[int, int], str]:
    """(start, end) in ``query`` of each unknown typed word -> its correction.

    A word typed with capitals past its first letter ("SINE", "OmniMAE", "SMARTer") is a name
    written as its authors write it, not a slip of the keys: it is left as typed.
    """
    out: dict[tuple[int, int], str] = {}
    for w in words:
        if w.prefix or w.end <= w.start or query[w.start : w.end] != w.text or _named(w.text):
            continue
        fix = lexicon.correct(w.text, stem_known)
        if fix is not None:
            out[(w.start, w.end)] = fix
    return out


def _named(word: str) -> bool:
    """Whether a typed word has a capital past its first letter."""
    return any(c.isupper() for c in word[1:])


def other_word(typed: str, fix: str, lexicon: Lexicon) -> bool:
    """True when a typed word no paper uses stems to another word than its correction.

    "shapely" stems to "shape", Shapley's stem is "shapley": the typed stem's papers are about
    shapes, so the word is searched as its correction only. "debluring" stems to "deblur",
    "deblurring" to "deblurr": one family, both searched.
    """
    if typed.lower() in lexicon:
        return False
    own, fixed = analyze(typed), analyze(fix)
    return len(own) == len(fixed) == 1 and not _one_edit(own[0], fixed[0])


def _one_edit(a: str, b: str) -> bool:
    """Whether ``a`` and ``b`` are at most one insertion, deletion or substitution apart."""
    if abs(len(a) - len(b)) > 1:
        return False
    if len(a) > len(b):
        a, b = b, a
    i = 0
    while i < len(a) and a[i] == b[i]:
        i += 1
    return a[i + (len(a) == len(b)) :] == b[i + 1 :]


def apply(query: str, fixes: dict[tuple[int, int], str]) -> str | None:
    """``query`` with the corrections of ``fixes`` put in, or None when there are none."""
    if not fixes:
        return None
    out = query
    for (start, end), fix in sorted(fixes.items(), reverse=True):
        out = out[:start] + fix + out[end:]
    return out


# British and American spellings of one word ("generalisation", "generalization"): each form a
# query has is also searched as the other when a paper of the library uses it.
_SPELLINGS = [
    (re.compile(a), b)
    for a, b in (
        (r"isation", "ization"),
        (r"ization", "isation"),
        (r"(?<=\w{3})is(e|es|ed|ing|er|ers)$", r"iz\1"),
        (r"(?<=\w{3})iz(e|es|ed|ing|er|ers)$", r"is\1"),
        (r"ys(e|es|ed|ing)$", r"yz\1"),
        (r"yz(e|es|ed|ing)$", r"ys\1"),
        (r"(?<=\w{3})our(s|ed|ing|al)?$", r"or\1"),
        (r"(?<=\w{3})or(s|ed|ing|al)?$", r"our\1"),
        (r"ell(ing|ed|er|ers)$", r"el\1"),
        (r"(?<=\w)el(ing|ed|er|ers)$", r"ell\1"),
        (r"(?<=\w{3})tre(s)?$", r"ter\1"),
    )
]


def spelling_variants(
    lexicon: Lexicon, query: str, words: Sequence[Word]
) -> dict[tuple[int, int], list[str]]:
    """(start, end) of typed words -> the other spellings of them ("modelling": "modeling") papers use."""
    out: dict[tuple[int, int], list[str]] = {}
    for w in words:
        text = w.text.lower()
        if w.prefix or w.field is not None or not text.isalpha() or query[w.start : w.end] != w.text:
            continue
        own = analyze(text)
        found = {rule.sub(repl, text, count=1) for rule, repl in _SPELLINGS} - {text}
        kept = sorted(v for v in found if lexicon.counts.get(v, 0) and analyze(v) != own)
        if kept:
            out[(w.start, w.end)] = kept
    return out
