"""Writing the queued papers to the index with plain ``sqlite3``: `desk note` / `desk retitle`'s flush.

``IndexSync.flush``'s loop for a command that wrote a note or a title on the light path
(desk.core.edits.statements), without the ORM: each batch is written by the same
``desk.core.search.index_queue.write_batch`` inside one ``BEGIN IMMEDIATE`` transaction (the
database's write lock doubles as the index writer's lock), and the index is stamped current
once nothing is left queued. An index that cannot be written does not undo the change the
database committed: the papers stay queued and the reason is given back, as
``Library.index_behind`` says it, for the next open to catch up.
"""

from __future__ import annotations

import contextlib
import sqlite3
from pathlib import Path

from desk.core.library.quick import BUSY_TIMEOUT_MS
from desk.core.runtime import failures
from desk.core.runtime.logs import logger
from desk.core.runtime.paths import DATABASE_NAME, INDEX_DIR_NAME
from desk.core.search import index_queue

log = logger(__name__)  # logging imported when something is logged (desk/core/runtime/logs.py)


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
                done = index_queue.write_batch(conn, index)
                conn.execute("COMMIT")
            except BaseException:
                with contextlib.suppress(sqlite3.Error):
                    conn.execute("ROLLBACK")
                raise
            if done is None:
                return None
    except Exception as exc:
        log.debug("index flush failed; the papers stay queued", exc_info=True)
        why = failures.reason(exc, index.directory)
        return f"the search index is behind the database: it could not be written ({why})"
    finally:
        index.close()
        conn.close()
