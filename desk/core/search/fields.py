"""What the index is given for one paper: its Whoosh field values and its lexicon words."""

from __future__ import annotations

from typing import Any

from desk.core.search.model import IndexDoc
from desk.core.search.spelling import words_of


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
    }
    if doc.short_name.strip():
        fields["short_kw"] = doc.short_name.strip().lower()
    return fields


def words(doc: IndexDoc) -> set[str]:
    """The unstemmed words of ``doc`` the "did you mean" lexicon counts."""
    return words_of(f"{doc.title}\n{doc.short_name}\n{doc.abstract}\n{doc.note}")
