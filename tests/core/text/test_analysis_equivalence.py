"""The text analysis and the near-duplicate ``prepare`` give, byte for byte, what they gave before
they were made faster: on every abstract of the dev corpus and every seed paragraph,
and, for each fast path, on arbitrary and hostile text against the general code it stands for.

The digests below were computed by the code as it was at d60e478 (main before the change), so
any change to a short name, title, readable text, duplicate key or near-duplicate signature of
these abstracts fails here, field by field. Recompute them only for a change meant to alter
results (and say so in its commit).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
from dev_texts import DEV, ROOT, needs_dev_corpus
from hypothesis import example, given, settings
from hypothesis import strategies as st

from desk.core.dedup.detector import DEFAULT_NUM_PERM, prepare
from desk.core.text.analysis import analyse_many


def _corpus(paths: Sequence[Path]) -> list[str]:
    paragraphs = [p for f in paths for p in f.read_text(encoding="utf-8").split("\n\n")[1:]]
    return [p.strip() for p in paragraphs if p.strip()]


def _digests(abstracts: Sequence[str]) -> dict[str, str]:
    """One SHA-256 per derived field over every abstract, in order."""
    h = {name: hashlib.sha256() for name in ("readable", "key", "short_name", "title", "prepare")}
    analysed = analyse_many(abstracts)
    for a in analysed:
        h["readable"].update(a.readable.encode() + b"\0")
        h["key"].update(a.key.encode() + b"\0")
        h["short_name"].update(repr(a.short_name).encode() + b"\0")
        h["title"].update(a.title.encode() + b"\0")
    readable = [a.readable for a in analysed]
    for lo in range(0, len(readable), 500):  # the import's hashing chunks are of this order
        ready = prepare(readable[lo : lo + 500], DEFAULT_NUM_PERM)
        for k in range(len(ready.words)):
            for arr in (
                ready.words[k],
                ready.starts[k],
                ready.sentence_keys[k],
                ready.cleanup[k : k + 1],
                ready.keys[k],
            ):
                a = np.ascontiguousarray(arr)
                h["prepare"].update(f"{a.dtype.str}{a.shape}".encode() + a.tobytes())
    return {name: d.hexdigest()[:32] for name, d in h.items()}


DEV_DIGESTS = {
    "readable": "b5ab2bccea1eefa88d9d9505c6d9a103",
    "key": "0eb3111eeb90cf0ce76da8ff47ef1e4b",
    "short_name": "000a6d5be1cb895672e5646cacb3cd8e",
    "title": "7e3576cfb5d612363e101d8908823cce",
    "prepare": "ad7f380ce592a45d80a6456fe8df0451",
}
SEED_DIGESTS = {
    "readable": "d71384b4a4dce463d0437db6691b4b72",
    "key": "ce36e1d4ce4e7d278bc7158de035705a",
    "short_name": "6a6831c3ea370923a6cd283d71eee7e5",
    "title": "406fbaabae4ab8fce54e9d0df03f40e9",
    "prepare": "9e20bb04eb483703c0f6d708400ec7da",
}


@pytest.mark.slow
@needs_dev_corpus
def test_every_dev_corpus_abstract_is_analysed_and_prepared_as_before() -> None:
    assert _digests(_corpus([DEV])) == DEV_DIGESTS


def test_every_seed_paragraph_is_analysed_and_prepared_as_before() -> None:
    assert _digests(_corpus(sorted((ROOT / "seeds").glob("*.txt")))) == SEED_DIGESTS


# --- Each fast path against the general code it stands for (the code as it was), on any text. ---

hostile_words = st.sampled_from(
    ["We", "we", "propose", "a", "novel", "NEW", "Proposed", "PROPOſED", "(RACER)", "RACER", "(", ")",
     ",", ";", ":", ".", ". ", "e.g.,", "STAR-KV", "HiDe", "D²TR", "$\\alpha$", "\\textbf{S}parse", "&amp;",
     "’", "“", "—", "İ", "ı", "Σ", "ΣΑΣ", "ﬁ", "机器", "x_1", "\t", "\n", "\xa0", "called", "which", "our",
     "qqdeskstopqq", "  "]
)  # fmt: skip
hostile_text = st.one_of(
    st.text(max_size=300),
    st.lists(hostile_words, max_size=800).map(" ".join),  # abstract-long and longer
    st.lists(hostile_words, max_size=60).flatmap(
        lambda words: st.sampled_from([" ", "", ". "]).map(lambda sep: sep.join(words))
    ),
)


def _old_window(sentence: str, start: int) -> str:
    """short_names._window as it was: a Python step per character."""
    depth = 0
    for k in range(start, min(len(sentence), start + 180)):
        c = sentence[k]
        if c == "(":
            depth += 1
        elif c == ")":
            depth = max(depth - 1, 0)
        elif depth == 0 and c in ",;:":
            return sentence[start:k]
    return sentence[start : start + 180]


@pytest.mark.slow
@settings(max_examples=1500, deadline=None)
@given(st.one_of(hostile_text, st.text(alphabet="ab (),;:", max_size=400)), st.integers(0, 420))
@example("x" * 179 + ",", 0)
@example("x" * 180 + ",", 0)
@example("(a, b), c", 0)
@example("a)), b", 0)
def test_the_cue_window_stops_where_the_character_loop_stopped(sentence: str, start: int) -> None:
    from desk.core.text import short_names

    assert short_names._window(sentence, start) == _old_window(sentence, start)


def _old_runs(window: str) -> list[list[str]]:
    """short_names._runs as it was: every word stripped and tested."""
    from desk.core.text.name_shape import qualifies as _qualifies
    from desk.core.text.name_shape import upper_count as _upper_count

    runs: list[list[str]] = []
    cur: list[str] = []
    for raw in window.split():
        word = raw.strip(".,;:!?\"“”'’")
        core = word.strip("()")
        capital = bool(core) and (core[0].isupper() or _qualifies(core))
        if word.startswith("(") and core:
            capital = _upper_count(core) >= 1 and word.endswith(")")  # "(Neural Optical …)" opens a long form
        if capital and not word.startswith("(") and word == core:
            cur.append(core)
            continue
        if cur:
            runs.append(cur)
            cur = []
        if capital and word.startswith("(") and core:
            runs.append([word])
    if cur:
        runs.append(cur)
    return runs


@pytest.mark.slow
@settings(max_examples=1500, deadline=None)
@given(hostile_text)
@example("we present Frequency regularized NeRF (FreeNeRF) for x")
@example("a ﬁne ǅx ǈy ᾈz Ⅻ ⓐ ß (ⓐB)")
def test_the_name_runs_skip_lowercase_words_as_the_full_test_did(window: str) -> None:
    from desk.core.text import short_names

    assert short_names._runs(window) == _old_runs(window)


@pytest.mark.slow
@settings(max_examples=1500, deadline=None)
@given(hostile_text, st.integers(0, 300), st.integers(0, 300))
@example("ΣNOVEL", 1, 6)
@example("xΣnew", 2, 5)
def test_own_words_found_in_the_lowered_text_as_in_each_sentence(text: str, start: int, end: int) -> None:
    from desk.core.text import short_names

    lowered = text.lower()
    if len(lowered) == len(text):
        got = short_names._may_bring_own_at(lowered, start, end)
        assert got == short_names._may_bring_own(text[start:end])


@settings(max_examples=300, deadline=None)
@given(st.lists(hostile_text, max_size=6))
@example(["One. Two three four five six seven. " * 3, "", "x qqdeskstopqq y"])
def test_prepare_gives_what_the_joined_and_resplit_texts_gave(texts: list[str]) -> None:
    from desk.core.dedup.sentences import normalized_sentences, sentence_words
    from desk.core.dedup.shingles import shingle, shingle_words

    words, starts = sentence_words(texts)
    normalized, old_starts = normalized_sentences(texts)
    assert [" ".join(w) for w in words] == normalized and starts == old_starts
    assert [t.split() for t in normalized] == words
    new, old = shingle_words(words), shingle(normalized)
    assert all(np.array_equal(a, b) for a, b in zip(new.sets, old.sets, strict=True))
    for field in ("tails", "cleanup", "hashes", "counts"):
        assert np.array_equal(getattr(new, field), getattr(old, field))
    got, expected = _structure_both(new.hashes, new.counts, starts)
    for name in ("words", "starts", "keys"):
        for a, b in zip(getattr(got, name), getattr(expected, name), strict=True):
            assert a.dtype == b.dtype and a.tobytes() == b.tobytes()


def _structure_both(hashes: np.ndarray, counts: np.ndarray, starts: list[list[int]]) -> tuple[object, object]:
    from desk.core.dedup.sentences import structure

    return structure(hashes, counts, starts), _old_structure(hashes, counts, starts)


# The names sentences.structure used, for _old_structure below.
from desk.core.dedup.sentences import _BASE, _INVERSE, _TAGS, KEY_WORDS, Structured  # noqa: E402
from desk.core.dedup.shingles import mix64  # noqa: E402


def _old_structure(hashes: np.ndarray, counts: np.ndarray, starts: Sequence[Sequence[int]]) -> Structured:
    """sentences.structure as it was (each text's keys by np.unique).

    Per-text words, sentence starts and keys from every text's 64-bit word hashes in one array
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
        cuts = np.searchsorted(owner, np.arange(len(counts) + 1))
        keys = [np.unique(found[cuts[k] : cuts[k + 1]]) for k in range(len(counts))]
    return Structured(words, out_starts, keys)


@pytest.mark.slow
@settings(max_examples=2000, deadline=None)
@given(st.one_of(st.text(max_size=200), st.text(alphabet=st.characters(max_codepoint=127), max_size=200)))
@example("a\x7fb")
@example("tab\there")
@example("\x85")
def test_is_printable_is_str_isprintable(text: str) -> None:
    from desk.core.text.chars import is_printable

    assert is_printable(text) == text.isprintable()
