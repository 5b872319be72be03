"""The database's answers to the filters it holds (``tag:``, ``is:starred``/``is:read``, ``in:``,
``saved:``), asked at query time so a change is searchable once committed.

Search as you type asks the same filters at every keystroke, and ``is:unread`` in a library of
100k papers half read is 50k ids: each answer is kept until the database changes (SQLite's
``PRAGMA data_version``, asked on a connection of its own: any commit, this process's or another's,
changes it), and the rows are read through the driver's cursor in one ``fetchall``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from desk.core.edits import saved_searches as saved
from desk.core.edits import tags as tagging
from desk.core.runtime.errors import DeskError
from desk.core.store.citations import citation_filter

if TYPE_CHECKING:
    from desk.core.store import Database


def _column(conn: Any, sql: str, params: tuple[object, ...] = ()) -> tuple[Any, ...]:
    """The first column of ``sql``'s rows, read by the driver's cursor at C speed."""
    raw = conn.connection.driver_connection
    return tuple(r[0] for r in raw.execute(sql, params).fetchall())


class LiveFilters:
    """desk.core.search.compiler.TagLookup over the library's database, its answers kept per
    database version."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self.clusters: Callable[[str], Sequence[int]] | None = None
        """What answers ``cluster:`` (the Library's map service), or None: no cluster matches."""
        self.nearby: Callable[[str], Sequence[int]] | None = None
        """What answers ``near:`` (the Library's map service), or None: nothing matches."""
        self._lock = threading.Lock()
        self._version: int | None = None
        self._kept: dict[tuple[str, str | None], Any] = {}

    def _answer(self, key: tuple[str, str | None], compute: Callable[[], Any]) -> Any:
        version = self.db.data_version()
        with self._lock:
            if version != self._version:
                self._kept.clear()
                self._version = version
            if key in self._kept:
                return self._kept[key]
        value = compute()  # read after the version was asked: never older than it
        with self._lock:
            if self._version == version:
                self._kept[key] = value
        return value

    def __call__(self, name: str | None) -> Sequence[int]:
        """Ids of the papers carrying the tag (None: any tag)."""

        def compute() -> tuple[int, ...]:
            with self.db.reading() as session:
                return tuple(tagging.paper_ids(session, name))

        return self._answer(("tag", name), compute)  # type: ignore[no-any-return]

    def flagged(self, fieldname: str) -> Sequence[int]:
        """Ids of the starred (or read) papers."""
        column = {"starred": "starred", "read": "read"}[fieldname]

        def compute() -> tuple[int, ...]:
            with self.db.reading() as session:
                return _column(session.connection(), f"SELECT id FROM paper WHERE {column} = 1")

        return self._answer(("flag", column), compute)  # type: ignore[no-any-return]

    def collection(self, name: str) -> Sequence[int]:
        """Ids of the papers with a source in the collection ``name`` (white space and case aside)."""
        wanted = " ".join(name.split()).casefold()

        def compute() -> tuple[int, ...]:
            with self.db.reading() as session:
                conn = session.connection()
                names = _column(conn, "SELECT DISTINCT collection FROM source")
                chosen = tuple(c for c in names if " ".join(c.split()).casefold() == wanted)
                if not chosen:
                    return ()
                marks = ", ".join("?" * len(chosen))
                sql = f"SELECT DISTINCT paper_id FROM source WHERE collection IN ({marks})"
                return _column(conn, sql, chosen)

        return self._answer(("in", wanted), compute)  # type: ignore[no-any-return]

    def cited(self, kind: str, value: str) -> Sequence[int]:
        """Ids of the papers ``author:``, ``year:`` or ``venue:`` ``value`` matches."""
        found = citation_filter(kind, value)
        if found is None:
            return ()
        sql, params = found

        def compute() -> tuple[int, ...]:
            with self.db.reading() as session:
                return _column(session.connection(), sql, params)

        return self._answer((kind, value), compute)  # type: ignore[no-any-return]

    def cluster(self, name: str) -> Sequence[int]:
        """Ids of the papers in the map's cluster ``name`` (its number or label); the map is
        derived, not the database: asked each time (the map service keeps it in memory)."""
        return self.clusters(name) if self.clusters is not None else ()

    def near(self, name: str) -> Sequence[int]:
        """Ids of the papers nearest a paper on the map (``near:ID``), asked of the map each time."""
        return self.nearby(name) if self.nearby is not None else ()

    def saved(self, name: str) -> str | None:
        """The query saved under ``name`` (any case), or None."""

        def compute() -> str | None:
            try:
                with self.db.reading() as session:
                    row = saved.get(session, name)
                    return row.query if row is not None else None
            except DeskError:  # an empty name
                return None

        return self._answer(("saved", name), compute)  # type: ignore[no-any-return]
