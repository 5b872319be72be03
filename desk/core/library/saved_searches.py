"""``Library.saved_searches``: queries kept under a name (the sidebar's, ``saved:NAME``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from desk.core.edits import history
from desk.core.edits import saved_searches as saved
from desk.core.records.detail import SavedSearchInfo

if TYPE_CHECKING:
    from desk.core.store import Database


class SavedSearches:
    """The library's saved searches (``lib.saved_searches``); each change is one undo step."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def _put(self, name: str, query: str | None) -> bool:
        with self.db.writing() as session:
            before = saved.put(session, name, query)
            if before == query:
                return False
            shown = saved.get(session, name).name if query is not None else name  # type: ignore[union-attr]
            label = f"{'Save' if query is not None else 'Delete'} the search “{shown}”"
            payload = {"name": shown, "key": saved.key_of(name), "before": before, "after": query}
            history.record(session, "saved", label, payload)
        return True

    def save(self, name: str, query: str) -> None:
        """Save (or replace) a query under a name, as one undo step; run it with search()."""
        self._put(name, query)

    def delete(self, name: str) -> bool:
        """Forget a saved search (one undo step); False when there was none by that name."""
        return self._put(name, None)

    def all(self) -> list[SavedSearchInfo]:
        """Every saved search, in the order first saved."""
        with self.db.reading() as session:
            return saved.listed(session)
