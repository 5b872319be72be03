"""JSON records to entries: OpenReview API notes (v2 and v1), the arXiv metadata snapshot, plain records.

Shapes read: ``{"notes": [...]}`` (OpenReview's API), ``{"papers": [...]}`` (desk's own JSON
export) or any object holding one list of records, a bare array of records, and JSON lines (one
record a line: the arXiv snapshot, read as a stream by ``desk.core.reader.streaming``).

A record is an OpenReview note when it has a ``content`` object (v2: every value wrapped as
``{"value": ...}``; v1: plain), an arXiv record when it has ``authors_parsed`` or ``versions``,
and otherwise a plain object whose keys are matched by name as CSV columns are.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
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
    split_author_string,
    url_of,
    year_of,
)

_LIST_KEYS = ("notes", "papers", "records", "items", "results", "data", "entries")
_NEW_ARXIV_ID = re.compile(r"(\d\d)(\d\d)\.\d{4,5}")
#: Plain record keys (lowercased, "_" and "-" removed) -> role.
_KEYS: dict[str, str] = {
    "title": "title", "papertitle": "title",
    "abstract": "abstract", "summary": "abstract", "tldr": "",
    "authors": "authors", "author": "authors", "authorlist": "authors", "creators": "authors",
    "year": "year", "date": "year", "published": "year", "publicationdate": "year",
    "venue": "venue", "journal": "venue", "booktitle": "venue", "conference": "venue", "journalref": "venue",
    "url": "url", "link": "url", "pdf": "url", "pdfurl": "url", "forum": "url", "html": "url",
    "doi": "doi",
    "arxivid": "arxiv_id", "arxiv": "arxiv_id", "eprint": "arxiv_id",
}  # fmt: skip
_SQUASH = re.compile(r"[\s_\-.]+")


def looks_like_json(head: str) -> bool:
    """Whether text begins as JSON (an object or an array)."""
    return head.lstrip("\ufeff \t\r\n")[:1] in ("{", "[")


def records_of(document: Any) -> list[Any] | None:
    """The records of a parsed JSON document, or None when it holds no list of records."""
    if isinstance(document, list):
        return document
    if not isinstance(document, dict):
        return None
    for key in _LIST_KEYS:
        if isinstance(document.get(key), list):
            return list(document[key])
    lists = [v for v in document.values() if isinstance(v, list) and v and isinstance(v[0], dict)]
    if len(lists) == 1:
        return lists[0]
    if "content" in document or any(_role(k) == "abstract" for k in document):
        return [document]  # one record alone
    return None


def read_json_records(
    records: Iterable[Any], first: int = 1, label: str = "record"
) -> Iterator[Entry | Skip]:
    """Entries of parsed JSON records, numbered from ``first`` ("record 3", "line 3")."""
    for number, record in enumerate(records, start=first):
        yield record_entry(record, f"{label} {number}")


def read_json_lines(lines: Iterable[str], first_line: int = 1) -> Iterator[Entry | Skip]:
    """Entries of JSON lines (blank lines skipped), each line parsed on its own."""
    for number, line in enumerate(lines, start=first_line):
        if not line.strip():
            continue
        where = f"line {number}"
        try:
            record = json.loads(line)
        except ValueError as exc:
            yield Skip(where, f"is not valid JSON ({_short(exc)}); it was skipped")
            continue
        yield record_entry(record, where)


def _short(exc: ValueError) -> str:
    text = str(exc)
    return text if len(text) <= 80 else text[:80] + "…"


def _role(key: object) -> str | None:
    return _KEYS.get(_SQUASH.sub("", str(key).lower())) if isinstance(key, str) else None


def record_entry(record: Any, where: str) -> Entry | Skip:
    """One JSON record as an entry (an OpenReview note, an arXiv record or a plain record)."""
    if not isinstance(record, dict):
        return Skip(where, "is not a JSON object with a title and an abstract; it was skipped")
    try:
        if isinstance(record.get("content"), dict):
            return _note(record, where)
        if "authors_parsed" in record or "versions" in record:
            return _arxiv(record, where)
        return _plain(record, where)
    except (TypeError, ValueError, AttributeError, IndexError, KeyError, OverflowError):
        return Skip(where, "has fields of unexpected types; it was skipped")


def _unwrap(value: Any) -> Any:
    """An OpenReview v2 value ``{"value": x}`` as x (a v1 value as it is)."""
    if isinstance(value, dict) and "value" in value:
        return value["value"]
    return value


def _names(value: Any) -> list[str]:
    if isinstance(value, str):
        return split_author_string(value)
    if isinstance(value, list):
        names = []
        for item in value:
            if isinstance(item, dict):
                item = (
                    item.get("name")
                    or item.get("fullname")
                    or " ".join(str(item.get(k) or "") for k in ("given", "first", "family", "last"))
                )
            if isinstance(item, str):
                names.append(first_last(item) if item.count(",") == 1 else item)
        return names
    return []


def _year_of_millis(value: Any) -> int | None:
    if isinstance(value, int | float) and not isinstance(value, bool) and 0 < value < 1e14:
        return datetime.fromtimestamp(value / 1000, UTC).year
    return None


def _note(note: dict[str, Any], where: str) -> Entry | Skip:
    content = {k: _unwrap(v) for k, v in note["content"].items()}
    abstract = clean_abstract(content.get("abstract") or content.get("TL;DR") or "")
    forum = note.get("forum") or note.get("id")
    if isinstance(forum, str) and forum:
        where = f"note {forum[:40]}"
    if not abstract:
        return Skip(where, "has no abstract", broken=False)
    venue = content.get("venue") or content.get("venueid")
    venue_text = clean_field(venue) if isinstance(venue, str) else None
    year = year_of(venue_text) or _year_of_millis(note.get("pdate")) or _year_of_millis(note.get("cdate"))
    year = year or _year_of_millis(note.get("tcdate"))
    url = f"https://openreview.net/forum?id={forum}" if isinstance(forum, str) and forum else None
    meta = Metadata(
        title=clean_field(content.get("title"), latex=True),
        authors=clean_authors(_names(content.get("authors"))),
        year=year,
        venue=venue_text,
        url=url_of(url) if url else url_of(content.get("pdf")),
        doi=doi_of(content.get("doi")),
        arxiv_id=None,
    )
    return Entry(abstract, meta, where)


def _arxiv(record: dict[str, Any], where: str) -> Entry | Skip:
    arxiv = arxiv_id_of(record.get("id"))
    if arxiv:
        where = f"{where} (arXiv {arxiv})"
    abstract = clean_abstract(record.get("abstract"))
    if not abstract:
        return Skip(where, "has no abstract", broken=False)
    parsed = record.get("authors_parsed")
    if isinstance(parsed, list) and parsed:
        names = [
            " ".join(str(p).strip() for p in (part[1:2] + part[:1] + part[2:3]) if str(p).strip())
            for part in parsed
            if isinstance(part, list) and part
        ]
    else:
        names = _names(record.get("authors"))
    year = None
    versions = record.get("versions")
    if isinstance(versions, list) and versions and isinstance(versions[0], dict):
        year = year_of(versions[0].get("created"))
    if year is None and arxiv and (m := _NEW_ARXIV_ID.fullmatch(arxiv)):
        year = 2000 + int(m.group(1))
    meta = Metadata(
        title=clean_field(record.get("title"), latex=True),
        authors=clean_authors(names, latex=True),
        year=year or year_of(record.get("update_date")),
        venue=clean_field(record.get("journal-ref"), latex=True) or "arXiv",
        url=f"https://arxiv.org/abs/{arxiv}" if arxiv else None,
        doi=doi_of(record.get("doi")),
        arxiv_id=arxiv,
    )
    return Entry(abstract, meta, where)


def _plain(record: dict[str, Any], where: str) -> Entry | Skip:
    fields: dict[str, Any] = {}
    for key, value in record.items():
        role = _role(key)
        if role and role not in fields and value not in (None, "", []):
            fields[role] = value
    abstract = clean_abstract(fields.get("abstract"))
    if not abstract:
        return Skip(where, "has no abstract", broken=False)
    url = url_of(fields.get("url"))
    raw_id = record.get("id")
    arxiv = arxiv_id_of(fields.get("arxiv_id")) or (arxiv_id_of(url) if url and "arxiv.org" in url else None)
    if arxiv is None and isinstance(raw_id, str) and _NEW_ARXIV_ID.fullmatch(raw_id.split("v")[0]):
        arxiv = arxiv_id_of(raw_id)
    meta = Metadata(
        # Plain records (a spreadsheet's JSON, desk's own export) hold plain text, not LaTeX.
        title=clean_field(fields.get("title")),
        authors=clean_authors(_names(fields.get("authors"))),
        year=year_of(fields.get("year")),
        venue=clean_field(fields.get("venue")) if isinstance(fields.get("venue"), str) else None,
        url=url,
        doi=doi_of(fields.get("doi")),
        arxiv_id=arxiv,
    )
    return Entry(abstract, meta, where)
