"""The ASCII fast paths of the normalizers give what the general (Unicode) path gives."""

from __future__ import annotations

import html
import unicodedata

from hypothesis import given, settings
from hypothesis import strategies as st

from desk.core.dedup import shingles
from desk.core.text import normalize as text_normalize

ascii_text = st.one_of(
    st.text(alphabet=st.characters(max_codepoint=127), max_size=200),
    st.lists(
        st.sampled_from(["We", "propose", "$\\alpha$-VOR", "\\textbf{S}parse", "D^2TR", "x_1", "**OGPO**",
                         "&amp;", "GPT-4", "(RACER)", "e.g.,", "\\cite{x}", "`code`", "\\url{a.b/c}}.",
                         "\t", "\n"]),
        max_size=40,
    ).map(" ".join),
)  # fmt: skip


def general_normalize(text: str) -> str:
    """shingles.normalize without its ASCII shortcut (the code as it was before it)."""
    text = text.translate(shingles._FIRST_TABLE).replace("$", "")
    for _ in range(3):
        text, found = shingles._STYLED.subn(r"\1", text)
        if not found:
            break
    text = shingles._STYLE.sub(" ", text)
    text = shingles._SCRIPT.sub(lambda m: f" ^{m.group(1) or m.group(2)} ", text)
    text = shingles._COMMAND.sub(shingles._command, text)
    text = unicodedata.normalize("NFKC", text).casefold().translate(shingles._LAST_TABLE)
    return shingles._CJK_CHAR.sub(r" \g<0> ", text) if shingles._CJK_CHAR.search(text) else text


def general_key(text: str) -> str:
    """dedup_key_of_readable without its ASCII shortcut."""
    if "&" in text:
        text = html.unescape(text)
    text = unicodedata.normalize("NFKC", text).casefold().translate(text_normalize._FOLD)
    text = unicodedata.normalize("NFC", text).translate(text_normalize._MARKUP)
    return " ".join(text_normalize._WORD_RE.findall(text))


@settings(max_examples=500, deadline=None)
@given(ascii_text)
def test_near_duplicate_normalize_of_ascii_text(text: str) -> None:
    assert shingles.normalize(text) == general_normalize(text)


@settings(max_examples=500, deadline=None)
@given(ascii_text)
def test_duplicate_key_of_ascii_text(text: str) -> None:
    assert text_normalize.dedup_key_of_readable(text) == general_key(text)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=200))
def test_any_text_still_takes_the_general_path(text: str) -> None:
    assert shingles.normalize(text) == general_normalize(text)
    assert text_normalize.dedup_key_of_readable(text) == general_key(text)
