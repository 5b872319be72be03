"""'Did you mean': corrections of unknown query words from a lexicon of unstemmed words.

The lexicon is a small side file of the index (word, document count), not a
Whoosh field: a field of every unstemmed word would double the postings
written per abstract, and indexing speed is a product target.
"""

from __future__ import annotations

import os
import re
import unicodedata
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from whoosh.automata.fsa import find_all_matches
from whoosh.automata.lev import levenshtein_automaton

from desk.core.search.schema import analyze

# The query language's words are only named here: a note's commit (`desk note`) counts its words
# in here and corrects none, and does not load the query language (~6 ms). WordCounts is numpy's:
# loaded when the file is parsed, not by a command's few lookups.
if TYPE_CHECKING:
    from desk.core.search.query import Word
    from desk.core.search.wordcounts import WordCounts

MIN_LENGTH = 3  # shorter words are too often acronyms to correct
MAX_LENGTH = 40  # a longer "word" is pasted junk: its edit automaton would take seconds to build
KNOWN = 3  # a word in this many papers is the library's own: never corrected
RARER = 20  # a word in fewer papers is corrected only into one this many times as common
#: Words looked up in the file's text before it is parsed whole: a lookup scans the text (about
#: 0.3 ms at 100k papers), a parse costs about 300 of them; a window that keeps the lexicon
#: across edits parses it once, a one-shot command only looks up its few words.
SCANS_BEFORE_PARSE = 256
COMPLETE_FROM = 4  # a word this long that starts known words is completed, not corrected
COMPLETIONS_SCANNED = 256  # words starting so looked at for the commonest (a bounded walk)
COMPACT_SHARE = 4  # the file is written whole again once the lines appended reach 1/4 of its words


#: Line ends str.splitlines() knows besides "\n": a file holding one is parsed whole at once.
# a lexicon line's word holding a non-ASCII character (the file's text, unparsed)
_NON_ASCII_WORD = re.compile(r"^([^\t\n]*[^\x00-\x7f][^\t\n]*)\t", re.MULTILINE)
_OTHER_LINE_ENDS = re.compile("[\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")


class Lexicon:
    """Unstemmed words with the number of documents holding them.

    ``lazy`` (a process that exits after one command): the file is read on refresh, but parsed
    into a dict only when the whole lexicon is wanted (a correction's neighbours, a rewrite); a
    search's or an edit's few words are looked up in its text (the last valid line of a word is
    its count, as the parse has it), a fraction of parsing 150k lines. Otherwise (the window) it
    is parsed on refresh, once, into compact sorted arrays (``WordCounts``: ~20 MB, not a dict's
    ~170 MB, at a million words), and every later lookup is a bisection.
    """

    def __init__(self, path: Path | None = None, *, lazy: bool = False) -> None:
        self.path = path
        self.lazy = lazy  # refresh keeps the text (a one-shot command), else parses it at once
        self._counts: WordCounts | None = None  # None: not parsed yet (see _raw)
        self._raw = "\n"  # "\n" + the file's text, while _counts is None
        self._over: dict[str, int] = {}  # counts changed since the file was read, while unparsed
        self._found: dict[str, int | None] = {}  # words looked up in _raw
        self._scans = 0  # words looked up in _raw since it was read
        self._stamp: tuple[int, int] | None = None
        self._memo: dict[tuple[str, bool], str | None] = {}
        self._folds: dict[str, list[str]] | None = None  # unaccented form -> accented words
        self._changed: set[str] = set()  # words counted since the file was last written
        self._appended = 0  # lines appended to the file since it was last written whole

    @property
    def counts(self) -> Mapping[str, int]:
        """Word -> documents; ``get``, ``[]`` and ``in`` look the word up without parsing the file."""
        return _Counts(self)

    def __len__(self) -> int:
        return len(self._all())

    def __contains__(self, word: str) -> bool:
        return self._value(word) is not None

    def count(self, word: str) -> int:
        """Documents holding ``word`` (0 when none)."""
        return self._value(word) or 0

    def _all(self) -> WordCounts:
        """Every word's count, the file parsed now if it was not yet."""
        if self._counts is None:
            counts = _parse(self._raw[1:].encode("utf-8"), self._raw)
            counts.update(self._over)
            self._counts, self._raw, self._over, self._found = counts, "", {}, {}
        return self._counts

    def _value(self, word: str) -> int | None:
        if self._counts is not None:
            return self._counts.get(word)
        if word in self._over:
            return self._over[word]
        if word in self._found:
            return self._found[word]
        if not word or "\t" in word or "\n" in word or _OTHER_LINE_ENDS.search(word):
            return None  # no line of the file gives such a word (parsed, it holds none either)
        self._scans += 1
        if self._scans > SCANS_BEFORE_PARSE:  # a long-lived process: parsed once, then a dict
            return self._all().get(word)
        raw, key = self._raw, f"\n{word}\t"
        found: int | None = None
        at = raw.rfind(key)
        while at >= 0:  # the last line of the word whose count is a number (refresh's rule)
            start = at + len(key)
            stop = raw.find("\n", start)
            n = raw[start:] if stop < 0 else raw[start:stop]
            if n.isdecimal():
                found = int(n)
                break
            at = raw.rfind(key, 0, at)
        if len(self._found) > 4096:
            self._found.clear()
        self._found[word] = found
        return found

    def add(self, words: Iterable[str]) -> bool:
        """Count one document's words; True when a word was new."""
        return self.add_counts(dict.fromkeys(words, 1))

    def add_counts(self, counts: Mapping[str, int]) -> bool:
        """Add the word counts of many documents at once; True when a word was new."""
        held = self._counts
        if held is not None:  # parsed: found in the buffer many at once (an import's batch)
            new = held.add_counts(counts)
            held.maybe_fold()
        else:
            new = False
            for w, k in counts.items():
                n = self.count(w)  # may parse the file (after SCANS_BEFORE_PARSE lookups)
                new = new or n == 0
                if self._counts is not None:
                    self._counts.set(w, n + k)
                else:
                    self._over[w] = n + k
        self._changed.update(counts)
        if new:
            self._memo.clear()
            self._folds = None
        return new

    def refresh(self) -> None:
        """Reload from disk when another writer changed the file."""
        if self.path is None:
            return
        try:
            st = self.path.stat()
        except OSError:
            self._counts, self._stamp = None, None
            self._raw, self._over, self._found = "\n", {}, {}
            self._memo.clear()
            self._folds = None
            return
        stamp = (st.st_mtime_ns, st.st_size)
        if stamp == self._stamp:
            return
        try:
            raw = self.path.read_bytes()
            text = raw.decode("utf-8")
        except (OSError, UnicodeDecodeError):
            raw, text = b"", ""
        self._raw, self._over, self._found = "", {}, {}
        self._scans = 0
        if not self.lazy or _OTHER_LINE_ENDS.search(text):
            self._counts = _parse(raw, "\n" + text)
        else:
            self._counts, self._raw = None, "\n" + text
        del raw, text
        self._stamp = stamp
        self._memo.clear()
        self._folds = None
        self._changed.clear()
        self._appended = 0

    def save(self, path: Path | None = None) -> None:
        """Write atomically (temp file + replace)."""
        target = path or self.path
        if target is None:
            return
        tmp = target.with_name(target.name + ".tmp")
        with tmp.open("wb") as fh:  # every word in sorted order, a chunk of lines at a time
            for chunk in self._all().lines():
                fh.write(chunk)
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
        due = (self._appended + len(self._changed)) * COMPACT_SHARE
        # Unparsed, the file's first block (written whole: one line per word) bounds its words
        # from below: an append it allows is one the parsed count allows too.
        bound = self._whole_lines() if self._counts is None else len(self._counts)
        if self._stamp is None or (due > bound and due > len(self._all())):
            self.save()
            return
        lines = "".join(f"{w}\t{n}\n" for w in sorted(self._changed) if (n := self._value(w)) is not None)
        with self.path.open("a", encoding="utf-8") as fh:
            fh.write("\n" + lines)
        self._appended += len(self._changed)
        self._changed.clear()
        self._note_stamp()

    def _whole_lines(self) -> int:
        """Lines of the file's first block (up to the first blank line: where appends begin)."""
        end = self._raw.find("\n\n", 1)
        return self._raw.count("\n", 1, len(self._raw) if end < 0 else end + 1)

    def _note_stamp(self) -> None:
        if self.path is not None:
            st = self.path.stat()
            self._stamp = (st.st_mtime_ns, st.st_size)

    def within(self, word: str, maxdist: int) -> list[str]:
        """Lexicon words within ``maxdist`` edits of ``word`` sharing its first letter."""
        data = self._all()
        if not len(data):
            return []
        dfa = levenshtein_automaton(word, maxdist, 1).to_dfa()
        # Whoosh's sorted-list skipper: next word >= w, or None (w only grows along the walk).
        return list(find_all_matches(dfa, data.at_least()))

    def completion(self, word: str) -> str | None:
        """The commonest longer word starting with ``word`` ("netw": "network"); None when none."""
        data = self._all()
        if not len(data):
            return None
        after = data.at_least()
        best: tuple[int, str] | None = None
        probe = word + "\x00"
        for _ in range(COMPLETIONS_SCANNED):
            found = after(probe)
            if found is None or not found.startswith(word):
                break
            n = self.count(found)
            if best is None or n > best[0]:
                best = (n, found)
            probe = found + "\x00"
        return best[1] if best is not None else None

    def accented(self, word: str) -> list[str]:
        """The lexicon's words that are ``word`` with accents ("nystrom": "nyström"), most used first."""
        w = word.lower()
        if not MIN_LENGTH < len(w) <= MAX_LENGTH or not w.isascii() or not w.isalpha():
            return []
        found = self._accented_words().get(w, [])
        return sorted(found, key=lambda c: (-self.count(c), c))

    def _accented_words(self) -> dict[str, list[str]]:
        """Unaccented form -> the lexicon's words that fold to it. A library's words with accents
        are few (names, a loanword), so they are gathered once, by one pass of C code over the
        file's text or its words' bytes, not by an edit automaton walked over every word each
        time a query word is looked up (most of a one-shot search's time)."""
        if self._folds is None:
            if self._counts is None:
                words = _NON_ASCII_WORD.findall(self._raw)
                words += [w for w in self._over if not w.isascii()]
            else:
                words = self._counts.non_ascii_words()
            folds: dict[str, list[str]] = {}
            for c in set(words):
                if c.isalpha() and (plain := unaccented(c)) != c and plain.isascii():
                    folds.setdefault(plain, []).append(c)
            self._folds = folds
        return self._folds

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
        if not MIN_LENGTH <= len(w) <= MAX_LENGTH or not w.isalpha():
            return None
        own = self.count(w)
        if own >= KNOWN or not analyze(w):  # the library's own word, or a stop word
            return None
        # A word a paper or two uses (a typo in an abstract) gives way only to a far commoner one.
        least = max(1, RARER * own)
        if len(w) >= COMPLETE_FROM:  # the start of a word ("graph neural netw"): its completion
            whole = self.completion(w)
            if whole is not None and self.count(whole) >= least:
                return whole
        # Swapped letters ("modle", "shapely") are two Levenshtein edits; count them as one.
        swaps = {w[:i] + w[i + 1] + w[i] + w[i + 2 :] for i in range(len(w) - 1)}
        for maxdist in (1, 2) if len(w) >= 5 and not inflection else (1,):
            found = set(self.within(w, maxdist))
            if maxdist == 1:
                found.update(c for c in swaps if c in self)
            found.discard(w)
            found = {c for c in found if self.count(c) >= least}
            if found:
                return max(sorted(found), key=self.count)
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
        if lexicon.accented(w.text):  # written without its accents: found as it is (variants)
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
# query has is also searched as the other when a paper of the library uses it. Each rule: its
# pattern, the replacement, and the letters the pattern cannot match without. A rule is compiled
# by the first search with a word holding those letters (~3 ms of look-behinds for all eleven: a
# `desk search` process compiled them all for any query), not by a note's commit.
_SPELLINGS = (
    (r"isation", "ization", "isation"),
    (r"ization", "isation", "ization"),
    (r"(?<=\w{3})is(e|es|ed|ing|er|ers)$", r"iz\1", "is"),
    (r"(?<=\w{3})iz(e|es|ed|ing|er|ers)$", r"is\1", "iz"),
    (r"ys(e|es|ed|ing)$", r"yz\1", "ys"),
    (r"yz(e|es|ed|ing)$", r"ys\1", "yz"),
    (r"(?<=\w{3})our(s|ed|ing|al)?$", r"or\1", "our"),
    (r"(?<=\w{3})or(s|ed|ing|al)?$", r"our\1", "or"),
    (r"ell(ing|ed|er|ers)$", r"el\1", "ell"),
    (r"(?<=\w)el(ing|ed|er|ers)$", r"ell\1", "el"),
    (r"(?<=\w{3})tre(s)?$", r"ter\1", "tre"),
)


@cache
def _spelling_rule(k: int) -> re.Pattern[str]:
    return re.compile(_SPELLINGS[k][0])


def other_spellings(text: str) -> set[str]:
    """What each rule makes of ``text`` (its first match replaced), ``text`` itself left out; a rule
    whose letters ``text`` lacks cannot match it and is not compiled."""
    found = {
        _spelling_rule(k).sub(repl, text, count=1)
        for k, (_, repl, needs) in enumerate(_SPELLINGS)
        if needs in text
    }
    return found - {text}


def unaccented(text: str) -> str:
    """``text`` without its accents ("nyström": "nystrom"): letters only, marks dropped."""
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))


def spelling_variants(
    lexicon: Lexicon, query: str, words: Sequence[Word]
) -> dict[tuple[int, int], list[str]]:
    """(start, end) of typed words -> the other spellings of them papers use: British and
    American ("modelling": "modeling"), and a word typed without its accents ("Nystrom": "nyström")."""
    out: dict[tuple[int, int], list[str]] = {}
    for w in words:
        text = w.text.lower()
        if w.prefix or w.field is not None or not text.isalpha() or query[w.start : w.end] != w.text:
            continue
        own = analyze(text)
        found = other_spellings(text) | set(lexicon.accented(text))
        kept = sorted(v for v in found if lexicon.count(v) and analyze(v) != own)
        if kept:
            out[(w.start, w.end)] = kept
    return out


def _parse(raw: bytes, text: str) -> WordCounts:
    """The counts of a lexicon file: its bytes parsed by numpy (WordCounts.parse), or, for a file
    with other line ends than "\n" or a count not of ASCII digits, its ``text`` line by line
    (str.splitlines' lines: the last of a word whose count is a number is its count)."""
    from desk.core.search.wordcounts import WordCounts

    if not _OTHER_LINE_ENDS.search(text):
        fast = WordCounts.parse(raw)
        if fast is not None:
            return fast
    items = []
    for line in text.splitlines():
        word, _, n = line.partition("\t")
        if word and n.isdecimal():
            items.append((word, int(n)))
    return WordCounts.from_items(items)


class _Counts(Mapping[str, int]):
    """A lexicon's counts as a read-only mapping: a word looked up alone parses nothing."""

    def __init__(self, lexicon: Lexicon) -> None:
        self._lexicon = lexicon

    def __getitem__(self, word: str) -> int:
        value = self._lexicon._value(word)
        if value is None:
            raise KeyError(word)
        return value

    def __contains__(self, word: object) -> bool:
        return isinstance(word, str) and word in self._lexicon

    def __iter__(self) -> Iterator[str]:
        return (word for word, _ in self._lexicon._all().items())

    def __len__(self) -> int:
        return len(self._lexicon._all())
