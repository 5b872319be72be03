"""Writing the queued papers to the index with plain ``sqlite3``: `desk note` / `desk retitle`'s flush.

``IndexSync.flush``'s work (desk.core.search.index_sync) for a command that wrote a note or a
title on the light path (desk.core.edits.statements): each batch of queued papers is read,
written to the index and taken off the queue inside one ``BEGIN IMMEDIATE`` transaction (the
database's write lock doubles as the index writer's lock), and the index is stamped current
once nothing is left queued. An index that cannot be written does not undo the change the
database committed: the papers stay queued and the reason is given back, as
``Library.index_behind`` says it, for the next open to catch up.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from desk.core.library.quick import BUSY_TIMEOUT_MS, CHUNK
from desk.core.runtime import failures
from desk.core.runtime.logs import logger
from desk.core.runtime.paths import DATABASE_NAME, INDEX_DIR_NAME
from desk.core.search import freshness
from desk.core.search.names import INDEX_BATCH

log = logger(__name__)  # logging imported when something is logged (desk/core/runtime/logs.py)
BATCH = INDEX_BATCH

if TYPE_CHECKING:
    from desk.core.search.model import IndexDoc


def docs(conn: sqlite3.Connection, ids: Sequence[int]) -> list[IndexDoc]:
    """The index documents of the papers ``ids``, as index_sync._docs reads them (id order;
    a paper's collections in the order of its sources, each once)."""
    from desk.core.search.model import IndexDoc

    rows: list[Any] = []
    wanted = list(ids)
    for start in range(0, len(wanted), CHUNK):
        chunk = wanted[start : start + CHUNK]
        marks = ",".join("?" * len(chunk))
        rows += conn.execute(
            "SELECT id, rev, user_title, derived_title, short_name, abstract, note, starred, read"
            f" FROM paper WHERE id IN ({marks})",
            chunk,
        ).fetchall()
    rows.sort(key=lambda r: int(r[0]))
    collections: dict[int, dict[str, None]] = {int(r[0]): {} for r in rows}
    found = list(collections)
    for start in range(0, len(found), CHUNK):
        chunk = found[start : start + CHUNK]
        marks = ",".join("?" * len(chunk))
        sql = f"SELECT paper_id, collection FROM source WHERE paper_id IN ({marks}) ORDER BY id"
        for paper_id, collection in conn.execute(sql, chunk):
            collections[paper_id][collection] = None
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
        )
        for pid, rev, user_title, derived_title, short_name, abstract, note, starred, read in rows
    ]


def flush(directory: Path) -> str | None:
    """Write every queued paper of the library in ``directory`` to its index; None when done,
    else why the index is behind (the papers stay queued)."""
    from desk.core.search import SearchIndex

    index = SearchIndex(directory / INDEX_DIR_NAME, one_shot=True)
    conn = sqlite3.connect(directory / DATABASE_NAME, isolation_level=None)
    try:
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        conn.execute("PRAGMA foreign_keys = ON")
        conn.execute("PRAGMA synchronous = NORMAL")
        while True:
            conn.execute("BEGIN IMMEDIATE")
            try:
                ids = [r[0] for r in conn.execute("SELECT paper_id FROM index_queue LIMIT ?", (BATCH,))]
                if not ids:
                    try:
                        freshness.write(index.directory, conn)
                    except Exception:  # only a shortcut: the next open checks in full
                        log.debug("could not stamp the index as current", exc_info=True)
                    conn.execute("COMMIT")
                    return None
                found = docs(conn, ids)
                index.update(found, None, "auto", reload=lambda more: docs(conn, more))
                gone = set(ids) - {d.id for d in found}
                if gone:
                    index.delete(gone)
                for start in range(0, len(ids), CHUNK):
                    chunk = ids[start : start + CHUNK]
                    marks = ",".join("?" * len(chunk))
                    conn.execute(f"DELETE FROM index_queue WHERE paper_id IN ({marks})", chunk)
                conn.execute("COMMIT")
            except BaseException:
                with contextlib.suppress(sqlite3.Error):
                    conn.execute("ROLLBACK")
                raise
    except Exception as exc:
        log.debug("index flush failed; the papers stay queued", exc_info=True)
        why = failures.reason(exc, index.directory)
        return f"the search index is behind the database: it could not be written ({why})"
    finally:
        index.close()
        conn.close()
