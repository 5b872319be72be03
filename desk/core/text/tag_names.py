"""A tag's name as stored and the key two spellings of one tag share (no database here: the
command line's light writes, desk.core.edits.statements, use them without the ORM)."""

from __future__ import annotations

import unicodedata

from desk.core.runtime.errors import DeskError

MAX_NAME = 100


def normalize_name(name: str) -> str:
    """The tag name as stored: NFC, control characters dropped, spaces collapsed.

    Raises DeskError for a name that is empty after that or longer than MAX_NAME.
    """
    text = unicodedata.normalize("NFC", name)
    text = "".join(c if c.isprintable() or c.isspace() else " " for c in text)
    text = " ".join(text.split())
    if not text:
        raise DeskError("a tag needs a name")
    if len(text) > MAX_NAME:
        raise DeskError(f"a tag's name is at most {MAX_NAME} characters")
    return text


def tag_key(name: str) -> str:
    """The key two spellings of one tag share (casefolded normalised name)."""
    return normalize_name(name).casefold()
