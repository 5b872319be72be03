"""RIS (Zotero, EndNote, Mendeley exports) to entries, with rispy.

The file is cut into entries at each ``TY  -`` line here, and rispy reads one entry at a time:
a damaged entry (rispy raises on some) is then skipped and named by its line, and the rest read.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from desk.core.reader.entries import (
    Entry,
    Metadata,
    Skip,
    arxiv_id_of,
    clean_abstract,
    clean_authors,
    clean_field,
    doi_of,
    first_last,
    url_of,
    year_of,
)

_TAG = re.compile(r"^[A-Z][A-Z0-9]  -( |$)")
_TY = re.compile(r"^TY  -( |$)")


def looks_like_ris(head: str) -> bool:
    """Whether text begins as RIS: its first non-blank line is a ``TY  - `` tag line."""
    for line in head.splitlines():
        if line.strip():
            return bool(_TY.match(line.lstrip("\ufeff")))
    return False


def _chunks(text: str) -> Iterator[tuple[int, list[str]]]:
    """(first line number, lines) of each entry, cut at ``TY`` lines."""
    start, lines = 0, list[str]()
    for number, line in enumerate(text.splitlines(), start=1):
        if _TY.match(line):
            if lines:
                yield start, lines
            start, lines = number, [line]
        elif lines:
            lines.append(line)
    if lines:
        yield start, lines


def read_ris(text: str) -> Iterator[Entry | Skip]:
    """The entries of an RIS file, in order."""
    import rispy

    for number, lines in _chunks(text):
        where = f"the entry at line {number}"
        if not any(line.startswith("ER  -") for line in lines):
            lines = [*lines, "ER  - "]  # the last entry of a file cut short: read what it has
        try:
            found = rispy.loads("\n".join(lines))
        except Exception:
            yield Skip(where, "could not be read as RIS; it was skipped")
            continue
        if len(found) != 1:
            yield Skip(where, "could not be read as RIS; it was skipped")
            continue
        yield _entry(found[0], where)


def _first(record: dict[str, Any], *names: str) -> Any:
    for name in names:
        value = record.get(name)
        if value:
            return value
    return None


def _entry(record: dict[str, Any], where: str) -> Entry | Skip:
    abstract = clean_abstract(_first(record, "abstract", "notes_abstract"))
    if not abstract:
        return Skip(where, "has no abstract", broken=False)
    names = _first(record, "authors", "first_authors") or []
    if isinstance(names, str):
        names = [names]
    url = url_of(_first(record, "urls", "url", "link"))
    title = clean_field(_first(record, "title", "primary_title", "translated_title"))
    venue = _first(
        record, "secondary_title", "journal_name", "alternate_title3", "alternate_title1", "tertiary_title"
    )
    doi = doi_of(record.get("doi")) or (doi_of(url) if url and "doi.org" in url else None)
    meta = Metadata(
        title=title,
        authors=clean_authors([first_last(str(n)) for n in names]),
        year=year_of(_first(record, "year", "publication_year", "date")),
        venue=clean_field(venue),
        url=url,
        doi=doi,
        arxiv_id=arxiv_id_of(url) if url and "arxiv.org" in url else None,
    )
    return Entry(abstract, meta, where)
