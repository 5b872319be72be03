"""Full-text search: a Whoosh index derived from the database, and a forgiving query language."""

from __future__ import annotations

from desk.core.search.index import SearchIndex
from desk.core.search.model import Hit, IndexDoc, IndexState, SearchResult
from desk.core.search.query import ParsedQuery, parse
from desk.core.search.schema import SCHEMA_VERSION

__all__ = [
    "SCHEMA_VERSION",
    "Hit",
    "IndexDoc",
    "IndexState",
    "ParsedQuery",
    "SearchIndex",
    "SearchResult",
    "parse",
]
