"""Second-stage ranking: exact word forms and word proximity, read from the best candidates' text.

The first stage (ranking.py) scores every document from stemmed postings.
Stemming conflates words a researcher keeps apart ("performative" and
"performance" both stem to "perform") and postings say nothing about word
order, so the best ``RESCORE_DEPTH`` candidates get a bonus read from their
stored title, abstract and note, with the query's stems located by the same
Highlighter that makes the snippets (its matches are reused for them):

- exact form: a query word found in the form typed (up to a plural -s) earns
  the information the form adds to its stem, ``idf(form) - idf(stem)``, from
  the unstemmed lexicon's document counts; zero for "learning", large for
  "performative";
- proximity: consecutive query words found next to each other, in order, at
  most one word apart within a sentence, earn the idf of the pair itself: of the
  papers where the two stand together (a sequential-dependence bigram feature).
  "feature-based" stands together in 6 of 2,359 CVPR abstracts that hold "feature"
  and "based" in 124: a pair is rarer than its words, and a phrase index (FTS5's)
  ranks a paper holding a rare one first. The parts of one hyphenated word are
  such a pair too;
- one sentence: the query words found together in one sentence (or the title), in
  any order, earn the idf of all but the rarest of them, from the best sentence
  (a span feature: the abstract's sentence that says what the title says holds
  most of a known paper's words; papers that only scatter them do not).

Both are BM25-saturated in their counts and are added to the first stage's
relevance (which includes its bonus for each query part matched).
"""

from __future__ import annotations

import bisect
import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence

from desk.core.search.compiler import QueryWord
from desk.core.search.ranking import K1
from desk.core.search.snippets import Match

RESCORE_DEPTH = 50  # first-stage candidates rescored; the rest keep their order after them
EXACT_WEIGHT = 1.0
#: 0.5 before then 1.0 with the pair's mean idf; 0.5 again with the pair's own idf,
#: which is larger (the dev set's even-numbered papers, bench/relevance_tune.py)
PROXIMITY_WEIGHT = 0.5
SENTENCE_WEIGHT = 1.0  # chosen on the dev set's even-numbered papers (bench/relevance_dev.py)
MAX_GAP_WORDS = 1  # "loss of plasticity" is adjacent for "loss plasticity"
MAX_GAP_CHARS = 30

_GAP_WORD_RE = re.compile(r"\w+")
_SENTENCE_END_RE = re.compile(r"[.!?;](?=\s)")


def plural_base(word: str) -> str:
    """The singular of a lowercased English word by Harman's S-stemmer, and nothing more."""
    if len(word) > 3 and word.endswith("ies") and not word.endswith(("eies", "aies")):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("es") and not word.endswith(("aes", "ees", "oes")):
        return word[:-1]
    if len(word) > 2 and word.endswith("s") and not word.endswith(("us", "ss")):
        return word[:-1]
    return word


def forms(base: str) -> set[str]:
    """The words whose plural_base is ``base`` (the ones a lexicon may hold)."""
    found = {base, base + "s", base + "es"}
    if base.endswith("y"):
        found.add(base[:-1] + "ies")
    return {w for w in found if plural_base(w) == base}


def idf(df: int, n: int) -> float:
    """BM25's idf, as ranking.bm25f computes it."""
    return math.log(1 + (n - df + 0.5) / (df + 0.5))


def _saturate(tf: float) -> float:
    return tf * (K1 + 1) / (tf + K1)


class Rescorer:
    """The bonus of a candidate for one query's words."""

    def __init__(
        self,
        words: Sequence[QueryWord],
        doc_frequency: Callable[[str], int],
        word_counts: Mapping[str, int],
        n: int,
        pair_frequency: Callable[[str, str], int] | None = None,
    ) -> None:
        """``doc_frequency`` of a stem in the index; ``word_counts``: unstemmed word -> documents;
        ``pair_frequency``: how many documents hold two stems in a row (None: the pair's words'
        mean idf stands for the pair's)."""
        self.n = n
        self.pair_frequency = pair_frequency
        self.pair_idf: dict[tuple[int, int], float] = {}  # asked only of pairs a candidate holds
        self.words = list(words)
        self.idf: dict[str, float] = {}
        self.exact: dict[int, float] = {}  # word index -> idf gained by the exact form
        self.bases = [plural_base(w.surface) for w in self.words]
        for i, w in enumerate(self.words):
            df = doc_frequency(w.stem)
            if not df:
                continue
            self.idf[w.stem] = idf(df, n)
            family = min(df, sum(word_counts.get(f, 0) for f in forms(self.bases[i])))
            if family and (gain := idf(family, n) - self.idf[w.stem]) > 0:
                self.exact[i] = gain
        self.by_stem: dict[str, list[int]] = {}
        for i, w in enumerate(self.words):
            self.by_stem.setdefault(w.stem, []).append(i)
        at_slot: dict[int, list[int]] = {}
        for i, w in enumerate(self.words):
            if w.stem in self.idf:
                at_slot.setdefault(w.slot, []).append(i)
        # The parts of one hyphenated word ("fine-tuning") are each required already, but not
        # side by side: "feature-based" earns its rarity where the parts stand together.
        self.pairs = {
            (a, b) for slot, firsts in at_slot.items() for a in firsts for b in at_slot.get(slot + 1, ())
        }

    @property
    def _together(self) -> bool:
        """Whether words sharing a sentence can earn a bonus (two known words, a weight)."""
        return SENTENCE_WEIGHT > 0 and len(self.idf) > 1

    @property
    def active(self) -> bool:
        """False when no candidate can earn a bonus (one word of no distinctive form)."""
        return bool(self.exact or self.pairs or self._together)

    def bonus(self, texts: Iterable[tuple[str, list[Match]]]) -> float:
        """The bonus of one document from its texts and their Highlighter matches."""
        exact_tf: dict[int, int] = {}
        pair_tf: dict[tuple[int, int], int] = {}
        together = 0.0
        for text, matches in texts:
            if self._together:
                together = max(together, self._sentence(text, matches))
            for k, (start, end, term) in enumerate(matches):
                indexes = self.by_stem.get(term)
                if not indexes:
                    continue
                if self.exact:
                    base = plural_base(text[start:end].lower())
                    for i in indexes:
                        if i in self.exact and self.bases[i] == base:
                            exact_tf[i] = exact_tf.get(i, 0) + 1
                if self.pairs:
                    self._pairs(text, matches, k, indexes, pair_tf)
        total = sum(EXACT_WEIGHT * self.exact[i] * _saturate(tf) for i, tf in exact_tf.items())
        for (a, b), tf in pair_tf.items():
            total += PROXIMITY_WEIGHT * self._pair(a, b) * _saturate(tf)
        return total + SENTENCE_WEIGHT * together

    def _pair(self, a: int, b: int) -> float:
        """The idf of words ``a`` and ``b`` standing together (asked once a query)."""
        found = self.pair_idf.get((a, b))
        if found is None:
            first, second = self.words[a].stem, self.words[b].stem
            if self.pair_frequency is None:
                found = (self.idf[first] + self.idf[second]) / 2
            else:  # at least 1: a candidate holds the pair, whatever a sample of the others says
                found = idf(max(1, self.pair_frequency(first, second)), self.n)
            self.pair_idf[(a, b)] = found
        return found

    def _sentence(self, text: str, matches: list[Match]) -> float:
        """The idf of the query stems found in the best sentence of ``text``, all but the rarest's."""
        ends = [m.end() for m in _SENTENCE_END_RE.finditer(text)]
        found: dict[int, set[str]] = {}
        for start, _, term in matches:
            if term in self.idf:
                found.setdefault(bisect.bisect_left(ends, start), set()).add(term)
        best = 0.0
        for stems in found.values():
            if len(stems) > 1:
                values = [self.idf[t] for t in stems]
                best = max(best, sum(values) - max(values))
        return best

    def _pairs(
        self, text: str, matches: list[Match], k: int, firsts: list[int], pair_tf: dict[tuple[int, int], int]
    ) -> None:
        """Count the query-word pairs that match ``k`` starts with the matches right after it."""
        end = matches[k][1]
        for start, _, term in matches[k + 1 : k + 2 + MAX_GAP_WORDS]:
            gap = text[end:start]
            if len(gap) > MAX_GAP_CHARS or "." in gap or len(_GAP_WORD_RE.findall(gap)) > MAX_GAP_WORDS:
                return
            for b in self.by_stem.get(term, ()):
                for a in firsts:
                    if (a, b) in self.pairs:
                        pair_tf[(a, b)] = pair_tf.get((a, b), 0) + 1
