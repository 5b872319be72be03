"""Plain frozen records the core hands to the CLI and the window (never live ORM objects).

The records a search's page is made of are defined here; the others (a paper in full, counts,
tags, an import's report, the history's and the trash's entries) in desk.core.library_records,
loaded the first time one of them is asked of this module (``from desk.core.records import
Stats`` keeps working): a `desk search` process creates only the classes it uses (a frozen
dataclass costs ≈ 0.34 ms to create, 11 of them ≈ 4 ms of a 0.2 s command).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # LATER's records, for the type checker (at run time: __getattr__)
    from desk.core.library_records import HistoryEntry as HistoryEntry
    from desk.core.library_records import ImportFileError as ImportFileError
    from desk.core.library_records import ImportReport as ImportReport
    from desk.core.library_records import ListRemoval as ListRemoval
    from desk.core.library_records import PaperDetail as PaperDetail
    from desk.core.library_records import SavedSearchInfo as SavedSearchInfo
    from desk.core.library_records import Stats as Stats
    from desk.core.library_records import TagChange as TagChange
    from desk.core.library_records import TagCount as TagCount
    from desk.core.library_records import TrashedPaper as TrashedPaper
    from desk.core.library_records import UndoOutcome as UndoOutcome
    from desk.core.search.model import SearchResult

#: The records defined in desk.core.library_records, given by this module on first use.
LATER = frozenset(
    {
        "PaperDetail",
        "ImportFileError",
        "ImportReport",
        "Stats",
        "TagCount",
        "TagChange",
        "SavedSearchInfo",
        "UndoOutcome",
        "HistoryEntry",
        "TrashedPaper",
        "ListRemoval",
    }
)

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


def __getattr__(name: str) -> Any:
    """One of LATER's records, from desk.core.library_records (imported now, once)."""
    if name in LATER:
        from desk.core import library_records

        value = getattr(library_records, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *LATER})
