"""The peer a developer would pick: one plain SQLite FTS5 table (porter unicode61, bm25, snippet).

desk's query language is translated to FTS5's: words, phrases and prefixes become one ranked
OR (or, for the relevance test's second mode, AND) of terms; operators, fields and filters are
dropped, so FTS5 answers the "same ranked OR-of-words query".
"""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass
from pathlib import Path

TOKENIZE = "porter unicode61"
_QUERY_TOKEN = re.compile(r'"([^"]*)"?|(\S+)')
_DROP = frozenset({"OR", "AND", "NOT"})


@dataclass(frozen=True)
class Row:
    """One ranked FTS5 hit."""

    rowid: int
    score: float
    snippet: str


def read_abstracts(path: Path) -> list[str]:
    """The abstracts of one seed-format file (header, if any, left out), as the raw paragraphs."""
    text = path.read_text(encoding="utf-8-sig").replace("\r\n", "\n")
    paragraphs = [" ".join(p.split()) for p in re.split(r"\n\s*\n", text) if p.strip()]
    if paragraphs and len(paragraphs[0]) < 120 and ". " not in paragraphs[0]:
        paragraphs = paragraphs[1:]
    return paragraphs


def corpus_files(folder: Path) -> list[Path]:
    """The .txt files of a corpus folder, in name order."""
    return sorted(p for p in folder.rglob("*.txt") if p.is_file())


def to_match(query: str, mode: str = "or", last_prefix: bool = False) -> str | None:
    """FTS5 MATCH text for a desk query: its words, phrases and prefixes joined by OR (or AND).

    ``last_prefix`` makes the last bare word a prefix, as a search box does while it is typed.
    None when nothing searchable is left.
    """
    terms: list[str] = []
    matches = list(_QUERY_TOKEN.finditer(query))
    for k, m in enumerate(matches):
        phrase, word = m.group(1), m.group(2)
        if phrase is not None:
            tokens = re.findall(r"\w+", phrase)
            if tokens:
                terms.append('"' + " ".join(tokens) + '"')
            continue
        if word in _DROP or word.startswith("-") or word.lower().startswith(("is:", "has:")):
            continue
        if re.match(r"^[A-Za-z]+:.", word):  # a field query: its word (a title's "Rethinking:" stays)
            word = word.split(":", 1)[1]
        prefix = word.endswith("*") or (last_prefix and k == len(matches) - 1)
        tokens = re.findall(r"\w+", word)
        if not tokens:
            continue
        if prefix and len(tokens) == 1:
            terms.append(f'"{tokens[0]}"*')
        else:
            terms.append('"' + " ".join(tokens) + '"')
    if not terms:
        return None
    return (" OR " if mode == "or" else " AND ").join(dict.fromkeys(terms))


class Fts5:
    """A database file holding one FTS5 table ``docs(abstract, note)`` keyed by rowid."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.db = sqlite3.connect(path, isolation_level=None)
        self.db.execute("PRAGMA journal_mode=WAL")

    def close(self) -> None:
        """Close the connection."""
        self.db.close()

    def create(self) -> None:
        """Create the table (and a plain side table for the starred flag)."""
        self.db.execute(
            f"CREATE VIRTUAL TABLE IF NOT EXISTS docs USING fts5(abstract, note, tokenize='{TOKENIZE}')"
        )
        self.db.execute("CREATE TABLE IF NOT EXISTS flags(id INTEGER PRIMARY KEY, starred INTEGER NOT NULL)")
        self.db.execute("CREATE INDEX IF NOT EXISTS flags_starred ON flags(starred)")

    def insert(self, abstracts: list[str], first_rowid: int = 1) -> None:
        """Insert abstracts with consecutive rowids, in one transaction."""
        rows = [(first_rowid + i, a) for i, a in enumerate(abstracts)]
        self.db.execute("BEGIN")
        self.db.executemany("INSERT INTO docs(rowid, abstract, note) VALUES (?, ?, '')", rows)
        self.db.executemany("INSERT INTO flags(id, starred) VALUES (?, 0)", [(r,) for r, _ in rows])
        self.db.execute("COMMIT")

    def search(self, match: str | None, limit: int = 50) -> list[Row]:
        """Top hits by bm25 with a snippet of the abstract; [] for no query or an FTS5 syntax error."""
        if not match:
            return []
        sql = (
            "SELECT rowid, bm25(docs), snippet(docs, 0, '[', ']', '…', 24) FROM docs "
            "WHERE docs MATCH ? ORDER BY bm25(docs) LIMIT ?"
        )
        try:
            return [Row(r, s, snip) for r, s, snip in self.db.execute(sql, (match, limit))]
        except sqlite3.OperationalError:
            return []

    def set_note(self, rowid: int, note: str) -> None:
        """Replace a row's note (committed)."""
        self.db.execute("UPDATE docs SET note = ? WHERE rowid = ?", (note, rowid))

    def note_hits(self, word: str) -> list[int]:
        """Rowids whose note holds word."""
        return [
            r for (r,) in self.db.execute("SELECT rowid FROM docs WHERE docs MATCH ?", (f'note:"{word}"',))
        ]

    def set_starred(self, rowid: int, starred: bool) -> None:
        """Set a row's starred flag (committed)."""
        self.db.execute("UPDATE flags SET starred = ? WHERE id = ?", (int(starred), rowid))

    def starred(self, limit: int = 50) -> list[int]:
        """Starred rowids."""
        return [r for (r,) in self.db.execute("SELECT id FROM flags WHERE starred = 1 LIMIT ?", (limit,))]

    def check(self) -> None:
        """FTS5's own integrity check (raises on a problem)."""
        self.db.execute("INSERT INTO docs(docs) VALUES ('integrity-check')")
