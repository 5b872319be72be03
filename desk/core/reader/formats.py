"""Which format a list file is, found from its content (the extension only breaks a tie), and its entries.

A file whose content is none of the rich formats is a bare list of abstracts (``parse.py``), unless
its extension promises a rich one (.bib, .ris, .csv, .tsv, .json, .jsonl): then it is refused in
one line that says what desk reads, and nothing of it is added.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from desk.core.reader.bibtex import holds_entries, looks_like_bibtex, read_bibtex
from desk.core.reader.entries import NO_METADATA, Entry, Metadata, Skip
from desk.core.reader.json_records import looks_like_json, read_json_lines, read_json_records, records_of
from desk.core.reader.parse import MAX_ABSTRACT_CHARS
from desk.core.reader.ris import looks_like_ris, read_ris
from desk.core.reader.table import NO_ABSTRACT_COLUMN, has_abstract_column, looks_like_table, read_table

TEXT = "text"
BIBTEX = "bibtex"
RIS = "ris"
TABLE = "csv"
JSON = "json"
JSON_LINES = "jsonl"

#: What a file of each extension must hold (its content decides among the rich formats).
RICH_SUFFIXES: dict[str, str] = {
    ".bib": BIBTEX, ".bibtex": BIBTEX, ".ris": RIS, ".csv": TABLE, ".tsv": TABLE,
    ".json": JSON, ".jsonl": JSON_LINES, ".ndjson": JSON_LINES,
}  # fmt: skip
#: Every extension a folder's walk imports.
LIST_SUFFIXES = frozenset({".txt", *RICH_SUFFIXES})

WHAT_DESK_READS = (
    "desk reads abstract lists (.txt), BibTeX, RIS, CSV/TSV with a header, OpenReview or arXiv JSON "
    "and JSON lines"
)
_HEAD = 65_536


class FormatError(ValueError):
    """A file that is not what desk reads; the message is plain words."""


@dataclass(frozen=True)
class RichList:
    """The entries of a rich file that were read: abstracts, their metadata, and what was left out."""

    format: str
    abstracts: tuple[str, ...]
    metadata: tuple[Metadata, ...]
    broken: tuple[tuple[int, str], ...]  # (entry number, plain words) of each entry that could not be read
    without_abstract: tuple[tuple[int, str], ...]  # (entry number, where it is) of each without an abstract
    entries: int  # entries seen, read or not


def sniff(text: str, suffix: str) -> str:
    """The format of decoded text: one of the rich ones, or TEXT for a bare list (see the module doc)."""
    head = text[:_HEAD].lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    if looks_like_json(head):
        first, _, rest = head.lstrip().partition("\n")
        if first.lstrip().startswith("{") and rest.lstrip().startswith("{") and _is_object(first):
            return JSON_LINES
        return JSON
    if looks_like_bibtex(head):
        return BIBTEX
    if looks_like_ris(head):
        return RIS
    if looks_like_table(head) and (RICH_SUFFIXES.get(suffix) == TABLE or has_abstract_column(head)):
        return TABLE
    if RICH_SUFFIXES.get(suffix) == BIBTEX and holds_entries(text):
        return BIBTEX
    return TEXT


def _is_object(line: str) -> bool:
    try:
        return isinstance(json.loads(line), dict)
    except ValueError:
        return False


def read_rich(text: str, fmt: str, suffix: str) -> RichList:
    """Read the entries of decoded text in a rich format; raises FormatError when the content is not
    that format after all (invalid JSON, a CSV without an abstract column)."""
    return collect(fmt, _entries(text, fmt, suffix))


def _entries(text: str, fmt: str, suffix: str) -> Iterable[Entry | Skip]:
    if fmt == BIBTEX:
        return read_bibtex(text)
    if fmt == RIS:
        return read_ris(text)
    if fmt == TABLE:
        if not has_abstract_column(text[:_HEAD]):
            raise FormatError(NO_ABSTRACT_COLUMN)
        return read_table(text)
    if fmt == JSON_LINES:
        return read_json_lines(text.lstrip("\ufeff").splitlines())
    try:
        document = json.loads(text.lstrip("\ufeff"))
    except ValueError as exc:
        if RICH_SUFFIXES.get(suffix) in (JSON, JSON_LINES):
            raise FormatError(f"is not valid JSON ({exc}); {WHAT_DESK_READS}") from None
        raise FormatError(TEXT) from None  # not JSON after all: the caller reads it as a list
    records = records_of(document)
    if records is None:
        raise FormatError(f"holds JSON but no list of papers desk knows; {WHAT_DESK_READS}")
    return read_json_records(records)


def collect(fmt: str, entries: Iterable[Entry | Skip], first_number: int = 1) -> RichList:
    """Gather entries into a RichList (numbering them from ``first_number``)."""
    abstracts: list[str] = []
    metadata: list[Metadata] = []
    broken: list[tuple[int, str]] = []
    without: list[tuple[int, str]] = []
    number = first_number - 1
    for number, item in enumerate(entries, start=first_number):
        if isinstance(item, Skip):
            if item.broken:
                broken.append((number, f"{item.where} {item.why}"))
            else:
                without.append((number, item.where))
        elif len(item.abstract) > MAX_ABSTRACT_CHARS:
            broken.append(
                (
                    number,
                    f"{item.where} has an abstract over {MAX_ABSTRACT_CHARS:,} characters; it was skipped",
                )
            )
        else:
            abstracts.append(item.abstract)
            metadata.append(item.meta)
    return RichList(
        fmt, tuple(abstracts), tuple(metadata), tuple(broken), tuple(without), number - first_number + 1
    )


def common_collection(metadata: Iterable[Metadata]) -> str | None:
    """ "Venue Year" when every entry that names a venue names the same one (and one year), else None."""
    venues: Counter[str] = Counter()
    years: Counter[int] = Counter()
    for meta in metadata:
        if meta.venue:
            venues[meta.venue] += 1
        if meta.year:
            years[meta.year] += 1
    if len(venues) != 1:
        return None
    venue = next(iter(venues))
    if len(years) == 1:
        year = str(next(iter(years)))
        return venue if year in venue else f"{venue} {year}"
    return venue


def skip_lines(rich: RichList, noun: str = "entry") -> Iterator[tuple[int, str]]:
    """(number, plain words) of what was left out: each broken entry, and those without an abstract
    in one line."""
    yield from rich.broken
    if rich.without_abstract:
        count = len(rich.without_abstract)
        shown = ", ".join(where for _, where in rich.without_abstract[:3]) + (", …" if count > 3 else "")
        plural = "entries have" if count != 1 else f"{noun} has"
        yield (
            rich.without_abstract[0][0],
            f"{count} {plural} no abstract and {'were' if count != 1 else 'was'} skipped ({shown})",
        )


__all__ = [
    "BIBTEX",
    "JSON",
    "JSON_LINES",
    "LIST_SUFFIXES",
    "NO_METADATA",
    "RICH_SUFFIXES",
    "RIS",
    "TABLE",
    "TEXT",
    "WHAT_DESK_READS",
    "FormatError",
    "RichList",
    "collect",
    "common_collection",
    "read_rich",
    "skip_lines",
    "sniff",
]
