"""``Library.history``: undo, redo, the steps an Edit menu lists, and batches of changes as one step."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING

from desk.core.edits import history, undo
from desk.core.library.quick import QuickLibrary
from desk.core.records.detail import HistoryEntry, UndoOutcome
from desk.core.store.queries import raw_connection
from desk.core.text.titles import fit_title

if TYPE_CHECKING:
    from desk.core.search.index_sync import IndexSync
    from desk.core.store import Database

UNDO_TITLE_MAX = 60  # a paper named in "Undid: …" fits the status line beside the counts


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
        named = self._name_paper(label, applied.paper_ids)
        said = f"{verb}: {named[0].lower()}{named[1:]}"
        if applied.skipped:
            said += f" ({applied.skipped} part(s) left as a later change set them)"
        return UndoOutcome(said, label, tuple(dict.fromkeys(applied.paper_ids)), applied.skipped)

    def _name_paper(self, label: str, ids: Sequence[int]) -> str:
        """ "Star paper 12" as a person reads it: "Star “Diffusion policies for…”" (the steps keep
        ids; a paper gone to the trash keeps its number)."""
        touched = list(dict.fromkeys(ids))
        if len(touched) != 1 or f"paper {touched[0]}" not in label:
            return label
        with self.db.reading() as session:
            found = QuickLibrary(raw_connection(session)).summaries(touched).get(touched[0])
        if found is None or not found.title.strip():
            return label
        return label.replace(f"paper {touched[0]}", f"“{fit_title(found.title, UNDO_TITLE_MAX)}”", 1)

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
