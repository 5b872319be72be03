"""A rich list's metadata into the database: the real title, authors, year, venue, links (schema step 9).

Plain SQL on the importer's cursor, inside its transaction. A paper keeps the first metadata a
list gives it: the same abstract from a bare list and a rich one is one paper that takes the rich
list's real title and authors, whichever came first, and a later list does not overwrite them.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence

from desk.core.reader import Metadata
from desk.core.text.folding import fold

CHUNK = 500
def exact_ids(cur: sqlite3.Cursor, metadata: Iterable[Metadata]) -> tuple[dict[str, int], dict[str, int]]:
    """(doi -> paper id, arXiv id -> paper id) of the papers in the library holding one of these (a
    paper merged away or in the trash keeps its metadata row for its return: not one of them)."""
    dois = list({m.doi for m in metadata if m.doi})
    arxiv = list({m.arxiv_id for m in metadata if m.arxiv_id})
    by_doi: dict[str, int] = {}
    by_arxiv: dict[str, int] = {}
    for values, column, found in ((dois, "doi", by_doi), (arxiv, "arxiv_id", by_arxiv)):
        for start in range(0, len(values), CHUNK):
            chunk = values[start : start + CHUNK]
            marks = ", ".join("?" * len(chunk))
            sql = (
                f"SELECT m.{column}, m.paper_id FROM paper_meta AS m JOIN paper AS p ON p.id = m.paper_id"
                f" WHERE m.{column} IN ({marks}) ORDER BY m.paper_id"
            )
            for value, paper_id in cur.execute(sql, chunk):
                found.setdefault(value, paper_id)
    return by_doi, by_arxiv


def with_metadata(cur: sqlite3.Cursor, ids: Sequence[int]) -> set[int]:
    """The papers of ``ids`` that already have metadata."""
    have: set[int] = set()
    unique = list(dict.fromkeys(ids))
    for start in range(0, len(unique), CHUNK):
        chunk = unique[start : start + CHUNK]
        marks = ", ".join("?" * len(chunk))
        have.update(
            r[0] for r in cur.execute(f"SELECT paper_id FROM paper_meta WHERE paper_id IN ({marks})", chunk)
        )
    return have


def write_metadata(cur: sqlite3.Cursor, rows: Sequence[tuple[int, Metadata]]) -> None:
    """Insert each paper's metadata and authors (papers that had none)."""
    if not rows:
        return
    cur.executemany(
        "INSERT OR IGNORE INTO paper_meta (paper_id, title, year, venue, url, doi, arxiv_id)"
        " VALUES (?, ?, ?, ?, ?, ?, ?)",
        [(pid, m.title, m.year, m.venue, m.url, m.doi, m.arxiv_id) for pid, m in rows],
    )
    cur.executemany(
        "INSERT OR IGNORE INTO paper_author (paper_id, position, name, folded) VALUES (?, ?, ?, ?)",
        [(pid, k, name, fold(name)) for pid, m in rows for k, name in enumerate(m.authors)],
    )
