"""BERT's uncased WordPiece tokenizer, as the sentence encoder (minilm.py) was trained with it.

The same steps as Hugging Face's ``BertTokenizer(do_lower_case=True)``: control characters
dropped, whitespace normalised, CJK characters split apart, lowercased, accents stripped (NFD
without combining marks), punctuation split off, then each word cut into the longest pieces
of the vocabulary from its start ("##" marks a piece inside a word); a word of no pieces (or
over 100 characters) is ``[UNK]``.
"""

from __future__ import annotations

import unicodedata
from pathlib import Path

MAX_WORD_CHARS = 100
_CJK_RANGES = (
    (0x4E00, 0x9FFF),
    (0x3400, 0x4DBF),
    (0x20000, 0x2A6DF),
    (0x2A700, 0x2B73F),
    (0x2B740, 0x2B81F),
    (0x2B820, 0x2CEAF),
    (0xF900, 0xFAFF),
    (0x2F800, 0x2FA1F),
)
WORDS_KEPT = 200_000  # words whose pieces are remembered (a library's vocabulary, bounded)


def _is_punctuation(ch: str) -> bool:
    cp = ord(ch)
    if 33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126:
        return True  # BERT counts every ASCII non-letter, non-digit as punctuation ("$", "^")
    return unicodedata.category(ch).startswith("P")


def _is_cjk(cp: int) -> bool:
    return any(lo <= cp <= hi for lo, hi in _CJK_RANGES)


def basic_words(text: str) -> list[str]:
    """The words and punctuation marks of ``text``, lowercased and without accents."""
    chars: list[str] = []
    for ch in text:
        cp = ord(ch)
        if cp == 0 or cp == 0xFFFD:
            continue
        category = unicodedata.category(ch)
        if ch in "\t\n\r" or category == "Zs":
            chars.append(" ")
        elif category.startswith("C"):
            continue
        elif cp >= 0x3400 and _is_cjk(cp):
            chars.append(f" {ch} ")
        else:
            chars.append(ch)
    out: list[str] = []
    for token in "".join(chars).lower().split():
        if not token.isascii():
            token = "".join(c for c in unicodedata.normalize("NFD", token) if unicodedata.category(c) != "Mn")
        if token.isalnum():
            out.append(token)
            continue
        word: list[str] = []
        for ch in token:
            if _is_punctuation(ch):
                if word:
                    out.append("".join(word))
                    word = []
                out.append(ch)
            else:
                word.append(ch)
        if word:
            out.append("".join(word))
    return out


class WordPiece:
    """Text -> vocabulary ids, with ``[CLS]`` first and ``[SEP]`` last."""

    def __init__(self, vocab_file: Path) -> None:
        """Read the vocabulary (one piece a line; its id is its line number)."""
        pieces = vocab_file.read_text(encoding="utf-8").splitlines()
        self.vocab = {piece: i for i, piece in enumerate(pieces)}
        self.unk = self.vocab["[UNK]"]
        self.cls = self.vocab["[CLS]"]
        self.sep = self.vocab["[SEP]"]
        self._words: dict[str, list[int]] = {}

    def pieces(self, word: str) -> list[int]:
        """The ids of one word's longest-first pieces (``[UNK]`` alone when it has none)."""
        cached = self._words.get(word)
        if cached is not None:
            return cached
        found: list[int] = []
        unknown = len(word) > MAX_WORD_CHARS
        start = 0
        while start < len(word) and not unknown:
            end = len(word)
            while end > start:
                piece = word[start:end] if start == 0 else "##" + word[start:end]
                if piece in self.vocab:
                    found.append(self.vocab[piece])
                    break
                end -= 1
            unknown = end == start  # no piece fits here: the whole word is unknown
            start = end
        if unknown:
            found = [self.unk]
        if len(self._words) >= WORDS_KEPT:
            self._words.clear()
        self._words[word] = found
        return found

    def encode(self, text: str, max_tokens: int) -> list[int]:
        """``[CLS]``, the pieces of ``text`` cut to fit, ``[SEP]``: at most ``max_tokens`` ids."""
        ids = [self.cls]
        for word in basic_words(text):
            ids.extend(self.pieces(word))
            if len(ids) >= max_tokens - 1:
                break
        return [*ids[: max_tokens - 1], self.sep]
