"""The verifier: what kind of copy one text is of another, and how much they share.

Three tests on the ordered words and sentences of two texts (``sentences.Structured``):

* **truncation**: the shorter text is one stretch of the longer — its 4-word shingles are found
  in the longer one from its first to its last (a cut word or a typo aside), each where the
  others place it. A paper opening like another one is not: its text goes on where they part.
* **revision**: most sentences of the two are matched one to one (a matched sentence keeps
  half of its content words: numbers changed, words swapped or dropped), at least three of them,
  mostly in order; each counts by the share of its words kept. Papers sharing an introduction
  or a definition share two sentences of eight.
* **edited**: the shingle Jaccard of the whole texts (typos, reordering, a sentence added).

The offered ``score`` is the best passing test's figure; a failing test gives a figure below
``DEFAULT_THRESHOLD``, so the bench can say how close the hardest look-alike came.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np

from desk.core.dedup.shingles import SHINGLE_WORDS, mix64, word_hashes

DEFAULT_THRESHOLD = 0.6
"""Offered at or above this score (see the module doc and ``bench/dedup_bench.py``)."""
EXACT, TRUNCATION, REVISION = "exact", "truncation", "revision"
KINDS = (EXACT, TRUNCATION, REVISION)

MIN_TRUNCATION_WORDS = 25
"""A shorter text must have this many words to be called a truncated copy (one sentence is not)."""
TRUNCATION_COVERED = 0.9
"""...and this share of its shingles found in the longer text (a typo loses up to four)."""
MAX_UNMATCHED_END = 3
"""Shingles at either end of the shorter text allowed to be missing (a cut word, an ellipsis)."""
OFFSET_SLACK = 3
"""Words a shingle of a cut copy may stand away from where the copy's others place it."""
MAX_TRUNCATION_RATIO = 0.98
"""A text found whole in one nearly as long (a word or two more) is an edit of it, not a cut copy."""
SENTENCE_MATCH = 0.5
"""Two sentences match when they share this share of the larger one's content words."""
MIN_SHARED_SENTENCES = 3
REVISION_SHARED = 0.6
"""Share of all sentences (both texts') matched, at least, for a revision."""
IN_ORDER = 0.6
"""Share of the matched sentences that must stand in the same order."""
_FUNCTION_WORDS = """a an the of and or to in on for with by from at as is are was were be been being
this that these those it its we our us they their them which who whom whose what when where while
than then there here such both each also not no can could may might will would shall should do does
did has have had into onto over under between through across via per about using based new our
however thus hence moreover furthermore further first second third one two three"""


@dataclass(frozen=True)
class Match:
    """How two texts compare (``a`` and ``b`` in the order given to ``compare``)."""

    kind: str
    """"exact", "truncation" or "revision"."""
    score: float
    """What the offer threshold is compared with."""
    similarity: float
    """How much the two share, as a reader would say it: 1.0 equal after cleanup; for a
    truncation the shorter's share of the longer's length times the share of it found there;
    for a revision (and other edits) the share of sentences matched."""
    containment: float
    """How much of the shorter text is in the longer one (its shingles; sentences for a revision)."""
    length_ratio: float
    """The shorter text's words over the longer's."""
    a_is_shorter: bool
    reordered: bool = False
    """A revision whose matched sentences stand in another order."""

    @property
    def offered(self) -> bool:
        """Whether the pair is offered as a near-duplicate."""
        return self.score >= DEFAULT_THRESHOLD

    def flipped(self) -> Match:
        """The same match with ``a`` and ``b`` swapped."""
        return Match(
            self.kind,
            self.score,
            self.similarity,
            self.containment,
            self.length_ratio,
            not self.a_is_shorter,
            self.reordered,
        )


def describe(match: Match, a: str = "A", b: str = "B") -> str:
    """The match in words: "B is 45 % of A, all of it in A", "88 % of sentences shared"."""
    if match.kind == EXACT:
        return "the same text after cleanup"
    if match.kind == TRUNCATION:
        short, long = (a, b) if match.a_is_shorter else (b, a)
        share = _percent(match.length_ratio)
        found = "all of it" if match.containment >= 0.995 else f"{_percent(match.containment)} of it"
        return f"{short} is {share} of {long}, {found} in {long}"
    words = f"{_percent(match.similarity)} of sentences shared"
    return words + (", in another order" if match.reordered else "")


def describe_link(a: int, b: int, match: Match) -> str:
    """One link in words, papers named by id: "#40 is 45 % of #12, all of it in #12"."""
    text = describe(match, f"#{a}", f"#{b}")
    if match.kind == EXACT:
        return f"#{a} and #{b} are {text}"
    return text if match.kind == TRUNCATION else f"#{a} and #{b}: {text}"


def _percent(value: float) -> str:
    """A share as a whole percentage, rounded down (99.6 % is not "100 %")."""
    return f"{int(value * 100 + 1e-9)} %"


# -- the tests ---------------------------------------------------------------------------------

_POSITION = np.array([0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9, 0xD6E8FEB86659FD93,
                      0xFF51AFD7ED558CCD][:SHINGLE_WORDS], dtype=np.uint64)  # fmt: skip


def ordered_shingles(words: np.ndarray) -> np.ndarray:
    """The 4-word shingles of a text in order (its whole word list when shorter)."""
    w = words.astype(np.uint64)
    n = len(w) - SHINGLE_WORDS + 1
    if n < 1:
        return mix64(np.array([np.sum(w * _POSITION[: len(w)])], dtype=np.uint64)) if len(w) else w
    total = np.zeros(n, dtype=np.uint64)
    for j, weight in enumerate(_POSITION):
        total += w[j : j + n] * weight
    return mix64(total)


@cache
def function_words() -> frozenset[int]:
    """The 32-bit word hashes (as ``sentences.structure`` keeps them) of English function words."""
    hashes, _ = word_hashes([" ".join(_FUNCTION_WORDS.split())])
    return frozenset((hashes >> np.uint64(32)).astype(np.uint32).tolist())


def _truncation(short: np.ndarray, ss: np.ndarray, ls: np.ndarray) -> tuple[float, float, float]:
    """(containment, score) of ``short`` as one stretch of ``long``, and the Jaccard of their
    shingle sets (from the same lookups).

    Each shingle of the shorter text found in the longer one votes for an offset (its place
    there minus its place here); a cut copy's shingles agree on one offset, give or take a word
    or two that an edit moved. Shingles that agree count as found: a phrase the longer text
    repeats elsewhere, or another paper's opening followed by other text, does not.
    """
    if not len(ss) or not len(ls):
        return 0.0, 0.0, 0.0
    order = np.argsort(ls, kind="stable")
    ordered = ls[order]
    lo, hi = np.searchsorted(ordered, ss, "left"), np.searchsorted(ordered, ss, "right")
    counts = hi - lo
    mine = np.sort(ss)
    first_of_mine = np.concatenate(([True], mine[1:] != mine[:-1]))
    size_long = 1 + int(np.count_nonzero(ordered[1:] != ordered[:-1]))
    size_short = int(np.count_nonzero(first_of_mine))
    present = np.searchsorted(ordered, mine[first_of_mine], "right") > np.searchsorted(
        ordered, mine[first_of_mine], "left"
    )
    shared = int(np.count_nonzero(present))
    jaccard = shared / (size_short + size_long - shared)
    if not counts.any():
        return 0.0, 0.0, jaccard
    at_short = np.repeat(np.arange(len(ss)), counts)
    first = np.repeat(lo - np.cumsum(counts) + counts, counts)
    at_long = order[first + np.arange(len(at_short))]
    offsets = at_long - at_short + len(ss)
    mode = int(np.argmax(np.bincount(offsets)))
    agree = np.abs(offsets - mode) <= OFFSET_SLACK
    found = np.zeros(len(ss), dtype=bool)
    found[at_short[agree]] = True
    containment = float(found.mean())
    if len(short) < MIN_TRUNCATION_WORDS:
        return containment, 0.5 * containment, jaccard
    hits = np.flatnonzero(found)
    ends_found = hits[0] <= MAX_UNMATCHED_END and len(ss) - 1 - hits[-1] <= MAX_UNMATCHED_END
    if ends_found and containment >= TRUNCATION_COVERED:
        return containment, containment, jaccard
    return containment, min(0.5 * containment, DEFAULT_THRESHOLD - 0.01), jaccard


def sentence_sets(words: np.ndarray, starts: np.ndarray) -> list[set[int]]:
    """The content words of each sentence, as sets (the plain form of ``scored_sentence_pairs``)."""
    skip = function_words()
    if not len(starts):
        return []
    ends = [*starts.tolist()[1:], len(words)]
    listed = words.tolist()
    return [set(listed[a:b]) - skip for a, b in zip(starts.tolist(), ends, strict=True)]


def _longest_increasing(values: list[int]) -> int:
    tails: list[int] = []
    for v in values:
        at = int(np.searchsorted(np.asarray(tails, dtype=np.int64), v)) if tails else 0
        if at == len(tails):
            tails.append(v)
        else:
            tails[at] = v
    return len(tails)


def _function_array() -> np.ndarray:
    global _FUNCTION_ARRAY
    if _FUNCTION_ARRAY is None:
        _FUNCTION_ARRAY = np.array(sorted(function_words()), dtype=np.uint32)
    return _FUNCTION_ARRAY


_FUNCTION_ARRAY: np.ndarray | None = None


def content_mask(words: np.ndarray) -> np.ndarray:
    """Which words are not function words (a sorted lookup: ``np.isin`` costs more on short arrays)."""
    skip = _function_array()
    at = np.minimum(np.searchsorted(skip, words), len(skip) - 1)
    return skip[at] != words


def _incidence(words: np.ndarray, starts: np.ndarray, vocab: np.ndarray, keep: np.ndarray) -> np.ndarray:
    """``(sentences, len(vocab))``: which content words each sentence holds."""
    out = np.zeros((len(starts), len(vocab)), dtype=np.int32)
    if len(starts):
        sentence = np.repeat(np.arange(len(starts)), np.diff(np.append(starts.astype(np.int64), len(words))))
        out[sentence[keep], np.searchsorted(vocab, words[keep])] = 1
    return out


def scored_sentence_pairs(
    words_a: np.ndarray, starts_a: np.ndarray, words_b: np.ndarray, starts_b: np.ndarray
) -> tuple[list[tuple[float, int, int]], int, int]:
    """Every pair of sentences sharing ``SENTENCE_MATCH`` of the larger one's content words, as
    ``(share, i, j)`` best first (ties: later sentences first), and how many sentences of each
    text have content words. One matrix product over the pair's vocabulary; ``sentence_sets``
    says the same with Python sets (a test compares them)."""
    keep_a, keep_b = content_mask(words_a), content_mask(words_b)
    vocab = np.unique(np.concatenate([words_a[keep_a], words_b[keep_b]]))
    ia = _incidence(words_a, starts_a, vocab, keep_a)
    ib = _incidence(words_b, starts_b, vocab, keep_b)
    size_a, size_b = ia.sum(axis=1), ib.sum(axis=1)
    common = ia @ ib.T
    larger = np.maximum(size_a[:, None], size_b[None, :])
    ok = (common > 0) & (common >= SENTENCE_MATCH * larger)
    i, j = np.nonzero(ok)
    share = common[i, j] / larger[i, j]
    order = np.lexsort((-j, -i, -share))
    pairs = list(zip(share[order].tolist(), i[order].tolist(), j[order].tolist(), strict=True))
    return pairs, int(np.count_nonzero(size_a)), int(np.count_nonzero(size_b))


def _sentences(
    words_a: np.ndarray, starts_a: np.ndarray, words_b: np.ndarray, starts_b: np.ndarray
) -> tuple[float, float, float, bool]:
    """(share of all sentences matched, share of the shorter's matched, score, reordered)."""
    scored, m, n = scored_sentence_pairs(words_a, starts_a, words_b, starts_b)
    if not m or not n:
        return 0.0, 0.0, 0.0, False
    used_a: set[int] = set()
    used_b: set[int] = set()
    pairs = []
    weight = 0.0
    for sim, i, j in scored:
        if i not in used_a and j not in used_b:
            used_a.add(i)
            used_b.add(j)
            pairs.append((i, j))
            weight += sim
    matched = len(pairs)
    share = 2 * weight / (m + n)  # a sentence matched with half its words changed counts half
    contained = weight / min(m, n)
    in_order = _longest_increasing([j for _, j in sorted(pairs)]) if pairs else 0
    reordered = in_order < matched
    passes = matched >= MIN_SHARED_SENTENCES and in_order >= IN_ORDER * matched
    score = share if passes else min(share, DEFAULT_THRESHOLD - 0.01)
    return share, contained, score, reordered


def compare(
    words_a: np.ndarray,
    starts_a: np.ndarray,
    words_b: np.ndarray,
    starts_b: np.ndarray,
    exact: bool = False,
) -> Match:
    """How text ``b`` compares with text ``a`` (their ``Structured`` words and sentence starts);
    ``exact`` when they are equal after cleanup."""
    la, lb = len(words_a), len(words_b)
    a_short = la <= lb
    ratio = min(la, lb) / max(la, lb, 1)
    if exact or (la and np.array_equal(words_a, words_b)):
        return Match(EXACT, 1.0, 1.0, 1.0, 1.0, a_short)
    shingles_a, shingles_b = ordered_shingles(words_a), ordered_shingles(words_b)
    short, ss, ls = (words_a, shingles_a, shingles_b) if a_short else (words_b, shingles_b, shingles_a)
    contained, trunc_score, jaccard = _truncation(short, ss, ls)
    if trunc_score >= DEFAULT_THRESHOLD and ratio < MAX_TRUNCATION_RATIO:
        return Match(TRUNCATION, trunc_score, ratio * contained, contained, ratio, a_short)
    share, in_shorter, sent_score, reordered = _sentences(words_a, starts_a, words_b, starts_b)
    if trunc_score >= DEFAULT_THRESHOLD:  # all of one in the other, nearly as long: an edit
        sent_score = max(sent_score, trunc_score)
    score = max(sent_score, jaccard)
    return Match(REVISION, score, share, in_shorter, ratio, a_short, reordered)
