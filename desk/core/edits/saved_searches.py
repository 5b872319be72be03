"""Saved searches: a query kept under a name, run again each time (so it follows the library)."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from desk.core.records.detail import SavedSearchInfo
from desk.core.runtime.errors import DeskError
from desk.core.store import SavedSearch
from desk.core.text.tag_names import MAX_NAME, normalize_name


def stored_name(name: str) -> str:
    """The name as stored (normalised as a tag's name is); DeskError, in a saved search's
    words, for a name that is empty or longer than MAX_NAME."""
    try:
        return normalize_name(name)
    except DeskError:
        if any(c.isprintable() and not c.isspace() for c in name):  # not empty: too long
            raise DeskError(f"a saved search's name is at most {MAX_NAME} characters") from None
        raise DeskError("a saved search needs a name") from None


def key_of(name: str) -> str:
    """The key two spellings of one name share."""
    return stored_name(name).casefold()


def get(session: Session, name: str) -> SavedSearch | None:
    """The saved search with this name (any case), or None."""
    return session.scalar(select(SavedSearch).where(SavedSearch.key == key_of(name)))


def put(session: Session, name: str, query: str | None) -> str | None:
    """Save (or replace) the query under name; None deletes it. Returns the query it had before."""
    row = get(session, name)
    before = row.query if row is not None else None
    if query is None:
        if row is not None:
            session.delete(row)
    elif row is None:
        session.add(SavedSearch(name=stored_name(name), key=key_of(name), query=query))
    else:
        row.query = query
    session.flush()
    return before


def listed(session: Session) -> list[SavedSearchInfo]:
    """Every saved search, in the order they were first saved."""
    rows = session.scalars(select(SavedSearch).order_by(SavedSearch.id))
    return [SavedSearchInfo(r.name, r.query) for r in rows]
