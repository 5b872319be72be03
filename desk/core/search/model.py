"""Plain values exchanged with the search index."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Literal

#: Which segments an index commit folds into its new one: "auto" a few tiny ones of one size
#: class for a small batch (segment_upkeep.merge_tiered; Whoosh's own policy for a bigger one), "tiny"
#: every tiny one, "none" none (a commit in the middle of an import, whose last one merges),
#: "emptied" none, dropping the segments left without a live document (their papers given again).
Merge = Literal["auto", "tiny", "none", "emptied"]


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
    authors: str = ""  # the authors' names (and their accent-free forms), "" when the list gave none


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
class Marks:
    """What a search marks in the text it shows (snippets, titles, short names, the abstract).

    A word is marked when its stem is one of `terms` or it starts with one of `prefixes`; a
    word searched only inside a phrase is marked only where the phrase stands.
    """

    terms: tuple[str, ...] = ()
    prefixes: tuple[str, ...] = ()
    # Each phrase: its words' stems in a row, then the prefix variants of a last word being typed.
    phrases: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...] = ()
    # Terms and prefixes searched outside any phrase (marked anywhere); None: every one is.
    loose: tuple[str, ...] | None = None


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
    marks: Marks = Marks()  # what to mark in the texts the hits are shown with


class IndexState(enum.Enum):
    """What ``SearchIndex.state()`` finds on disk."""

    OK = "ok"
    MISSING = "missing"
    CORRUPT = "corrupt"
    OLD_SCHEMA = "old_schema"
    UNVERIFIED = "unverified"  # not signed by desk for this user: never opened (manifest.py)
