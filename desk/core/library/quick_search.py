"""`desk search` on a library whose index is current, without the ORM (see desk.core.library.quick).

The search itself is the Library's (``SearchIndex.search`` with the library's semantic vectors,
the same ranking and snippets); only the database's side is read with plain ``sqlite3``: the
papers' rows, and the filters the database answers (``is:starred``, ``is:read``, ``in:``). A
query that needs what only the Library answers (``tag:``, ``saved:``, ``cluster:``), a sort other than
relevance, or semantic vectors that lag behind the database (the Library builds them first)
gives None: the command opens the whole Library instead.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from desk.core.library.quick import QuickLibrary
from desk.core.records.page import ResultPage, page_of, with_copies
from desk.core.runtime.paths import INDEX_DIR_NAME
from desk.core.store.citations import citation_filter
from desk.core.store.id_digest import id_digest_of

if TYPE_CHECKING:
    from desk.core.semantic.encoded import EncodedVectors
    from desk.core.semantic.vectors import SemanticVectors


class QuickFilters:
    """The database's filters over a QuickLibrary (desk.core.search.compiler.TagLookup); asking
    for a tag or a saved search sets ``needs_library``: those are the Library's to answer."""

    def __init__(self, reader: QuickLibrary) -> None:
        self.reader = reader
        self.needs_library = False

    def __call__(self, name: str | None) -> Sequence[int]:
        """A tag's papers: the Library's (tags.tag_key folds the name)."""
        self.needs_library = True
        return ()

    def flagged(self, fieldname: str) -> Sequence[int]:
        """Ids of the starred (or read) papers."""
        column = {"starred": "starred", "read": "read"}[fieldname]
        return self.reader.column(f"SELECT id FROM paper WHERE {column} = 1")

    def collection(self, name: str) -> Sequence[int]:
        """Ids of the papers with a source in the collection ``name`` (white space and case aside),
        as desk.core.library.live_filters answers it."""
        wanted = " ".join(name.split()).casefold()
        names = self.reader.column("SELECT DISTINCT collection FROM source")
        chosen = tuple(c for c in names if " ".join(c.split()).casefold() == wanted)
        if not chosen:
            return ()
        marks = ", ".join("?" * len(chosen))
        sql = f"SELECT DISTINCT paper_id FROM source WHERE collection IN ({marks})"
        return self.reader.column(sql, chosen)

    def cited(self, kind: str, value: str) -> Sequence[int]:
        """Ids of the papers ``author:``, ``year:`` or ``venue:`` ``value`` matches (as
        desk.core.library.live_filters answers it: one SQL, desk.core.store.citations)."""
        found = citation_filter(kind, value)
        return self.reader.column(*found) if found is not None else ()

    def saved(self, name: str) -> str | None:
        """A saved search: the Library's (saved.key_of folds the name)."""
        self.needs_library = True
        return None

    def cluster(self, name: str) -> Sequence[int]:
        """A cluster of the map: the Library's (its map service reads the map)."""
        self.needs_library = True
        return ()

    def near(self, name: str) -> Sequence[int]:
        """The papers nearest one on the map: the Library's, as ``cluster:``."""
        self.needs_library = True
        return ()


def _lagging(vectors: SemanticVectors, reader: QuickLibrary) -> bool:
    """``vectors.pending(reader.all_ids())`` without the ids: the store's ids digested as the
    database digests its own (QuickLibrary.id_digest) in one scan. Ids are never reused
    (AUTOINCREMENT): an added or removed paper changes the count, the sum and the squares."""
    import numpy as np

    data = vectors.current
    if data is None:
        return True
    return id_digest_of(data.ids.astype(np.int64)) != reader.id_digest()


def _encoded(directory: Path, vectors: SemanticVectors, reader: QuickLibrary) -> EncodedVectors | bool:
    """The sentence encoder's store, read: current, or part-way while a builder process encodes
    the rest (background.py); True when the library has none to use (no model, or a builder
    at work that wrote nothing yet); False when a few vectors are due, which the Library
    encodes in line (background.inline_max).

    More due and nobody at work on them (a builder killed, the machine restarted): a builder is
    started here and the search uses the rows there are, as while any builder works, rather
    than opening the whole Library to start it."""
    import numpy as np

    from desk.core.semantic import background
    from desk.core.semantic.encoded import DIR_NAME
    from desk.core.semantic.encoded import EncodedVectors as Store

    data = vectors.current
    assert data is not None  # not lagging
    encoded = Store(directory / DIR_NAME)
    if not encoded.wanted(data.ids):
        return True
    if encoded.load() and encoded.ids is not None and id_digest_of(encoded.ids) == reader.id_digest():
        return encoded
    if not background.building(encoded.directory):
        held = encoded.ids if encoded.ids is not None else np.empty(0, np.int64)
        due = int(np.count_nonzero(~np.isin(data.ids, held)))
        if due <= background.inline_max() or background.start(directory) is None:
            return False
    return encoded if encoded.ids is not None else True  # its rows fused, the others estimated


def search(reader: QuickLibrary, directory: Path, query: str, limit: int, sort: str) -> ResultPage | None:
    """The page ``Library.search(query, limit, sort=sort)`` gives, or None (see the module's doc)."""
    if sort != "relevance":
        return None
    from desk.core.search.index import SearchIndex
    from desk.core.semantic.store import DIR_NAME as VECTORS_DIR_NAME
    from desk.core.semantic.vectors import SemanticVectors

    vectors = SemanticVectors(directory / VECTORS_DIR_NAME)
    vectors.load(verify="changed")  # files as written are not read for their CRCs (store.py)
    if _lagging(vectors, reader):
        return None  # missing, damaged or behind: the Library brings them up to date first
    encoded = _encoded(directory, vectors, reader)
    if encoded is False:
        return None  # the sentence encoder's vectors are due: the Library builds them first
    index = SearchIndex(directory / INDEX_DIR_NAME, one_shot=True)
    index.semantic = vectors
    index.encoded = None if isinstance(encoded, bool) else encoded
    from desk.core.library.copies import saved_copies
    from desk.core.runtime.paths import CACHE_DIR_NAME, DUPLICATES_CACHE_NAME

    copies = saved_copies(reader.connection, directory / CACHE_DIR_NAME / DUPLICATES_CACHE_NAME)
    if copies is None:
        index.close()
        return None  # only the near-duplicate index can say which copies a list shows
    filters = QuickFilters(reader)
    try:
        result = index.search(query, limit=limit, tags=filters, hidden=copies.hidden_for)
    finally:
        index.close()
    if filters.needs_library:
        return None
    return page_of(result, with_copies(reader.summaries([h.id for h in result.hits]), copies.count))
