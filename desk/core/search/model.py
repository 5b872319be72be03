"""Plain values exchanged with the search index."""

from __future__ import annotations

import enum
from dataclasses import dataclass


@dataclass(frozen=True)
class IndexDoc:
    """One paper as the index sees it."""

    id: int
    rev: int  # bumped by the database on every change; used by check/stale detection
    title: str
    short_name: str  # "" when none
    abstract: str
    note: str  # the user's Markdown note, "" when none
    starred: bool
    read: bool
    collections: tuple[str, ...]


@dataclass(frozen=True)
class Hit:
    """One ranked result."""

    id: int
    parts: int  # query parts matched (0 for related papers); shown, not an ordering key
    relevance: float  # hits are ordered by this: BM25F + a bonus per part matched + rescore.py's bonus
    snippet: str  # plain-text excerpt of the abstract (or the note when only it matched), "…" at cuts
    highlights: tuple[tuple[int, int], ...]  # (start, end) of matched words inside snippet

    @property
    def score(self) -> float:
        """The number hits are ordered by (their relevance)."""
        return self.relevance


@dataclass(frozen=True)
class SearchResult:
    """The answer to one query."""

    query: str
    total: int  # all matching docs, not just the returned page
    hits: tuple[Hit, ...]
    took_ms: float  # from receiving the query to holding ranked hits with snippets
    suggestion: str | None  # "did you mean" query string
    corrected: bool  # True when the typed words alone found little: the hits come from the suggestion's
    terms: tuple[str, ...]  # stemmed positive terms, for highlighting
    message: str | None  # plain-words note when part of the query did not parse
    hint: str | None = None  # one short note on the unfinished end of a query being typed
    # True when nothing complete is left to search ("title:", "NOT", an open quote alone): no
    # hits are given, and a search-as-you-type list keeps showing the previous query's results.
    no_new_query: bool = False


class IndexState(enum.Enum):
    """What ``SearchIndex.state()`` finds on disk."""

    OK = "ok"
    MISSING = "missing"
    CORRUPT = "corrupt"
    OLD_SCHEMA = "old_schema"
