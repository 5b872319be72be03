"""Sort orders for lists and search results, read from the database.

``relevance`` is the search's rank (import order for a list without words); ``collection`` is
the collection, then the file and the place in it, of a paper's first source; ``recent`` the
newest imported first; ``starred`` starred papers first, each group in relevance order;
``title`` the title a user sees, case-insensitively.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from sqlalchemy.orm import Session

from desk.core.errors import DeskError

SORTS = ("relevance", "collection", "recent", "starred", "title")

_SQL = {
    "relevance": "SELECT id FROM paper ORDER BY id",
    "collection": (
        "SELECT p.id FROM paper p"
        " LEFT JOIN source s ON s.id = (SELECT min(id) FROM source WHERE paper_id = p.id)"
        ' ORDER BY s.collection, s.file, s."index", p.id'
    ),
    "recent": "SELECT id FROM paper ORDER BY created_at DESC, id DESC",
    "starred": "SELECT id FROM paper ORDER BY starred DESC, id",
}


def check(sort: str) -> str:
    """The sort's name, or DeskError naming the ones there are."""
    if sort not in SORTS:
        raise DeskError(f"no sort order “{sort}”; there are: {', '.join(SORTS)}")
    return sort


def ordered_ids(session: Session, sort: str) -> list[int]:
    """Every paper id in the sort's order."""
    conn = session.connection()
    if check(sort) == "title":
        rows = list(conn.exec_driver_sql("SELECT id, coalesce(user_title, derived_title) FROM paper"))
        rows.sort(key=lambda r: (r[1].casefold(), r[0]))
        return [r[0] for r in rows]
    return [r[0] for r in conn.exec_driver_sql(_SQL[sort])]


def positions(session: Session, sort: str, ranked_ids: np.ndarray) -> Sequence[int]:
    """The positions of ``ranked_ids`` (best first) in the sort's order; ties keep their rank."""
    if check(sort) == "relevance" or not len(ranked_ids):
        return range(len(ranked_ids))
    if sort == "starred":
        rows = session.connection().exec_driver_sql("SELECT id FROM paper WHERE starred")
        flagged = {r[0] for r in rows}
        starred = np.array([i in flagged for i in ranked_ids.tolist()], bool)
        return np.argsort(~starred, kind="stable").tolist()
    order = np.asarray(ordered_ids(session, sort), np.int64)
    top = int(max(order.max(initial=0), ranked_ids.max(initial=0))) + 1
    place = np.full(top, len(order), np.int64)  # a paper gone since the search goes last
    place[order] = np.arange(len(order))
    return np.argsort(place[ranked_ids], kind="stable").tolist()
