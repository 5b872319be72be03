"""Full-text search: a Whoosh index derived from the database, and a forgiving query language.

The names below load their module on first use: a worker process that only writes index
segments (``staging``) then loads neither the searcher nor the query language.

May import: runtime, text, store, semantic (its vectors, fused into the ranking).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from desk.core.runtime.lazy import names_from

if TYPE_CHECKING:
    from desk.core.search.index import SearchIndex
    from desk.core.search.model import Hit, IndexDoc, IndexState, SearchResult
    from desk.core.search.query import ParsedQuery, parse
    from desk.core.search.schema import SCHEMA_VERSION

_HOME = {
    "SCHEMA_VERSION": "schema",
    "Hit": "model",
    "IndexDoc": "model",
    "IndexState": "model",
    "ParsedQuery": "query",
    "SearchIndex": "index",
    "SearchResult": "model",
    "parse": "query",
}

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

__getattr__ = names_from(__name__, _HOME, globals())
