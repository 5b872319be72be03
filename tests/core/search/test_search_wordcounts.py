"""The spelling lexicon held compactly (desk/core/search/wordcounts.py) answers as the dict it
replaces: the same counts, neighbours and corrections on the dev corpus's words, the same file
written, the same parse of any file (hypothesis), at a fraction of the memory."""

from __future__ import annotations

import random
import tracemalloc
from bisect import bisect_left, bisect_right
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_search_lexicon import _dev_lexicon, _parsed
from whoosh.automata.fsa import find_all_matches
from whoosh.automata.lev import levenshtein_automaton

from desk.core.search import spelling
from desk.core.search.spelling import COMPLETIONS_SCANNED, Lexicon
from desk.core.search.wordcounts import WordCounts


def _reference_within(data: list[str], word: str, maxdist: int) -> list[str]:
    """Lexicon.within as it was: Whoosh's skipper over the sorted list of every word."""
    dfa = levenshtein_automaton(word, maxdist, 1).to_dfa()
    state = {"i": 0}

    def lookup(w: str) -> str | None:
        i = bisect_left(data, w, state["i"])
        state["i"] = i
        return data[i] if i < len(data) else None

    return list(find_all_matches(dfa, lookup))


class _DictLexicon(Lexicon):
    """The lexicon as a dict of every word (the parse before WordCounts), for comparison."""

    def __init__(self, counts: dict[str, int]) -> None:
        super().__init__()
        self.ref = counts
        self.ref_sorted = sorted(counts)

    def _value(self, word: str) -> int | None:
        return self.ref.get(word)

    def within(self, word: str, maxdist: int) -> list[str]:
        return _reference_within(self.ref_sorted, word, maxdist)

    def completion(self, word: str) -> str | None:
        at = bisect_right(self.ref_sorted, word)
        longer = [w for w in self.ref_sorted[at : at + COMPLETIONS_SCANNED] if w.startswith(word)]
        best = max((self.ref[w] for w in longer), default=None)  # the first of the commonest
        return next((w for w in longer if self.ref[w] == best), None)


def _typos(words: list[str], n: int, seed: int = 5) -> list[str]:
    rng = random.Random(seed)
    out = []
    for w in rng.sample(words, n):
        i = rng.randrange(len(w))
        kind = rng.randrange(4)
        if kind == 0:
            out.append(w[:i] + w[i + 1 :])
        elif kind == 1 and i < len(w) - 1:
            out.append(w[:i] + w[i + 1] + w[i] + w[i + 2 :])
        elif kind == 2:
            out.append(w[:i] + rng.choice("aeioustnrl") + w[i + 1 :])
        else:
            out.append(w[:i] + rng.choice("aeioustnrl") + w[i:])
    return out


@pytest.mark.slow
def test_dev_corpus_lexicon_answers_as_the_dict(tmp_path: Path) -> None:
    """Every word's count, the neighbours within one and two edits of typed words and the
    correction chosen for each are the dict lexicon's, on the dev corpus's words with edits
    appended (the file's first block and its appended lines both read)."""
    path = tmp_path / "words.tsv"
    _dev_lexicon(path)
    expected = _parsed(path.read_text(encoding="utf-8"))
    lex = Lexicon(path)
    lex.refresh()
    assert isinstance(lex._counts, WordCounts)
    assert dict(lex.counts) == expected and list(lex.counts) == sorted(expected)
    for word in expected:
        assert lex.count(word) == expected[word], word
    ref = _DictLexicon(expected)
    alpha = [w for w in expected if w.isalpha() and len(w) >= 4]
    typed = _typos(alpha, 200) + alpha[:: len(alpha) // 100] + ["nosuchwordatall", "zzzz", "aaa"]
    assert any(ref.correct(t, lambda s: False) for t in typed)
    for t in typed:
        for maxdist in (1, 2):
            assert lex.within(t, maxdist) == ref.within(t, maxdist), (t, maxdist)
        assert lex.completion(t) == ref.completion(t), t
        assert lex.correct(t, lambda s: False) == ref.correct(t, lambda s: False), t
        assert lex.correct(t, lambda s: True) == ref.correct(t, lambda s: True), t


def test_words_added_wait_beside_the_buffer_and_fold_into_it(tmp_path: Path) -> None:
    """An import's new words: counted, found as neighbours, folded into the buffer in their sorted
    places, and the file written whole is the dict's sorted lines, byte for byte."""
    path = tmp_path / "words.tsv"
    _dev_lexicon(path)
    lex = Lexicon(path)
    lex.refresh()
    expected = dict(lex.counts)
    rng = random.Random(2)
    added = {
        "".join(rng.choice("abcdefghijklmnopqrstuvwxyzé中") for _ in range(rng.randint(1, 12))): 1
        for _ in range(3000)
    }
    added.update({"model": 4, "zzzzz": 2, "a": 1})
    assert lex.add_counts(added)  # found in the buffer many at once: new words among them
    for w, k in added.items():
        expected[w] = expected.get(w, 0) + k
    counts = lex._counts
    assert counts is not None and len(counts._extra) > 1000  # waiting beside the buffer
    known = dict.fromkeys(sorted(w for w in expected if expected[w] > 0)[:2500], 2)
    assert not lex.add_counts(known)  # every word known already
    for w, k in known.items():
        expected[w] += k
    assert dict(lex.counts) == expected
    lex.save_changes()  # appended: thousands of lines after the first block
    appended = Lexicon(path)
    appended.refresh()
    assert dict(appended.counts) == expected
    ref = _DictLexicon(expected)
    for t in [*_typos([w for w in added if len(w) > 4], 50), "modle"]:
        assert lex.within(t, 1) == ref.within(t, 1), t
    counts.fold()
    assert not counts._extra and dict(lex.counts) == expected
    lex.save()
    text = "".join(f"{w}\t{n}\n" for w, n in sorted(expected.items()))
    assert path.read_bytes() == text.encode("utf-8")
    again = Lexicon(path)
    again.refresh()
    assert again._counts is not None and not again._counts._extra  # one sorted block: all in the buffer
    assert dict(again.counts) == expected


_LINE_CHARS = st.sampled_from([*"abcz09\t\t\t", "é", "中", "²", "٣", "\r", "\x85", " ", "-"])


@settings(max_examples=300, deadline=None)
@given(
    words=st.lists(st.text(st.sampled_from(list("abcdefz09é中-")), min_size=1, max_size=12), max_size=40),
    junk=st.lists(st.text(_LINE_CHARS, max_size=10), max_size=10),
    counts=st.lists(st.integers(0, 10**6), min_size=40, max_size=40),
    order=st.randoms(use_true_random=False),
    trailing=st.booleans(),
)
@pytest.mark.slow
def test_a_file_parses_as_the_line_rule_says(
    words: list[str], junk: list[str], counts: list[int], order: random.Random, trailing: bool
) -> None:
    """A sorted block, then appended lines (words again, new ones, malformed lines) in any order:
    the parse is the line rule's (the last line of a word whose count is a number)."""
    block = [f"{w}\t{n}" for w, n in zip(sorted(set(words)), counts, strict=False)]
    tail = [f"{w}\t{n}" for w, n in zip(words, reversed(counts), strict=False)] + junk
    order.shuffle(tail)
    text = "\n".join([*block, "", *tail]) + ("\n" if trailing else "")
    parsed = spelling._parse(text.encode("utf-8"), text)
    assert parsed.as_dict() == {w: n for w, n in _parsed_decimal(text).items()}
    assert len(parsed) == len(_parsed_decimal(text))


def _parsed_decimal(text: str) -> dict[str, int]:
    """The line rule with counts of decimal digits (int() of "²" fails: such a line is skipped)."""
    out: dict[str, int] = {}
    for line in text.splitlines():
        word, _, n = line.partition("\t")
        if word and n.isdecimal():
            out[word] = int(n)
    return out


@pytest.mark.slow
def test_the_parsed_lexicon_holds_a_fraction_of_a_dicts_memory(tmp_path: Path) -> None:
    """40,000 words (a recombined corpus's mutated acronyms are words of their own): the parsed
    lexicon holds no object per word (24 bytes a word and its text); a dict of them held over
    three times more."""
    rng = random.Random(9)
    words = {
        "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(3, 11)))
        for _ in range(40_000)
    }
    path = tmp_path / "words.tsv"
    path.write_text("".join(f"{w}\t{rng.randint(1, 5)}\n" for w in sorted(words)), encoding="utf-8")
    tracemalloc.start()
    try:
        lex = Lexicon(path)
        lex.refresh()
        held, _ = tracemalloc.get_traced_memory()
        as_dict = dict(lex.counts)
        with_dict, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(as_dict) == len(words)
    assert held * 3 < with_dict - held, (held, with_dict - held)
