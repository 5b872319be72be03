"""Loading papers by id, shared by the Library and the merge policy."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable

from sqlalchemy import select
from sqlalchemy.orm import Session, selectinload

from desk.core.runtime.errors import PaperNotFound
from desk.core.store.limits import IDS_PER_STATEMENT
from desk.core.store.models import Paper


def load_papers(session: Session, ids: Iterable[int]) -> dict[int, Paper]:
    """The papers with these ids (and their sources); ids that do not exist are left out."""
    wanted = list(ids)
    found: dict[int, Paper] = {}
    for start in range(0, len(wanted), IDS_PER_STATEMENT):
        stmt = (
            select(Paper)
            .where(Paper.id.in_(wanted[start : start + IDS_PER_STATEMENT]))
            .options(selectinload(Paper.sources))
        )
        found.update((p.id, p) for p in session.scalars(stmt))
    return found


def require_papers(session: Session, ids: Iterable[int]) -> dict[int, Paper]:
    """Like load_papers, but raises PaperNotFound for the first id that does not exist."""
    wanted = list(ids)
    found = load_papers(session, wanted)
    for i in wanted:
        if i not in found:
            raise PaperNotFound(i)
    return found


def raw_connection(session: Session) -> sqlite3.Connection:
    """The session's own sqlite3 connection, its pending objects written first, for the
    statements of ``desk.core.edits.statements`` to run inside the session's transaction."""
    session.flush()
    raw = session.connection().connection.driver_connection
    assert isinstance(raw, sqlite3.Connection)
    return raw
