"""The word-level diff for the side-by-side review."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from desk.core.dedup import word_diff


def test_changed_words_are_marked() -> None:
    ops = word_diff("we propose a fast method for graphs", "we propose a robust method for large graphs")
    assert ops == [
        ("equal", "we propose a"),
        ("delete", "fast"),
        ("insert", "robust"),
        ("equal", "method for"),
        ("insert", "large"),
        ("equal", "graphs"),
    ]


def test_equal_texts_are_one_equal_run() -> None:
    assert word_diff("same  words\nhere", "same words here") == [("equal", "same words here")]


def test_a_truncated_copy_is_a_deletion_at_the_end() -> None:
    assert word_diff("one two three four", "one two") == [("equal", "one two"), ("delete", "three four")]


@given(
    st.lists(st.sampled_from(["a", "b", "c", "d"]), max_size=12),
    st.lists(st.sampled_from(["a", "b", "c", "e"]), max_size=12),
)
def test_each_side_is_rebuilt_from_its_parts(a: list[str], b: list[str]) -> None:
    ops = word_diff(" ".join(a), " ".join(b))
    assert {op for op, _ in ops} <= {"equal", "delete", "insert"}
    left = " ".join(text for op, text in ops if op != "insert").split()
    right = " ".join(text for op, text in ops if op != "delete").split()
    assert (left, right) == (a, b)
