"""``Library.history``: undo, redo, the steps an Edit menu lists, and batches of changes as one step."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from desk.core.edits import history, undo
from desk.core.records.detail import HistoryEntry, UndoOutcome

if TYPE_CHECKING:
    from desk.core.search.index_sync import IndexSync
    from desk.core.store import Database


class History:
    """The library's undo history (``lib.history``), shared by every window and command."""

    def __init__(self, db: Database, sync: IndexSync) -> None:
        self.db = db
        self.sync = sync

    def _step(self, backwards: bool) -> UndoOutcome | None:
        with self.db.writing() as session:
            done = undo.undo(session) if backwards else undo.redo(session)
        if done is None:
            return None
        label, applied = done
        self.sync.flush()
        verb = "Undid" if backwards else "Redid"
        said = f"{verb}: {label[0].lower()}{label[1:]}"
        if applied.skipped:
            said += f" ({applied.skipped} part(s) left as a later change set them)"
        return UndoOutcome(said, label, tuple(dict.fromkeys(applied.paper_ids)), applied.skipped)

    def undo(self) -> UndoOutcome | None:
        """Take back the newest change (this window's, another's, the CLI's); None: nothing to undo.

        Only what is still as that change left it goes back: a later change is never taken back.
        """
        return self._step(True)

    def redo(self) -> UndoOutcome | None:
        """Do again the change undone last; None when nothing was undone since the last change."""
        return self._step(False)

    def entries(self, limit: int = 50) -> list[HistoryEntry]:
        """The newest steps of the undo history, newest first (for an Edit menu's labels)."""
        with self.db.reading() as session:
            return history.entries(session, limit)

    @contextmanager
    def batch(self, label: str) -> Iterator[None]:
        """Every change made inside (by this thread) is one undo step, said back as ``label``.

        For an action made of several calls: "merge every exact duplicate", a triage key that
        stars and marks read. Each call still commits on its own.
        """
        with history.batch(label):
            yield
