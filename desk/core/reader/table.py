"""CSV and TSV with a header row (conference sites, spreadsheets) to entries.

Columns are found by name, in any case and with any spacing ("Abstract", "paper title",
"Authors"); an abstract column (abstract or summary) is required, or the file is refused. Quoted
cells may hold the delimiter and newlines (Python's csv module, with a field size bound).
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterator

from desk.core.reader.entries import (
    Entry,
    Metadata,
    Skip,
    arxiv_id_of,
    clean_abstract,
    clean_authors,
    clean_field,
    doi_of,
    split_author_string,
    url_of,
    year_of,
)

MAX_CELL_CHARS = 1_000_000
NO_ABSTRACT_COLUMN = (
    "has a header row but no abstract column; desk reads CSV/TSV files with a column named "
    "“abstract” or “summary” (and title, authors, year, venue, url, doi when there)"
)

#: Column role -> header names, compared lowercased with spaces, "_" and "-" removed.
COLUMNS: dict[str, tuple[str, ...]] = {
    "abstract": ("abstract", "summary", "abstracttext", "paperabstract", "abstractnote"),
    "title": ("title", "papertitle", "name", "articletitle"),
    "authors": ("authors", "author", "authorlist", "authornames", "creators"),
    "year": ("year", "publicationyear", "date", "published"),
    "venue": ("venue", "conference", "journal", "booktitle", "publicationtitle", "source", "proceedings"),
    "url": ("url", "link", "paperurl", "pdf", "pdfurl", "forum"),
    "doi": ("doi",),
    "arxiv_id": ("arxiv", "arxivid", "eprint"),
}
_ROLE_OF = {name: role for role, names in COLUMNS.items() for name in names}
_SQUASH = re.compile(r"[\s_\-.]+")


def _role(header: str) -> str | None:
    return _ROLE_OF.get(_SQUASH.sub("", header.strip().lstrip("\ufeff").lower()))


def delimiter_of(first_line: str) -> str | None:
    """The delimiter of a header line (tab, comma or semicolon), when it names a known column."""
    counts = {d: first_line.count(d) for d in ("\t", ",", ";")}
    for delimiter, _ in sorted(counts.items(), key=lambda pair: -pair[1]):
        if counts[delimiter] == 0:
            break
        try:
            cells = next(csv.reader([first_line], delimiter=delimiter), [])
        except csv.Error:
            continue
        if any(_role(cell) in ("abstract", "title") for cell in cells):
            return delimiter
    return None


def looks_like_table(head: str) -> bool:
    """Whether text begins with a header row naming an abstract or title column."""
    first = _first_line(head)
    return delimiter_of(first) is not None


def has_abstract_column(head: str) -> bool:
    """Whether the header row names an abstract column."""
    first = _first_line(head)
    delimiter = delimiter_of(first)
    if delimiter is None:
        return False
    try:
        return any(_role(c) == "abstract" for c in next(csv.reader([first], delimiter=delimiter), []))
    except csv.Error:
        return False


def _first_line(text: str) -> str:
    return text[:65_536].lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n").split("\n", 1)[0]


def read_table(text: str) -> Iterator[Entry | Skip]:
    """The rows of a CSV/TSV file with a header, as entries (the header is line 1)."""
    text = text.lstrip("\ufeff")
    first = _first_line(text)
    delimiter = delimiter_of(first) or ","
    csv.field_size_limit(MAX_CELL_CHARS)
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    header = next(reader, [])
    roles: dict[str, int] = {}
    for column, name in enumerate(header):
        role = _role(name)
        if role is not None and role not in roles:
            roles[role] = column
    number = 1
    while True:
        where = f"the row at line {reader.line_num + 1}"
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            yield Skip(where, f"could not be read as CSV ({exc}); it was skipped")
            continue
        number += 1
        if not any(cell.strip() for cell in row):
            continue
        yield _entry(row, roles, where)


def _cell(row: list[str], roles: dict[str, int], role: str) -> str:
    column = roles.get(role)
    return row[column] if column is not None and column < len(row) else ""


def _entry(row: list[str], roles: dict[str, int], where: str) -> Entry | Skip:
    abstract = clean_abstract(_cell(row, roles, "abstract"))
    if not abstract:
        return Skip(where, "has no abstract", broken=False)
    url = url_of(_cell(row, roles, "url"))
    arxiv = arxiv_id_of(_cell(row, roles, "arxiv_id")) or (
        arxiv_id_of(url) if url and "arxiv.org" in url else None
    )
    meta = Metadata(
        title=clean_field(_cell(row, roles, "title")),
        authors=clean_authors(split_author_string(_cell(row, roles, "authors"))),
        year=year_of(_cell(row, roles, "year")),
        venue=clean_field(_cell(row, roles, "venue")),
        url=url,
        doi=doi_of(_cell(row, roles, "doi")),
        arxiv_id=arxiv,
    )
    return Entry(abstract, meta, where)
