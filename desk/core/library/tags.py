"""``Library.tags``: giving and taking tags, their counts and their papers' order.

Each change is one transaction and one step of the undo history, written by the one edit path
(``desk.core.edits.statements``) that the command line's light path runs too.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from desk.core.edits import history, statements
from desk.core.edits import tags as tagging
from desk.core.library.quick import QuickLibrary
from desk.core.records.detail import TagChange, TagCount
from desk.core.store.queries import raw_connection

if TYPE_CHECKING:
    from desk.core.search.index_sync import IndexSync
    from desk.core.store import Database


class Tags:
    """The library's tags (``lib.tags``)."""

    def __init__(self, db: Database, sync: IndexSync) -> None:
        self.db = db
        self.sync = sync

    def _change(self, ids: Sequence[int], name: str, add: bool | None) -> TagChange:
        with self.db.writing() as session:
            edit = statements.set_tag(raw_connection(session), ids, name, add)
            if edit.changed:
                history.record(session, *statements.tag_step(edit))
        added, removed = (edit.changed, ()) if edit.added else ((), edit.changed)
        return TagChange(edit.name, added, removed)

    def add(self, ids: Sequence[int], name: str) -> TagChange:
        """Give papers a tag (created when new; any Unicode name), as one undo step.

        Raises DeskError for an empty name, PaperNotFound for an unknown id (nothing changes).
        """
        return self._change(ids, name, True)

    def remove(self, ids: Sequence[int], name: str) -> TagChange:
        """Take a tag off papers, as one undo step (papers without it are left)."""
        return self._change(ids, name, False)

    def toggle(self, ids: Sequence[int], name: str) -> TagChange:
        """The `t`/digit key over a selection: untag all when all have it, else tag all. One step."""
        return self._change(ids, name, None)

    def counts(self) -> list[TagCount]:
        """Every tag on some paper, with its count, in the order tags were created (keys 1–9)."""
        with self.db.reading() as session:
            return QuickLibrary(raw_connection(session)).tag_counts()

    def papers(self, name: str | None) -> list[int]:
        """Ids of the papers carrying a tag, in its order (a reading list); None: any tag."""
        with self.db.reading() as session:
            return tagging.paper_ids(session, name)

    def reorder(self, name: str, ordered_ids: Sequence[int]) -> None:
        """Put a tag's papers in this order (a reading list); those not named follow in theirs."""
        with self.db.writing() as session:
            tagging.reorder(session, name, ordered_ids)
