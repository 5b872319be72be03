"""Sort orders for lists and search results, read from the database.

``relevance`` is the search's rank (import order for a list without words); ``collection`` is
the collection, then the file and the place in it, of a paper's first source; ``recent`` the
newest imported first; ``starred`` starred papers first, each group in relevance order;
``title`` the title a user sees, case-insensitively.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from sqlalchemy.orm import Session

from desk.core.records.page import SORTS
from desk.core.runtime.errors import DeskError
from desk.core.store.limits import IDS_PER_STATEMENT

__all__ = ["RECOMMENDED", "SORTS", "IdScores", "by_score", "check", "ordered_ids", "positions"]

#: Library.search_ids's sort by the recommender (Discovery.recommend_scores), not a column.
RECOMMENDED = "recommended"

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


_KEYS = {
    "title": "SELECT id, coalesce(user_title, derived_title) FROM paper WHERE id IN ({})",
    "recent": "SELECT id, created_at FROM paper WHERE id IN ({})",
    # min(id) makes SQLite take the other columns from each paper's first source
    "collection": 'SELECT paper_id, min(id), collection, file, "index" FROM source WHERE paper_id IN ({})'
    " GROUP BY paper_id",
}


def _keys(session: Session, sort: str, ids: list[int]) -> dict[int, Any]:
    """The sort key of each of ``ids`` (read for these papers only: a filtered view is small)."""
    conn = session.connection()
    keys: dict[int, Any] = {}
    for start in range(0, len(ids), IDS_PER_STATEMENT):
        chunk = ids[start : start + IDS_PER_STATEMENT]
        rows = conn.exec_driver_sql(_KEYS[sort].format(", ".join("?" * len(chunk))), tuple(chunk))
        if sort == "title":
            keys.update((i, t.casefold()) for i, t in rows)
        elif sort == "recent":
            keys.update((i, c) for i, c in rows)
        else:
            keys.update((r[0], (r[2], r[3], r[4])) for r in rows)
    return keys


def positions(session: Session, sort: str, ranked_ids: np.ndarray) -> Sequence[int]:
    """The positions of ``ranked_ids`` (best first) in the sort's order; ties keep their rank."""
    if check(sort) == "relevance" or not len(ranked_ids):
        return range(len(ranked_ids))
    ids = ranked_ids.tolist()
    if sort == "starred":
        rows = session.connection().exec_driver_sql("SELECT id FROM paper WHERE starred = 1")
        flagged = {r[0] for r in rows}
        starred = np.array([i in flagged for i in ids], bool)
        return np.argsort(~starred, kind="stable").tolist()
    keys = _keys(session, sort, ids)
    present = [n for n, i in enumerate(ids) if i in keys]  # a paper gone since the search goes last
    gone = [n for n, i in enumerate(ids) if i not in keys]
    if sort == "recent":  # newest first; ties: the higher id first, as ordered_ids
        present.sort(key=lambda n: (keys[ids[n]], ids[n]), reverse=True)
    else:
        present.sort(key=lambda n: (keys[ids[n]], ids[n]) if sort == "title" else keys[ids[n]])
    return present + gone


@dataclass(frozen=True)
class IdScores:
    """A score for some paper ids, as arrays (a million of them as a dict held ~100 MB)."""

    ids: np.ndarray  # int64, ascending, distinct
    values: np.ndarray  # float64, one per id

    @classmethod
    def of(cls, ids: np.ndarray, values: np.ndarray) -> IdScores:
        """The scores of ``ids`` (distinct, in any order)."""
        order = np.argsort(ids, kind="stable")
        return cls(np.asarray(ids, np.int64)[order], np.asarray(values, np.float64)[order])

    @classmethod
    def empty(cls) -> IdScores:
        """No paper scored."""
        return cls(np.zeros(0, np.int64), np.zeros(0))

    def __len__(self) -> int:
        return len(self.ids)


def by_score(ranked_ids: np.ndarray, scores: IdScores) -> Sequence[int]:
    """Positions of ``ranked_ids``: those with a score first, best first (ties keep their rank),
    then the others in their rank (the "recommended" sort: read and starred papers follow)."""
    ids = np.asarray(ranked_ids, np.int64)
    if not len(scores) or not len(ids):
        return list(range(len(ids)))
    at = np.minimum(np.searchsorted(scores.ids, ids), len(scores) - 1)
    has = scores.ids[at] == ids
    scored = np.flatnonzero(has)
    scored = scored[np.argsort(-scores.values[at[scored]], kind="stable")]  # stable: ties keep the rank
    return np.concatenate([scored, np.flatnonzero(~has)]).tolist()
