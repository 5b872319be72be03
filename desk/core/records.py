"""Plain frozen records the core hands to the CLI and the window (never live ORM objects)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from desk.core.search.model import SearchResult

#: The orders a list or a search can be sorted in (desk/core/sorting.py reads them from the database).
SORTS = ("relevance", "collection", "recent", "starred", "title")


@dataclass(frozen=True)
class SourceInfo:
    """Where a paper was read from."""

    file: str
    index: int
    collection: str


@dataclass(frozen=True)
class PaperSummary:
    """What a list row shows of a paper."""

    id: int
    title: str
    short_name: str | None
    starred: bool
    read: bool
    has_note: bool
    sources: tuple[SourceInfo, ...]
    tags: tuple[str, ...] = ()  # in the order the tags were created

    @property
    def collections(self) -> tuple[str, ...]:
        """The distinct collections of the sources, in order."""
        return tuple(dict.fromkeys(s.collection for s in self.sources))


@dataclass(frozen=True)
class PaperDetail(PaperSummary):
    """Everything about one paper."""

    abstract: str = ""
    abstract_raw: str = ""
    note: str = ""
    derived_title: str = ""
    user_title: str | None = None
    created_at: datetime | None = None
    updated_at: datetime | None = None


@dataclass(frozen=True)
class ImportFileError:
    """A file that was skipped, with the reason in plain words."""

    file: str
    error: str


@dataclass(frozen=True)
class ImportReport:
    """The outcome of one import of files or folders."""

    files: int = 0
    paragraphs: int = 0
    added: int = 0
    merged: int = 0
    near_duplicates: int = 0
    already_imported: int = 0
    errors: tuple[ImportFileError, ...] = ()
    cancelled: bool = False
    new_ids: tuple[int, ...] = field(default=(), repr=False)

    def as_json(self) -> dict[str, object]:
        """The `desk import --json` object."""
        return {
            "files": self.files,
            "paragraphs": self.paragraphs,
            "added": self.added,
            "merged": self.merged,
            "near_duplicates": self.near_duplicates,
            "errors": [{"file": e.file, "error": e.error} for e in self.errors],
        }


@dataclass(frozen=True)
class Stats:
    """Counts over the whole library."""

    papers: int
    sources: int
    starred: int
    read: int
    notes: int
    collections: dict[str, int]
    tags: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class ResultRow:
    """One search hit joined with the paper's summary."""

    paper: PaperSummary
    score: float  # Hit.score: the relevance hits are ordered by
    snippet: str
    highlights: tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class ResultPage:
    """A ranked page of search (or related) results."""

    query: str
    total: int
    took_ms: float
    suggestion: str | None
    corrected: bool
    terms: tuple[str, ...]
    message: str | None
    rows: tuple[ResultRow, ...]
    hint: str | None = None  # what is unfinished in a query being typed (see SearchResult.hint)
    no_new_query: bool = False  # nothing complete to search yet: keep showing the previous results


def page_of(result: SearchResult, rows: Mapping[int, PaperSummary]) -> ResultPage:
    """A search's hits joined with their papers' summaries (hits whose paper is gone left out)."""
    return ResultPage(
        query=result.query,
        total=result.total,
        took_ms=result.took_ms,
        suggestion=result.suggestion,
        corrected=result.corrected,
        terms=result.terms,
        message=result.message,
        hint=result.hint,
        no_new_query=result.no_new_query,
        rows=tuple(
            ResultRow(rows[h.id], h.score, h.snippet, h.highlights) for h in result.hits if h.id in rows
        ),
    )


@dataclass(frozen=True)
class TagCount:
    """A tag and how many papers carry it (the sidebar's entry, `desk tags`)."""

    name: str
    count: int


@dataclass(frozen=True)
class TagChange:
    """What tagging, untagging or toggling did: the papers that gained or lost the tag."""

    name: str
    added: tuple[int, ...] = ()
    removed: tuple[int, ...] = ()


@dataclass(frozen=True)
class SavedSearchInfo:
    """A saved search: its name and the query run each time it is opened."""

    name: str
    query: str


@dataclass(frozen=True)
class UndoOutcome:
    """What undo() or redo() did, in plain words ("Undid: star 5 papers")."""

    description: str
    label: str  # the change itself ("Star 5 papers")
    paper_ids: tuple[int, ...]  # papers it touched (to refresh rows)
    skipped: int = 0  # parts left as they were because a later change had touched them


@dataclass(frozen=True)
class HistoryEntry:
    """One step of the undo history, newest first in Library.history()."""

    id: int
    label: str
    undone: bool
    created_at: datetime


@dataclass(frozen=True)
class TrashedPaper:
    """A paper in the trash: its row as it was, when it went, and with which list."""

    paper: PaperSummary
    removed_at: datetime
    removed_with: str | None  # the file whose removal took it, None when deleted alone


@dataclass(frozen=True)
class ListRemoval:
    """What removing a list does (or did): the files, the papers trashed, those that stay."""

    files: tuple[str, ...]
    trashed: tuple[int, ...]  # papers only these files held: to the trash
    kept: tuple[int, ...]  # papers also in another list: they lose these files' sources only
    with_notes: tuple[int, ...]  # trashed papers that carry a note (ask first)
