"""List text to a header and cleaned abstracts: paragraphs, wrapping, entities, controls, the header."""

from __future__ import annotations

import html
import re
import unicodedata
from collections.abc import Iterator

#: A paragraph or entry's abstract longer than this is not one abstract (blank lines missing).
MAX_ABSTRACT_CHARS: int = 100_000
HEADER_MAX_CHARS = 150
HEADER_MAX_WORDS = 15

# Controls that are not whitespace are deleted; whitespace ones (tab, form feed, NEL...) become
# spaces through whitespace collapsing. U+FEFF appears mid-text when BOM-carrying files are joined.
_CONTROLS = re.compile("[\x00-\x08\x0e-\x1b\x7f-\x84\x86-\x9f\ufeff]+")

_PARAGRAPH_BREAK = re.compile(r"\n(?:[^\S\n]*\n)+")
# Only entities closed by ';': html.unescape alone would also turn "&para" in "&parameter" into "¶".
_ENTITY = re.compile(r"&(?:#[0-9]{1,8}|#[xX][0-9a-fA-F]{1,8}|[A-Za-z][A-Za-z0-9]{1,31});")

_TERMINALS = (".", "!", "?", "。", "！", "？")
_CLOSERS = "\"'”’»)]}」』）"
_LATIN_BOUNDARY = re.compile(r"(\S*)([.!?])[\"'”’»)\]]*\s+(\w)")
_CJK_BOUNDARY = re.compile(r"[。！？]\s*\S")
# "Proc. ICML", "Vol. 3": a capitalised word of two to four letters before a full stop.
_ABBREVIATION = re.compile(r"[A-Z][a-z]{1,3}")


def parse_list_text(text: str, *, default_collection: str) -> tuple[str, str | None, list[str]]:
    """Split list text into ``(collection, header, abstracts)``.

    The first paragraph is the header when it is one short line that reads as no sentence;
    the collection is then the header, otherwise ``default_collection``. Every abstract is one
    cleaned paragraph: unwrapped, entities decoded, controls removed, whitespace collapsed, NFC.
    """
    # Controls go before splitting, so that a line holding only a stray control is a blank line.
    text = _CONTROLS.sub("", text.replace("\r\n", "\n").replace("\r", "\n"))
    text = text.replace("\u2028", "\n").replace("\u2029", "\n\n")
    header: str | None = None
    abstracts: list[str] = []
    first = True
    for raw in _paragraphs(text):
        cleaned = clean_paragraph(raw)
        if not cleaned:
            continue
        if first:
            first = False
            if "\n" not in raw.strip() and looks_like_header(cleaned):
                header = cleaned
                continue
        abstracts.append(cleaned)
    return header if header is not None else default_collection, header, abstracts


def _paragraphs(text: str) -> Iterator[str]:
    start = 0
    for match in _PARAGRAPH_BREAK.finditer(text):
        yield text[start : match.start()]
        start = match.end()
    yield text[start:]


def clean_paragraph(raw: str) -> str:
    """One paragraph as one line: entities decoded, NFC, controls removed, whitespace collapsed."""
    text = _without_controls(raw)
    if "&" in text:
        # Controls again after entities (&#xFEFF;), and before NFC: a removed character may
        # have kept a combining mark from its base letter.
        text = _without_controls(_ENTITY.sub(lambda m: html.unescape(m.group()), text))
    return " ".join(unicodedata.normalize("NFC", text).split())


def _without_controls(text: str) -> str:
    # Every character _CONTROLS matches is unprintable: most paragraphs skip the regex.
    return text if text.isprintable() else _CONTROLS.sub("", text)


def looks_like_header(line: str) -> bool:
    """True when a cleaned one-line paragraph is short and holds no sentence."""
    if len(line) > HEADER_MAX_CHARS or len(line.split()) > HEADER_MAX_WORDS:
        return False
    if line.rstrip(_CLOSERS).endswith(_TERMINALS) or _CJK_BOUNDARY.search(line):
        return False
    for match in _LATIN_BOUNDARY.finditer(line):
        word, mark, next_char = match.groups()
        if not next_char.isupper():
            continue
        if mark == "." and _ABBREVIATION.fullmatch(word.lstrip("([\"'“‘«")):
            continue
        return False
    return True
