"""Each paper's object of `desk list --json`, kept in the database and checked against its rows.

Writing 100k papers' JSON took SQLite ~265 ms of every `desk list --json`. Since schema step 8
the database's triggers keep each paper's object in ``paper_listing``, rewritten in the same
transaction as any change to what it shows (the paper's row, its sources, its tags, a tag's
name), so a listing reads them (~45 ms). :data:`LIST_JSON` is how SQLite writes them from the
rows; :func:`differences` compares every kept object with it (`desk check`) and :func:`rebuild`
writes them all again (`desk check` when they disagree, a salvage). The importer writes the
objects of what it inserts itself, in one statement (:func:`defer`, :func:`write_deferred`).

Plain DB-API connections (sqlite3's, or SQLAlchemy's raw one): no ORM here, so that
``desk.core.library.quick`` can import it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any, Protocol


class Rows(Protocol):
    """A DB-API connection or cursor: what the check and the rebuild run statements on."""

    def execute(self, sql: str, parameters: Any = ..., /) -> Any: ...


#: Every character str.strip() takes for white space (tests/core/library/test_quick.py reads every code
#: point: written out, not computed, which took 1 ms of every command); a note of only these is no
#: note (PaperSummary.has_note: ``bool(note.strip())``).
WHITE_SPACE = (
    "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007"
    "\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)
_SOURCE_JSON = """CASE WHEN s.id IS NOT NULL THEN printf('{"file": %s, "index": %d, "collection": %s}',
        json_quote(s.file), s."index", json_quote(s.collection)) END"""  # none: no row to concat
_TAGS_JSON = """SELECT group_concat(j, ', ') FROM (
    SELECT json_quote(t.name) AS j FROM paper_tag AS pt JOIN tag AS t ON t.id = pt.tag_id
    WHERE pt.paper_id = p.id ORDER BY t.id)"""
#: A paper's metadata (schema step 9), only for a paper that has a paper_meta row: the authors in
#: order, then year, venue, url, doi, arxiv_id (JSON null when unknown).
_META_JSON = """(CASE WHEN m.paper_id IS NULL THEN '' ELSE printf(
        ', "authors": [%s], "year": %s, "venue": %s, "url": %s, "doi": %s, "arxiv_id": %s',
        coalesce((SELECT group_concat(j, ', ') FROM (SELECT json_quote(a.name) AS j
            FROM paper_author AS a WHERE a.paper_id = p.id ORDER BY a.position)), ''),
        coalesce(m.year, 'null'), json_quote(m.venue), json_quote(m.url), json_quote(m.doi),
        json_quote(m.arxiv_id)) END)"""
_NOTED = """p.id IN (SELECT id FROM paper INDEXED BY ix_paper_noted
    WHERE trim(note) != '' AND trim(note, :space) != '')"""


def _true_false(condition: str) -> str:
    return f"(CASE WHEN {condition} THEN 'true' ELSE 'false' END)"


#: A paper's object of `desk list --json` written by SQLite, with json.dumps' separators. json_quote
#: escapes as json.dumps(ensure_ascii=False) does (tested over every code point). Sources: the
#: papers (in id order, ix_paper_row) joined to theirs through ix_source_paper_id, whose entries
#: for one paper are in the order of the sources' ids (an index orders equal keys by rowid), and
#: grouped as they come (a correlated subquery per paper instead: the statement 440 ms, not 367,
#: at 100k real under load ~4.7, min of 6). Tags: read by a subquery
#: ordered by the tags' ids, only for a paper that has one. has_note: SQLite's trim() finds the
#: candidates (ix_paper_noted), trim(note, WHITE_SPACE) decides as strip() does. One printf() a
#: paper and a source, not a chain of ||: 263 ms against 286 at 100k real (the same bytes).
LIST_JSON = f"""SELECT CAST(printf('{{"id": %d, "title": %s, "short_name": %s, "starred": %s, "read": %s, \
"has_note": %s, "sources": [%s], "tags": [%s]%s}}',
    p.id, json_quote(coalesce(nullif(p.user_title, ''), p.derived_title)), json_quote(p.short_name),
    {_true_false("p.starred")}, {_true_false("p.read")}, {_true_false(_NOTED)},
    coalesce(group_concat({_SOURCE_JSON}, ', '), ''),
    (CASE WHEN p.id IN (SELECT paper_id FROM paper_tag) THEN coalesce(({_TAGS_JSON}), '') ELSE '' END),
    {_META_JSON}
) AS BLOB)
FROM paper AS p INDEXED BY ix_paper_row
LEFT JOIN source AS s INDEXED BY ix_source_paper_id ON s.paper_id = p.id
LEFT JOIN paper_meta AS m ON m.paper_id = p.id"""


#: LIST_JSON with each paper's id first, in id order: what the kept rows must equal.
_WRITTEN = f"SELECT p.id, {LIST_JSON.removeprefix('SELECT ')} GROUP BY p.id ORDER BY p.id"


def _pairs(cursor: Any) -> Iterator[tuple[int, bytes]]:
    while rows := cursor.fetchmany(4096):
        for paper_id, text in rows:
            yield int(paper_id), bytes(text)


def _differing(kept: Iterable[tuple[int, bytes]], written: Iterable[tuple[int, bytes]]) -> list[int]:
    """Ids whose object differs between two streams in ascending id order, or is in one only
    (a merge of the two: a million papers' objects are never all held at once)."""
    wrong: list[int] = []
    end = (1 << 63, b"")
    left, right = iter(kept), iter(written)
    a, b = next(left, end), next(right, end)
    while a is not end or b is not end:
        if a[0] == b[0]:
            if a[1] != b[1]:
                wrong.append(a[0])
            a, b = next(left, end), next(right, end)
        elif a[0] < b[0]:
            wrong.append(a[0])
            a = next(left, end)
        else:
            wrong.append(b[0])
            b = next(right, end)
    return wrong


def differences(conn: Rows) -> list[int]:
    """Ids of the papers whose kept object is not the one their rows give now, or that have
    a kept object and no paper (or the reverse): empty when the triggers kept every one. A
    writer's deferral left behind (see :func:`defer`) counts as a difference of id 0."""
    stuck = [0] if conn.execute("SELECT 1 FROM paper_listing_deferred LIMIT 1").fetchone() else []
    kept = _pairs(conn.execute("SELECT id, json FROM paper_listing ORDER BY id"))
    return stuck + _differing(kept, _pairs(conn.execute(_WRITTEN, {"space": WHITE_SPACE})))


def rebuild(conn: Rows) -> None:
    """Write every paper's object again (inside the caller's transaction)."""
    conn.execute("DELETE FROM paper_listing_deferred")
    conn.execute("DELETE FROM paper_listing")
    conn.execute(f"INSERT INTO paper_listing (id, json) {_WRITTEN}", {"space": WHITE_SPACE})


def defer(conn: Rows) -> None:
    """From here to :func:`write_deferred`, in one transaction, the insert triggers of papers
    and sources stand aside (schema step 8): the caller writes the objects of what it inserts
    in one statement instead (the importer: ~4 µs a paper against ~21 for the triggers)."""
    conn.execute("INSERT OR IGNORE INTO paper_listing_deferred (id) VALUES (1)")


def write_deferred(conn: Rows, ids: Iterable[int]) -> None:
    """Write the objects of the papers ``ids`` (every paper inserted, or given a source, since
    :func:`defer`), and let the insert triggers work again."""
    conn.execute(
        f"INSERT OR REPLACE INTO paper_listing (id, json) SELECT p.id, {LIST_JSON.removeprefix('SELECT ')}"
        " WHERE p.id IN (SELECT value FROM json_each(:ids)) GROUP BY p.id",
        {"ids": json.dumps(sorted(set(ids))), "space": WHITE_SPACE},
    )
    conn.execute("DELETE FROM paper_listing_deferred")
