"""The records a page of results is made of: a paper's summary, its sources, a row, the page.

The other records (a paper in full, counts, tags, an import's report, the history's and the
trash's entries) are in desk.core.records.detail, so that a `desk search` process creates only
the classes it uses (creating a frozen dataclass costs a fraction of a millisecond each).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from desk.core.search.model import SearchResult

#: The orders a list or a search can be sorted in (desk/core/library/sorting.py reads them from the database).
SORTS = ("relevance", "collection", "recent", "starred", "title")


@dataclass(frozen=True)
class SourceInfo:
    """Where a paper was read from."""

    file: str
    index: int  # 0-based among the file's records, as JSON gives it (the paper's identity)
    collection: str

    @property
    def place(self) -> str:
        """Where a person reads it: "icml2023.txt #1" for the file's first record (1-based, in
        the window, `desk show` and the exports alike; only JSON keeps the 0-based ``index``)."""
        return f"{self.file} #{self.index + 1}"


@dataclass(frozen=True)
class Citation:
    """What a rich list said about a paper: authors in order ("First Last"), year, venue, links."""

    authors: tuple[str, ...] = ()
    year: int | None = None
    venue: str | None = None
    url: str | None = None
    doi: str | None = None
    arxiv_id: str | None = None

    @property
    def link(self) -> str | None:
        """Where the paper can be read: its url, else its DOI's or its arXiv page."""
        if self.url:
            return self.url
        if self.doi:
            return f"https://doi.org/{self.doi}"
        if self.arxiv_id:
            return f"https://arxiv.org/abs/{self.arxiv_id}"
        return None

    def byline(self, limit: int | None = 3) -> str:
        """The authors joined by commas, "et al." after the first ``limit`` (None: every one)."""
        if limit is None or len(self.authors) <= limit:
            return ", ".join(self.authors)
        return ", ".join(self.authors[:limit]) + " et al."

    @property
    def where(self) -> str:
        """Venue and year ("NeurIPS 2017"), whichever is known; "" when neither."""
        return " ".join(str(x) for x in (self.venue, self.year) if x)


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
    citation: Citation | None = None  # None: the paper came from bare lists only
    copies: int = 1  # near-duplicate copies this row stands for in a list (dedup/collapse.py)

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


def with_copies(rows: Mapping[int, PaperSummary], counts: Mapping[int, int]) -> dict[int, PaperSummary]:
    """The rows, each shown copy saying how many copies it stands for (``Copies.count``)."""
    return {i: replace(s, copies=counts[i]) if i in counts else s for i, s in rows.items()}


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
