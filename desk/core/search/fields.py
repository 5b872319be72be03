"""What the index is given for one paper: its Whoosh field values and its lexicon words."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from desk.core.search.model import IndexDoc

_WORD_RE = re.compile(r"[^\W\d_]{2,}")


def writer_fields(doc: IndexDoc) -> dict[str, Any]:
    """The keyword arguments of ``add_document`` for ``doc``."""
    fields: dict[str, Any] = {
        "id": doc.id,
        "rev": doc.rev,
        "title": doc.title,
        "short_name": doc.short_name,
        "abstract": doc.abstract,
        "note": doc.note,
        "starred": doc.starred,
        "read": doc.read,
        "has_note": bool(doc.note.strip()),
        "collections": "\n".join(doc.collections),
        "authors": doc.authors,
    }
    if doc.short_name.strip():
        fields["short_kw"] = doc.short_name.strip().lower()
    return fields


def words_of_tokens(tokens: Iterable[str]) -> set[str]:
    """The distinct lowercased alphabetic words (two letters or more) of a text, from its lowercased
    ``\\w`` tokens (the index's tokens): the words the lexicon counts.

    Every letter of a text lies in one of its tokens, and no character outside them
    lowercases to a letter, so the words are those of the tokens; most tokens are one word.
    """
    distinct = set(tokens)
    words = set(filter(str.isalpha, distinct))
    for token in distinct - words:
        words.update(_WORD_RE.findall(token))
    return {w for w in words if len(w) >= 2}
