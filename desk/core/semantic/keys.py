"""What a derived vector was computed from: a paper's id and the digest of its text.

An id alone does not name a text: ``desk restore`` gives a backup's ids back (its
``sqlite_sequence`` with them), so a paper imported after it may carry an id an earlier paper had,
and a backup from another library holds other papers under the same ids. Every row of a vector
store therefore carries the paper's *key* beside its id: the first 64 bits of the database's
duplicate key (``paper.key``, a BLAKE2b digest of the abstract's whole normalised text), read in
the same statement as the text the vector is computed from. A row is used only while the
database holds that (id, key) pair; any other row is dropped and its paper placed again.

Writers of a store check their rows against the database once more, inside ``write_lock``, just
before they write: ``desk restore`` drops the stores inside that lock too, so a build that read
the library before a restore cannot write its rows after it.
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import numpy as np

if TYPE_CHECKING:  # not imported at run time: a one-shot search reads the stores without SQLAlchemy
    from desk.core.store import Database

TABLE = "paper"  # desk.core.store.Paper's table
OTHER_TEXT = "computed from another text"  # how key_problems says a row is of another text
LOCK_NAME = "derived.lock"  # in the library folder: held while a vector store is written or dropped
READ_CHUNK = 900  # ids bound in one statement (below SQLite's parameter limit)
IDS_FETCHED = 8192  # rows fetched from a cursor at once
Keys = tuple[np.ndarray, np.ndarray]  # (ids ascending, their keys), both int64
Texts = dict[int, tuple[int, str]]  # paper id -> (its key, its abstract), for the papers present


def text_key(stored: str) -> int:
    """The int64 a store keeps of a paper's key: its digest's first 64 bits (any other text,
    hashed: a key written by something else still names its text)."""
    try:
        if len(stored) >= 16:
            return int.from_bytes(bytes.fromhex(stored[:16]), "big", signed=True)
    except ValueError:
        pass
    return int.from_bytes(
        hashlib.blake2b(stored.encode("utf-8", "surrogatepass"), digest_size=8).digest(), "big", signed=True
    )


class Papers(Protocol):
    """Where a vector store reads what it is computed from."""

    def keys(self) -> Keys:
        """Every paper's id (ascending) and key, now."""
        ...

    def texts(self, ids: Sequence[int]) -> Texts:
        """The key and abstract of each paper of ``ids`` still in the library (one snapshot)."""
        ...


def read_keys(conn: sqlite3.Connection) -> Keys:
    """Every paper's (id, key) from a plain SQLite connection, in one scan of the key's index."""
    cursor = conn.execute(f"SELECT id, key FROM {TABLE}")
    id_parts, key_parts = [np.zeros(0, np.int64)], [np.zeros(0, np.int64)]
    while rows := cursor.fetchmany(IDS_FETCHED):
        id_parts.append(np.fromiter((r[0] for r in rows), np.int64, len(rows)))
        key_parts.append(np.fromiter((text_key(str(r[1])) for r in rows), np.int64, len(rows)))
    ids, keys = np.concatenate(id_parts), np.concatenate(key_parts)
    order = np.argsort(ids, kind="stable")
    return ids[order], keys[order]


def read_texts(conn: sqlite3.Connection, ids: Sequence[int]) -> Texts:
    """The (key, abstract) of the papers ``ids`` present, each chunk read with its key."""
    out: Texts = {}
    wanted = [int(i) for i in ids]
    for start in range(0, len(wanted), READ_CHUNK):
        chunk = wanted[start : start + READ_CHUNK]
        marks = ",".join("?" * len(chunk))
        rows = conn.execute(f"SELECT id, key, abstract FROM {TABLE} WHERE id IN ({marks})", chunk)
        out.update((int(i), (text_key(str(k)), str(a))) for i, k, a in rows)
    return out


class DatabasePapers:
    """``Papers`` of a library's database (each call one read transaction)."""

    def __init__(self, db: Database) -> None:
        """Read from ``db``."""
        self.db = db

    @contextmanager
    def _conn(self) -> Iterator[sqlite3.Connection]:
        with self.db.reading() as session:
            raw = session.connection().connection.driver_connection
            assert isinstance(raw, sqlite3.Connection)
            yield raw

    def keys(self) -> Keys:
        """Every paper's id and key."""
        with self._conn() as conn:
            return read_keys(conn)

    def texts(self, ids: Sequence[int]) -> Texts:
        """The key and abstract of the papers of ``ids`` present, read in one transaction."""
        with self._conn() as conn:
            return read_texts(conn, ids)

    def read_ids(self) -> np.ndarray:
        """The ids of the papers marked read (int64): a build encodes the unread first."""
        with self._conn() as conn:
            rows = conn.execute(f"SELECT id FROM {TABLE} WHERE read = 1").fetchall()
        return np.fromiter((r[0] for r in rows), np.int64, len(rows))


def matching(
    ids: np.ndarray, keys: np.ndarray, wanted_ids: np.ndarray, wanted_keys: np.ndarray
) -> np.ndarray:
    """Which rows (``ids``, ``keys``) the library holds as they are (``wanted_ids`` ascending)."""
    ids = np.asarray(ids, np.int64)
    if not len(ids) or not len(wanted_ids):
        return np.zeros(len(ids), bool)
    rows = np.minimum(np.searchsorted(wanted_ids, ids), len(wanted_ids) - 1)
    return (wanted_ids[rows] == ids) & (wanted_keys[rows] == np.asarray(keys, np.int64))


def key_problems(
    prefix: str,
    stored_ids: np.ndarray,
    stored_keys: np.ndarray,
    ids: Sequence[int] | np.ndarray,
    keys: np.ndarray | None,
) -> list[str]:
    """How a store's rows (``stored_ids``, ``stored_keys``) differ from the papers ``ids`` with
    ``keys`` (ids alone when None), in words, each line beginning with ``prefix``."""
    in_store = set(np.asarray(stored_ids).tolist())
    wanted = set(np.asarray(ids).tolist())
    problems: list[str] = []
    found = [
        ("papers missing from the store", wanted - in_store),
        ("papers extra in the store", in_store - wanted),
    ]
    if keys is not None and len(stored_ids):
        wanted_ids = np.asarray(ids, np.int64)
        other = ~matching(stored_ids, stored_keys, wanted_ids, np.asarray(keys, np.int64))
        other &= np.isin(stored_ids, wanted_ids)
        found.append((f"papers' vectors {OTHER_TEXT}", set(stored_ids[other].tolist())))
    for label, gone in found:
        if gone:
            shown = ", ".join(map(str, sorted(gone)[:10])) + (" …" if len(gone) > 10 else "")
            problems.append(f"{prefix} {len(gone)} {label} ({shown})")
    return problems


@contextmanager
def write_lock(library: Path) -> Iterator[None]:
    """Hold the library's derived-store lock (``flock`` on LOCK_NAME) for the block.

    Held briefly: while a store checks its rows against the database and writes them, and while
    ``desk restore`` drops the stores and commits. Where the lock file cannot be made (a
    read-only folder: nothing can be written there anyway) or there is no flock, the block runs
    without it."""
    try:
        import fcntl
    except ImportError:  # Windows: no flock
        yield
        return
    import os

    try:
        fd = os.open(library / LOCK_NAME, os.O_RDWR | os.O_CREAT, 0o600)
    except OSError:
        yield
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)
