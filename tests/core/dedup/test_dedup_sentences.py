"""Sentence keys and sentence matching: the vectorised forms say what the plain ones say."""

from __future__ import annotations

import re

import pytest
from dedup_texts import PAPER, SAME_TOPIC, SECOND, head, reordered, revised, shared_opening
from hypothesis import given, settings
from hypothesis import strategies as st

from desk.core.dedup.detector import prepare
from desk.core.dedup.sentences import KEY_WORDS, MARK, mark_sentences, normalized_sentences, split_marked
from desk.core.dedup.shingles import normalize
from desk.core.dedup.verify import SENTENCE_MATCH, scored_sentence_pairs, sentence_sets

TEXTS = [PAPER, SECOND, SAME_TOPIC, head(PAPER, 0.4), revised(PAPER), reordered(PAPER), shared_opening(PAPER)]


def _plain_pairs(a: str, b: str) -> tuple[list[tuple[float, int, int]], int, int]:
    ready = prepare([a, b], 3)
    sa = sentence_sets(ready.words[0], ready.starts[0])
    sb = sentence_sets(ready.words[1], ready.starts[1])
    scored = []
    for i, x in enumerate(sa):
        for j, y in enumerate(sb):
            common = len(x & y)
            if x and y and common and common >= SENTENCE_MATCH * max(len(x), len(y)):
                scored.append((common / max(len(x), len(y)), i, j))
    return sorted(scored, reverse=True), sum(1 for x in sa if x), sum(1 for y in sb if y)


def test_sentence_matching_by_matrix_equals_matching_by_sets() -> None:
    for a in TEXTS:
        for b in TEXTS:
            ready = prepare([a, b], 3)
            fast = scored_sentence_pairs(ready.words[0], ready.starts[0], ready.words[1], ready.starts[1])
            assert fast == _plain_pairs(a, b)


sentence = st.lists(
    st.sampled_from(["graph", "model", "data", "we", "the", "learn", "robust", "noise", ".", "A", "B"]),
    max_size=30,
)


@settings(max_examples=150, deadline=None)
@given(st.lists(sentence.map(" ".join), min_size=1, max_size=4))
def test_words_are_those_of_normalize_and_sentences_start_inside(texts: list[str]) -> None:
    joined, starts = normalized_sentences(texts)
    for text, norm, at in zip(texts, joined, starts, strict=True):
        assert norm.split() == normalize(text).split()
        assert at == sorted(set(at)) and all(0 <= s < len(norm.split()) for s in at)
        assert (not at) == (not norm.split()) and (not at or at[0] == 0)


def test_a_shared_sentence_gives_shared_keys_and_other_papers_share_none() -> None:
    ready = prepare([PAPER, head(PAPER, 0.4), SECOND], 3)
    own, cut, other = (set(k.tolist()) for k in ready.sentence_keys)
    assert len(own & cut) >= 3  # whole sentences, and the first words of the one cut
    assert not own & other
    assert all(len(k) <= 4 * len(s) for k, s in zip(ready.sentence_keys, ready.starts, strict=True))
    assert KEY_WORDS >= 5


def _set_jaccard(a: str, b: str) -> float:
    from desk.core.dedup.shingles import shingle

    sa, sb = shingle([normalize(a), normalize(b)]).sets
    both = len(set(sa.tolist()) & set(sb.tolist()))
    return both / (len(sa) + len(sb) - both)


def test_the_edit_score_is_the_shingle_jaccard_of_the_two_texts() -> None:
    from desk.core.dedup import match

    for a in TEXTS:
        for b in TEXTS:
            found = match(a, b)
            if found.kind == "revision" and not found.offered:
                assert found.score >= _set_jaccard(a, b) - 1e-9


def test_two_sentences_side_by_side_give_a_key_neither_gives_alone() -> None:
    """Where each sentence recurs in many texts (boilerplate, a recombined corpus), the boundary
    between two of them still names the pair."""
    one, two, three = (" ".join(sentences_of(PAPER)[k : k + 1]) for k in range(3))
    ready = prepare([f"{one} {two}", f"{one} {three}", f"{three} {two}"], 3)
    a, b, c = (set(k.tolist()) for k in ready.sentence_keys)
    assert len(a - b - c) == 1  # one & two side by side: only the first text has them


def sentences_of(text: str) -> list[str]:
    from dedup_texts import sentences

    return sentences(text)


_END_BY_LOOKBEHIND = re.compile(r"(?<=[.!?])\s+(?=[\"“'‘(\[]?[A-Z0-9])|(?<=[。！？])")


def _split_marked_word_by_word(normalized: str) -> tuple[list[str], list[int]]:
    """The former split_marked: a Python step per word."""
    words: list[str] = []
    starts = [0]
    for word in normalized.split():
        if word == MARK:
            if len(words) > starts[-1]:
                starts.append(len(words))
        else:
            words.append(word)
    if starts[-1] == len(words) and len(starts) > 1:
        starts.pop()
    return words, starts if words else []


_PIECES = st.sampled_from(
    ["a", "B", "7", ".", "!", "?", "。", "！", "？", " ", "  ", "\n", '"', "“", "'", "‘", "(", "[", "x.", "Q"]
)


@pytest.mark.slow
@settings(max_examples=400, deadline=None)
@given(st.lists(_PIECES, max_size=40).map("".join))
def test_sentence_ends_are_marked_as_the_lookbehind_pattern_marked_them(text: str) -> None:
    assert mark_sentences(text) == _END_BY_LOOKBEHIND.sub(f" {MARK} ", text)


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(["w", "word", MARK, f"x{MARK}", " ", "  "]), max_size=30).map(" ".join))
def test_split_marked_equals_the_word_by_word_split(normalized: str) -> None:
    assert split_marked(normalized) == _split_marked_word_by_word(normalized)


def test_marked_sentences_of_real_abstracts_are_unchanged() -> None:
    for text in (PAPER, SAME_TOPIC, SECOND, revised(PAPER), head(PAPER, 40)):
        assert mark_sentences(text) == _END_BY_LOOKBEHIND.sub(f" {MARK} ", text)
        marked = normalize(mark_sentences(text))
        assert split_marked(marked) == _split_marked_word_by_word(marked)
