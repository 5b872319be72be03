"""A word-level diff of two abstracts, for the side-by-side review."""

from __future__ import annotations

from difflib import SequenceMatcher


def word_diff(a: str, b: str) -> list[tuple[str, str]]:
    """``[(op, text)]`` turning ``a`` into ``b`` word by word; op is "equal", "delete" or "insert".

    Words are the whitespace-separated runs as written, so a changed comma or accent shows.
    The left pane is the "equal" and "delete" parts, the right pane "equal" and "insert".
    """
    words_a, words_b = a.split(), b.split()
    out: list[tuple[str, str]] = []
    matcher = SequenceMatcher(None, words_a, words_b, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag in ("equal", "delete", "replace") and i2 > i1:
            out.append(("equal" if tag == "equal" else "delete", " ".join(words_a[i1:i2])))
        if tag in ("insert", "replace") and j2 > j1:
            out.append(("insert", " ".join(words_b[j1:j2])))
    return out
