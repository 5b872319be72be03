"""A library's reads in plain ``sqlite3``: the one way papers, lists, counts and tags are read.

``QuickLibrary(connection)`` answers on any connection inside its transaction: the ``Library``
reads through it on its session's own connection, and a command that only reads (``desk stats``,
``list``, ``show``, ``tags``) through :meth:`QuickLibrary.open`, which needs none of the ORM,
Whoosh or numpy: it returns a reader when the database is at this desk's schema version and the
index's signed stamp says it agrees with the database (``desk.core.search.freshness``), otherwise
None, and the command opens the whole ``Library``, which migrates, repairs and checks as always.
``open(write=True)`` gives the light writer the edits of ``desk.core.edits.statements`` run on.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from desk.core.records.page import Citation, PaperSummary, SourceInfo
from desk.core.runtime.errors import LibraryBusy, PaperNotFound
from desk.core.runtime.paths import DATABASE_NAME, INDEX_DIR_NAME
from desk.core.search import freshness
from desk.core.store.id_digest import ALL_IDS_SQL, ID_DIGEST_SQL
from desk.core.store.limits import IDS_PER_STATEMENT
from desk.core.store.schema_version import SCHEMA_VERSION

if TYPE_CHECKING:  # records a search does not use: imported where they are made (records.py)
    from desk.core.records.detail import PaperDetail, Stats, TagCount


BUSY_TIMEOUT_MS = 10_000  # as desk.core.store.database waits for a writer
LIST_FETCHED = 4096  # list_json's rows fetched at once
_SUMMARY = "id, user_title, derived_title, short_name, starred, read, note"
_ROW = "id, user_title, derived_title, short_name, starred, read"
#: A list row: id, title, short name, starred, read, has a note, its sources, its tags.
Row = tuple[int, str, "str | None", bool, bool, bool, list[tuple[str, int, str]], list[str]]
_DETAIL = _SUMMARY + ", abstract, abstract_raw, created_at, updated_at"
#: The covering index of _ROW's columns (schema step 7): a table row holds the abstract twice first.
_ROW_INDEX = "INDEXED BY ix_paper_row"


def _time(value: Any) -> datetime | None:
    """A DATETIME column as SQLAlchemy's SQLite dialect reads it back (naive, microseconds kept)."""
    return datetime.fromisoformat(value) if isinstance(value, str) else None


def _begin_immediate(conn: sqlite3.Connection, path: Path) -> None:
    """Take the write lock (waiting the busy timeout); a lock held past it is LibraryBusy."""
    try:
        conn.execute("BEGIN IMMEDIATE")
    except sqlite3.OperationalError as exc:
        from desk.core.runtime.failures import translate

        plain = translate(exc, path)
        if isinstance(plain, LibraryBusy):
            conn.close()
            raise LibraryBusy(
                "the library is busy: another desk kept it locked for "
                f"{BUSY_TIMEOUT_MS / 1000:g} s; try again in a moment"
            ) from exc
        raise


class QuickLibrary:
    """Read-only answers from a library whose index needs nothing done (see the module's doc)."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn

    @classmethod
    def open(cls, directory: Path, *, write: bool = False) -> QuickLibrary | None:
        """A reader for the library in ``directory``, or None when the whole Library must open it
        (no database yet, another schema version, an index that is not known to be current).

        ``write``: the transaction is a writer's (``BEGIN IMMEDIATE``, as ``Database.writing``
        takes it, with its pragmas), for desk.core.edits.statements; ``commit`` ends it. A library
        another desk keeps locked past the busy timeout raises LibraryBusy, as the Library's
        write would.
        """
        path = directory / DATABASE_NAME
        try:
            if path.stat().st_size == 0:
                return None
        except OSError:
            return None
        try:
            conn = sqlite3.connect(f"file:{path}?mode=rw", uri=True, isolation_level=None)
        except sqlite3.Error:
            return None
        try:
            conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            if write:  # desk.core.store.database._on_connect's
                conn.execute("PRAGMA foreign_keys = ON")
                conn.execute("PRAGMA synchronous = NORMAL")
                _begin_immediate(conn, path)
            else:
                conn.execute("PRAGMA query_only = ON")
                conn.execute("BEGIN")  # one snapshot for the check and every read after it
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            if version == SCHEMA_VERSION and freshness.is_current(directory / INDEX_DIR_NAME, conn):
                return cls(conn)
        except sqlite3.Error:
            pass
        conn.close()
        return None

    def close(self) -> None:
        """End the transaction (rolled back unless committed) and the connection."""
        self._conn.close()

    def commit(self) -> None:
        """Commit what a writer (``open(write=True)``) did; close() after it rolls back nothing."""
        self._conn.execute("COMMIT")

    @property
    def connection(self) -> sqlite3.Connection:
        """The connection, inside this reader's (or writer's) transaction."""
        return self._conn

    def __enter__(self) -> QuickLibrary:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- what Library answers --------------------------------------------------------------
    def stats(self) -> Stats:
        """Counts over the whole library (``Library.stats``)."""
        from desk.core.records.detail import Stats

        one = self._conn.execute
        papers = one("SELECT count(*) FROM paper").fetchone()[0]
        starred = one("SELECT count(*) FROM paper WHERE starred = 1").fetchone()[0]
        read = one("SELECT count(*) FROM paper WHERE read = 1").fetchone()[0]
        notes = one("SELECT count(*) FROM paper WHERE trim(note) != ''").fetchone()[0]
        sources = one("SELECT count(*) FROM source").fetchone()[0]
        per = one(
            "SELECT collection, count(DISTINCT paper_id) FROM source GROUP BY collection ORDER BY collection"
        )
        collections = {c: n for c, n in per}
        tags = {t.name: t.count for t in self.tag_counts()}
        return Stats(papers, sources, starred, read, notes, collections, tags)

    def tag_counts(self) -> list[TagCount]:
        """Every tag some paper carries, with its count, in the order tags were made (``Tags.counts``)."""
        from desk.core.records.detail import TagCount

        rows = self._conn.execute(
            "SELECT tag.name, count(paper_tag.paper_id) FROM tag JOIN paper_tag ON paper_tag.tag_id = tag.id"
            " GROUP BY tag.id ORDER BY tag.id"
        )
        return [TagCount(name, n) for name, n in rows]

    def list_papers(self, *, starred: bool = False, sort: str = "relevance") -> list[PaperSummary]:
        """Every paper (or every starred one) in import order (``Library.list_papers``); the other
        sorts are the Library's (desk/core/library/sorting.py): ValueError here."""
        if sort != "relevance":
            raise ValueError(f"QuickLibrary lists in import order only, not by {sort!r}")
        rows = self.list_rows(starred=starred)
        citations = self.citations(None if not starred else [r[0] for r in rows])
        return [
            PaperSummary(
                pid,
                title,
                short,
                st,
                rd,
                noted,
                tuple(SourceInfo(*s) for s in src),
                tuple(tags),
                citations.get(pid),
            )
            for pid, title, short, st, rd, noted, src, tags in rows
        ]

    def list_rows(self, *, starred: bool = False) -> list[Row]:
        """``list_papers`` as plain tuples (id, title, short_name, starred, read, has_note,
        [(file, index, collection)], [tag]): `desk list --json` prints 100k of them."""
        where = " WHERE starred = 1" if starred else ""
        rows = self._conn.execute(f"SELECT {_ROW} FROM paper {_ROW_INDEX}{where} ORDER BY id").fetchall()
        ids = None if not starred else [r[0] for r in rows]
        sources = self._source_rows(ids)
        tags = self._tags(ids)
        # Python's strip() decides, as PaperSummary.has_note does; SQLite's trim() only finds
        # the few candidates (ix_paper_noted), whose notes alone are read.
        noted = {
            pid
            for pid, note in self._conn.execute("SELECT id, note FROM paper WHERE trim(note) != ''")
            if note.strip()
        }
        none: list[Any] = []
        return [
            (
                pid,
                user_title or derived_title,
                short,
                bool(st),
                bool(rd),
                pid in noted,
                sources.get(pid, none),
                tags.get(pid, none),
            )
            for pid, user_title, derived_title, short, st, rd in rows
        ]

    def list_json(self, *, starred: bool = False) -> Iterator[bytes]:
        """Each paper's object of `desk list --json`, in id order, as the UTF-8 of its JSON text:
        the text ``json.dumps(summary_json(p), ensure_ascii=False)`` gives for ``list_papers``'
        records (tests/core/library/test_quick.py compares the bytes). Read from ``paper_listing``, where
        the database's triggers keep every paper's object as SQLite writes it (``listing.LIST_JSON``,
        schema step 8): at 100k papers, reading them is ~45 ms where writing them was ~265.
        Bytes (a BLOB): 30 MB that are neither decoded into strings here nor encoded again on
        the way out."""
        sql = "SELECT json FROM paper_listing ORDER BY id"
        if starred:
            sql = (
                "SELECT l.json FROM paper AS p INDEXED BY ix_paper_starred JOIN paper_listing AS l"
                " ON l.id = p.id WHERE p.starred = 1 ORDER BY p.id"
            )
        cursor = self._conn.execute(sql)
        while rows := cursor.fetchmany(LIST_FETCHED):
            for (text,) in rows:
                yield text

    def paper(self, paper_id: int) -> PaperDetail:
        """One paper in full (``Library.paper``); raises PaperNotFound."""
        return self.papers([paper_id])[0]

    def papers(self, ids: Sequence[int]) -> list[PaperDetail]:
        """Several papers in full, in the order asked (``Library.papers``); raises PaperNotFound
        for the first id with no paper."""
        from desk.core.records.detail import PaperDetail

        wanted = list(dict.fromkeys(ids))
        rows: dict[int, Any] = {}
        for start in range(0, len(wanted), IDS_PER_STATEMENT):
            chunk = wanted[start : start + IDS_PER_STATEMENT]
            marks = ",".join("?" * len(chunk))
            rows.update(
                (r[0], r)
                for r in self._conn.execute(f"SELECT {_DETAIL} FROM paper WHERE id IN ({marks})", chunk)
            )
        for i in ids:
            if i not in rows:
                raise PaperNotFound(i)
        sources, tags, citations = self._sources(wanted), self._tags(wanted), self.citations(wanted)
        out = []
        for i in ids:
            row = rows[i]
            s = self._summary(row, sources, tags, citations)
            out.append(
                PaperDetail(
                    **{f: getattr(s, f) for f in s.__dataclass_fields__},
                    abstract=row[7],
                    abstract_raw=row[8],
                    note=row[6],
                    derived_title=row[2],
                    user_title=row[1],
                    created_at=_time(row[9]),
                    updated_at=_time(row[10]),
                )
            )
        return out

    def summaries(self, ids: Sequence[int]) -> dict[int, PaperSummary]:
        """Row records for the given ids, those that exist (``Library.summaries``)."""
        wanted = list(ids)
        rows: list[Any] = []
        for start in range(0, len(wanted), IDS_PER_STATEMENT):
            chunk = wanted[start : start + IDS_PER_STATEMENT]
            marks = ",".join("?" * len(chunk))
            rows += self._conn.execute(f"SELECT {_SUMMARY} FROM paper WHERE id IN ({marks})", chunk)
        found = [r[0] for r in rows]
        sources, tags, citations = self._sources(found), self._tags(found), self.citations(found)
        return {r[0]: self._summary(r, sources, tags, citations) for r in rows}

    def all_ids(self) -> list[int]:
        """Every paper id, ascending (read from the covering index ix_paper_rev: the table's own
        pages hold the abstracts, 400 MB at 100k papers)."""
        return sorted(r[0] for r in self._conn.execute(ALL_IDS_SQL))

    def id_digest(self) -> tuple[int, int, int]:
        """(count, sum, sum of squares mod 2^31 - 1) of every paper id: ``id_digest_of`` of
        ``all_ids()``, in one scan of a covering index without a row leaving SQLite."""
        count, total, squares = self._conn.execute(ID_DIGEST_SQL).fetchone()
        return int(count), int(total), int(squares)

    def column(self, sql: str, params: Sequence[object] = ()) -> tuple[Any, ...]:
        """The first column of ``sql``'s rows, in this reader's transaction."""
        return tuple(r[0] for r in self._conn.execute(sql, params).fetchall())

    # -- rows --------------------------------------------------------------------------------
    @staticmethod
    def _summary(
        row: Sequence[Any],
        sources: dict[int, list[SourceInfo]],
        tags: dict[int, list[str]],
        citations: dict[int, Citation],
    ) -> PaperSummary:
        pid, user_title, derived_title, short_name, starred, read, note = row[:7]
        return PaperSummary(
            id=pid,
            title=user_title or derived_title,
            short_name=short_name,
            starred=bool(starred),
            read=bool(read),
            has_note=bool(note.strip()),
            sources=tuple(sources.get(pid, ())),
            tags=tuple(tags.get(pid, ())),
            citation=citations.get(pid),
        )

    def citations(self, ids: Sequence[int] | None) -> dict[int, Citation]:
        """What rich lists said about the papers ``ids`` (every paper when None) that have it."""
        authors: dict[int, list[str]] = {}
        sql = "SELECT paper_id, name FROM paper_author"
        for pid, name in self._chunks(sql, "paper_id", ids, "paper_id, position"):
            authors.setdefault(pid, []).append(name)
        sql = "SELECT paper_id, year, venue, url, doi, arxiv_id FROM paper_meta"
        return {
            pid: Citation(tuple(authors.get(pid, ())), year, venue, url, doi, arxiv_id)
            for pid, year, venue, url, doi, arxiv_id in self._chunks(sql, "paper_id", ids, "paper_id")
        }

    def _chunks(self, sql: str, key: str, ids: Sequence[int] | None, order: str) -> Iterator[Any]:
        """Rows of ``sql`` whose ``key`` is one of ``ids`` (every row when ids is None), in ``order``."""
        if ids is None:
            yield from self._conn.execute(f"{sql} ORDER BY {order}")
            return
        for start in range(0, len(ids), IDS_PER_STATEMENT):
            chunk = list(ids[start : start + IDS_PER_STATEMENT])
            marks = ",".join("?" * len(chunk))
            yield from self._conn.execute(f"{sql} WHERE {key} IN ({marks}) ORDER BY {order}", chunk)

    def _sources(self, ids: Sequence[int] | None) -> dict[int, list[SourceInfo]]:
        return {pid: [SourceInfo(*s) for s in rows] for pid, rows in self._source_rows(ids).items()}

    def _source_rows(self, ids: Sequence[int] | None) -> dict[int, list[tuple[str, int, str]]]:
        out: dict[int, list[tuple[str, int, str]]] = {}
        sql = 'SELECT paper_id, file, "index", collection FROM source'
        for pid, file, index, collection in self._chunks(sql, "paper_id", ids, "id"):
            out.setdefault(pid, []).append((file, index, collection))
        return out

    def _tags(self, ids: Sequence[int] | None) -> dict[int, list[str]]:
        out: dict[int, list[str]] = {}
        sql = "SELECT paper_tag.paper_id, tag.name FROM paper_tag JOIN tag ON tag.id = paper_tag.tag_id"
        for pid, name in self._chunks(sql, "paper_tag.paper_id", ids, "tag.id"):
            out.setdefault(pid, []).append(name)
        return out
