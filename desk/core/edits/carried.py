"""What a merge carries onto the kept paper from a rich list's metadata, and takes back on unmerge.

A kept paper that lacks authors, a year, a venue, a link, a DOI or an arXiv id takes each from
the first merged paper that has it (its real title stays: a merge keeps the kept paper's title).
The merge record holds exactly what was given (``given``), so an unmerge or an undo removes
that and nothing else: a value still as the merge set it goes back to none, the authors go when
they are still the ones given, and a metadata row the merge made goes when nothing is left in
it. Plain SQL on the session's connection, inside the caller's transaction (schema step 9's
tables; their listing triggers keep `desk list --json` in step).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any

FIELDS = ("year", "venue", "url", "doi", "arxiv_id")
_COLUMNS = ", ".join(FIELDS)


def _row(conn: sqlite3.Connection, paper_id: int) -> dict[str, Any] | None:
    found = conn.execute(f"SELECT {_COLUMNS} FROM paper_meta WHERE paper_id = ?", (paper_id,)).fetchone()
    return None if found is None else dict(zip(FIELDS, found, strict=True))


def _authors(conn: sqlite3.Connection, paper_id: int) -> list[list[str]]:
    sql = "SELECT name, folded FROM paper_author WHERE paper_id = ? ORDER BY position"
    return [[str(name), str(folded)] for name, folded in conn.execute(sql, (paper_id,))]


def carry(conn: sqlite3.Connection, keep_id: int, other_ids: Sequence[int]) -> dict[str, Any] | None:
    """Give ``keep_id`` what it lacks of the others' metadata (the first that has each); what was
    given, for the merge record (None: nothing)."""
    keep = _row(conn, keep_id)
    has_authors = bool(_authors(conn, keep_id))
    given: dict[str, Any] = {}
    authors: list[list[str]] = []
    for other in other_ids:
        row = _row(conn, other)
        for name in FIELDS:
            if row is not None and row[name] is not None and (keep is None or keep[name] is None):
                given.setdefault(name, row[name])
        if not has_authors and not authors:
            authors = _authors(conn, other)
    if not given and not authors:
        return None
    made = keep is None
    _give(conn, keep_id, given, authors, make_row=made)
    return {"row": made, "fields": given, "authors": authors}


def _give(
    conn: sqlite3.Connection, keep_id: int, fields: dict[str, Any], authors: list[list[str]], make_row: bool
) -> None:
    # Plain INSERTs (the callers know the rows are not there): an OR IGNORE would also turn the
    # listing triggers' INSERT OR REPLACE into an OR IGNORE (SQLite lets the outer statement's
    # conflict policy win), leaving `desk list --json` without what was given.
    if make_row:
        conn.execute("INSERT INTO paper_meta (paper_id) VALUES (?)", (keep_id,))
    for name, value in fields.items():  # names from FIELDS only
        sql = f"UPDATE paper_meta SET {name} = ? WHERE paper_id = ? AND {name} IS NULL"
        conn.execute(sql, (value, keep_id))
    if authors:
        conn.executemany(
            "INSERT INTO paper_author (paper_id, position, name, folded) VALUES (?, ?, ?, ?)",
            [(keep_id, k, name, folded) for k, (name, folded) in enumerate(authors)],
        )


def give_again(conn: sqlite3.Connection, keep_id: int, given: dict[str, Any] | None) -> None:
    """A merge made again (an undone unmerge, a redo): what it gave, where the kept paper still
    lacks it (as the unmerge left it)."""
    if not given:
        return
    fields = {name: value for name, value in given["fields"].items() if name in FIELDS}
    authors = given["authors"] if given["authors"] and not _authors(conn, keep_id) else []
    _give(conn, keep_id, fields, authors, make_row=_row(conn, keep_id) is None)


def take_back(conn: sqlite3.Connection, keep_id: int, given: dict[str, Any] | None) -> None:
    """Take from ``keep_id`` what ``given`` says a merge gave it, where it is still so."""
    if not given:
        return
    for name, value in given["fields"].items():
        if name in FIELDS:
            conn.execute(
                f"UPDATE paper_meta SET {name} = NULL WHERE paper_id = ? AND {name} IS ?", (keep_id, value)
            )
    if given["authors"] and _authors(conn, keep_id) == given["authors"]:
        conn.execute("DELETE FROM paper_author WHERE paper_id = ?", (keep_id,))
    if given["row"]:
        empty = " AND ".join(f"{name} IS NULL" for name in ("title", *FIELDS))
        conn.execute(
            f"DELETE FROM paper_meta WHERE paper_id = ? AND {empty}"
            " AND NOT EXISTS (SELECT 1 FROM paper_author WHERE paper_id = ?)",
            (keep_id, keep_id),
        )
