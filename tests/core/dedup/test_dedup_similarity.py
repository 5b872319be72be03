"""The exact verifier and the text normalization under it."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from desk.core.dedup import DEFAULT_THRESHOLD, similarity
from desk.core.dedup.shingles import normalize, shingle
from desk.core.dedup.signature import signatures


def normalize_words(text: str) -> list[str]:
    """The words of ``text`` after cleanup (see ``normalize``)."""
    return normalize(text).split()


ABSTRACT = (
    "Safe offline reinforcement learning requires optimizing policies within the support of static "
    "datasets while satisfying strict safety constraints. Although recent latent generative policies "
    "achieve strong empirical performance, they rely heavily on implicit regularization and lack "
    "systematic control over distributional shift during policy improvement. In this work, we propose a "
    "geometric control framework that leverages the bijective structure of conditional normalizing flows "
    "to provide a tractable mechanism to regulate distributional deviation of the policy. Across multiple "
    "safe RL benchmarks, our method achieves consistently low violation rates with competitive returns."
)


def test_latex_and_unicode_renderings_normalize_to_the_same_words() -> None:
    latex = r"D$^2$TR runs in $O(n^2)$ time, $\alpha$-VOR uses $\ell_2$ and $d \times d$, $k \leq n$, "
    latex += r"\textbf{S}parse on $x_1, \ldots, x_n$ with $A^T$ and $12^\circ$"
    unicode = "D²TR runs in O(n²) time, α-VOR uses ℓ₂ and d × d, k ≤ n, Sparse on x₁, …, xₙ with Aᵀ and 12°"
    assert normalize_words(latex) == normalize_words(unicode)
    assert similarity(latex, unicode) == 1.0


def test_case_punctuation_quotes_and_dashes_do_not_count() -> None:
    assert normalize_words("``Hamilton--Jacobi'' **OGPO**, state-of-the-art!") == normalize_words(
        "“hamilton–jacobi” OGPO state of the art"
    )


def test_cjk_text_is_split_into_characters() -> None:
    assert normalize_words("机器学习 model") == ["机", "器", "学", "习", "model"]


def test_a_truncated_copy_scores_as_contained() -> None:
    words = ABSTRACT.split()
    half = " ".join(words[: len(words) // 2]) + " ..."
    assert similarity(ABSTRACT, half) > 0.95


def test_a_short_text_inside_a_long_one_is_not_a_copy() -> None:
    sentence = ABSTRACT.split(". ")[0]
    assert similarity(ABSTRACT, sentence) < DEFAULT_THRESHOLD


def test_a_paper_opening_like_another_is_not_its_truncated_copy() -> None:
    """The shared opening is most of a truncated copy, but the copy's end is not in the other paper."""
    words = ABSTRACT.split()
    truncated = " ".join(words[:60])
    other = " ".join(words[:45]) + (
        " We instead study federated learning of graph neural networks under label noise, derive a robust"
        " aggregation rule with provable guarantees, and show on citation and molecule benchmarks that it"
        " improves accuracy while reducing communication by an order of magnitude across many clients."
    )
    assert similarity(ABSTRACT, truncated) > 0.95
    assert similarity(truncated, other) < DEFAULT_THRESHOLD


@pytest.mark.slow
def test_signatures_are_datasketch_minhash_values() -> None:
    from datasketch import MinHash

    sets = shingle([normalize(ABSTRACT), "one word"]).sets
    ours = signatures(sets, 64)
    for row, values in enumerate(sets):
        theirs = MinHash(num_perm=64, seed=1, scheme="affine32", hashfunc=int)
        theirs.update_batch(values.tolist())
        assert np.array_equal(ours[row], theirs.hashvalues)


@settings(max_examples=300, deadline=None)
@given(st.text(), st.text())
def test_similarity_is_symmetric_and_bounded(a: str, b: str) -> None:
    value = similarity(a, b)
    assert 0.0 <= value <= 1.0
    assert value == similarity(b, a)


@settings(max_examples=200, deadline=None)
@given(st.text())
def test_identical_texts_are_fully_similar(a: str) -> None:
    assert similarity(a, a) == 1.0


@settings(max_examples=100, deadline=None)
@given(
    st.lists(
        st.sampled_from([*"abcdefgh", "$", "^", "_", "{", "}", "\\", "α", "²", "机"]),
        min_size=25,
        max_size=80,
    ),
    st.integers(min_value=0, max_value=24),
)
def test_words_and_edits_never_break_the_bounds(words: list[str], cut: int) -> None:
    a = " ".join(words)
    b = " ".join(words[cut:] + words[:cut])
    assert 0.0 <= similarity(a, b) <= 1.0


@settings(max_examples=100, deadline=None)
@given(st.lists(st.text(), min_size=1, max_size=6))
def test_a_text_shingles_the_same_alone_or_among_others(texts: list[str]) -> None:
    """The index hashes texts in batches; add() and add_many() must agree."""
    normalized = [normalize(t) for t in texts]
    together = shingle(normalized)
    for k, text in enumerate(normalized):
        alone = shingle([text])
        assert np.array_equal(alone.sets[0], together.sets[k])
        assert np.array_equal(alone.tails[0], together.tails[k])
        assert alone.cleanup[0] == together.cleanup[k]
        assert (together.cleanup[k] == shingle([" ".join(text.split())]).cleanup[0]) and len(
            text.split()
        ) == len(normalize_words(texts[k]))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(max_size=120), max_size=8), st.booleans())
def test_word_hashes_looked_up_are_the_hashes_computed(texts: list[str], small_table: bool) -> None:
    """_words remembers each word's hash; what it gives must be what hashing the texts gives."""
    import unittest.mock

    from desk.core.dedup import shingles

    normalized = [normalize(t) for t in texts]
    limit = 3 if small_table else shingles._WORD_HASH_LIMIT  # a full table starts again
    with unittest.mock.patch.object(shingles, "_WORD_HASH_LIMIT", limit):
        for _ in range(2):  # the second time from the table
            hashes, counts = shingles.word_hashes(normalized)
            expected_hashes, expected_counts = shingles._hash_words(normalized)
            assert hashes.tolist() == expected_hashes.tolist()
            assert counts.tolist() == expected_counts.tolist()
