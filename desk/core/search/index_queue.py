"""The index queue and the documents the index is written from, in plain SQL on a connection.

The one place both of the index's writers read them: ``IndexSync`` (under the Library's
``Database.writing`` transaction, through its session's connection) and the command line's
light path (``desk.core.library.quick_index``, on a bare ``sqlite3`` connection). Every function
runs inside the caller's transaction; a write transaction doubles as the cross-process lock on
the index writer.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from desk.core.runtime.logs import logger
from desk.core.search import freshness
from desk.core.search.names import INDEX_BATCH
from desk.core.store.limits import IDS_PER_STATEMENT

if TYPE_CHECKING:
    from desk.core.runtime.processes import WorkerPool
    from desk.core.search.index import SearchIndex
    from desk.core.search.model import IndexDoc, Merge

log = logger(__name__)  # logging imported when something is logged (desk/core/runtime/logs.py)
_DOC_SQL = "SELECT id, rev, user_title, derived_title, short_name, abstract, note, starred, read FROM paper"


def chunks(ids: Sequence[int]) -> list[list[int]]:
    """``ids`` sorted, in pieces of IDS_PER_STATEMENT."""
    ordered = sorted(ids)
    return [ordered[k : k + IDS_PER_STATEMENT] for k in range(0, len(ordered), IDS_PER_STATEMENT)]


def _marks(chunk: Sequence[int]) -> str:
    return ",".join("?" * len(chunk))


def queued(conn: sqlite3.Connection, limit: int) -> list[int]:
    """Up to ``limit`` papers queued for the index."""
    return [int(r[0]) for r in conn.execute("SELECT paper_id FROM index_queue LIMIT ?", (limit,))]


def queued_among(conn: sqlite3.Connection, ids: Sequence[int]) -> set[int]:
    """Which of ``ids`` are queued for the index."""
    found: set[int] = set()
    for chunk in chunks(ids):
        sql = f"SELECT paper_id FROM index_queue WHERE paper_id IN ({_marks(chunk)})"
        found.update(int(r[0]) for r in conn.execute(sql, chunk))
    return found


def unqueue(conn: sqlite3.Connection, ids: Sequence[int]) -> None:
    """Take papers off the index queue."""
    for chunk in chunks(ids):
        conn.execute(f"DELETE FROM index_queue WHERE paper_id IN ({_marks(chunk)})", chunk)


def docs(conn: sqlite3.Connection, ids: Sequence[int]) -> list[IndexDoc]:
    """The index documents of the papers ``ids`` that exist, in id order."""
    rows: list[Any] = []
    for chunk in chunks(ids):
        rows += conn.execute(f"{_DOC_SQL} WHERE id IN ({_marks(chunk)}) ORDER BY id", chunk).fetchall()
    return _documents(conn, rows)


def docs_after(conn: sqlite3.Connection, last: int, limit: int) -> list[IndexDoc]:
    """The documents of the first ``limit`` papers whose id is above ``last``, in id order."""
    rows = conn.execute(f"{_DOC_SQL} WHERE id > ? ORDER BY id LIMIT ?", (last, limit)).fetchall()
    return _documents(conn, rows)


def _documents(conn: sqlite3.Connection, rows: list[Any]) -> list[IndexDoc]:
    """Documents from paper rows (id order); a paper's collections in the order of its sources, each
    once; its authors in their order, then the accent-free forms of those that have accents
    (Schölkopf is found as typed either way)."""
    from desk.core.search.model import IndexDoc

    collections: dict[int, dict[str, None]] = {int(r[0]): {} for r in rows}
    names: dict[int, list[str]] = {}
    folded: dict[int, list[str]] = {}
    for chunk in chunks(list(collections)):
        sql = f"SELECT paper_id, collection FROM source WHERE paper_id IN ({_marks(chunk)}) ORDER BY id"
        for paper_id, collection in conn.execute(sql, chunk):
            collections[paper_id][collection] = None
        sql = (
            f"SELECT paper_id, name, folded FROM paper_author WHERE paper_id IN ({_marks(chunk)})"
            " ORDER BY paper_id, position"
        )
        for paper_id, name, fold in conn.execute(sql, chunk):
            names.setdefault(paper_id, []).append(name)
            if fold != name.lower():
                folded.setdefault(paper_id, []).append(fold)
    return [
        IndexDoc(
            id=int(pid),
            rev=int(rev),
            title=str(user_title or derived_title),
            short_name=str(short_name or ""),
            abstract=str(abstract),
            note=str(note),
            starred=bool(starred),
            read=bool(read),
            collections=tuple(collections[int(pid)]),
            authors="\n".join(names.get(int(pid), []) + folded.get(int(pid), [])),
        )
        for pid, rev, user_title, derived_title, short_name, abstract, note, starred, read in rows
    ]


def stamp(index_dir: Path, conn: sqlite3.Connection, seen: tuple[str, str] | None = None) -> None:
    """Stamp the index as current when nothing is left queued (under the write lock the caller holds)."""
    try:
        freshness.write(index_dir, conn, seen)
    except Exception:  # derived, and only a shortcut: the next open checks in full
        log.debug("could not stamp the index as current", exc_info=True)


def write_batch(
    conn: sqlite3.Connection,
    index: SearchIndex,
    pool: WorkerPool | None = None,
    merge: Merge = "auto",
    limit: int = INDEX_BATCH,
) -> int | None:
    """Write the next ``limit`` queued papers to the index and take them off the queue, inside the
    caller's write transaction; how many, or None when the queue was empty (the index is then
    stamped current). Papers deleted since they were queued leave the index."""
    ids = queued(conn, limit)
    if not ids:
        stamp(index.directory, conn)
        return None
    reload: Callable[[Sequence[int]], list[IndexDoc]] = lambda more: docs(conn, more)  # noqa: E731
    found = docs(conn, ids)
    index.update(found, pool, merge, reload=reload)
    gone = set(ids) - {d.id for d in found}
    if gone:
        index.delete(gone)
    unqueue(conn, ids)
    return len(ids)
