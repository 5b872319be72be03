"""``Library.trash``: papers and whole lists moved to the trash, restored, or deleted for good."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from sqlalchemy import func, select

from desk.core.edits import history
from desk.core.edits import trash as trashing
from desk.core.records.detail import ListRemoval, TrashedPaper
from desk.core.store import Paper
from desk.core.store.queries import require_papers

if TYPE_CHECKING:
    from desk.core.search.index_sync import IndexSync
    from desk.core.store import Database


class Trash:
    """The library's trash (``lib.trash``); every move in or out is one undo step."""

    def __init__(self, db: Database, sync: IndexSync) -> None:
        self.db = db
        self.sync = sync

    def papers_with_notes(self, ids: Sequence[int]) -> list[int]:
        """Which of these papers carry a note (ask before deleting them); raises PaperNotFound."""
        with self.db.reading() as session:
            found = require_papers(session, ids)
            return [i for i in dict.fromkeys(ids) if found[i].note.strip()]

    def delete(self, ids: Sequence[int]) -> list[int]:
        """Move papers to the trash, as one undo step (restore or undo brings them back).

        Raises PaperNotFound for an unknown id before anything moves. Ask first when
        papers_with_notes(ids) is not empty: a note goes to the trash with its paper.
        """
        wanted = list(dict.fromkeys(ids))
        with self.db.writing() as session:
            entries = trashing.trash_papers(session, wanted)
            what = f"{len(wanted)} papers" if len(wanted) != 1 else f"paper {wanted[0]}"
            history.record(session, "trash", f"Delete {what}", {"ids": wanted, "entries": entries})
        self.sync.flush()
        return wanted

    def list_removal(self, target: str) -> ListRemoval:
        """What remove_list(target) would do, changing nothing (to ask about notes first)."""
        with self.db.reading() as session:
            records = trashing.records_named(session, target)
            gone, kept = trashing.list_papers(session, records)
            noted = session.scalars(select(Paper.id).where(Paper.id.in_(gone), func.trim(Paper.note) != ""))
            files = tuple(dict.fromkeys(r.file for r in records))
            return ListRemoval(files, tuple(gone), tuple(kept), tuple(sorted(noted)))

    def remove_list(self, target: str) -> ListRemoval:
        """Remove an imported list (a file's name, or a collection: all its files), as one undo step.

        Papers only it held go to the trash; papers also in another list stay and lose its
        sources. The same file can be imported again afterwards. DeskError when nothing is
        called ``target``.
        """
        plan = self.list_removal(target)
        with self.db.writing() as session:
            records = trashing.records_named(session, target)
            lists, entries, _ = trashing.remove_lists(session, records)
            imports = [r.id for r in records]
            payload = {"lists": lists, "imports": imports, "ids": list(plan.trashed), "entries": entries}
            label = f"Remove the list “{target}” ({len(plan.trashed)} papers)"
            history.record(session, "trash", label, payload)
        self.sync.flush()
        return plan

    def papers(self) -> list[TrashedPaper]:
        """What the trash holds, the latest removed first."""
        with self.db.reading() as session:
            return trashing.listed(session)

    def restore(self, ids: Sequence[int]) -> list[int]:
        """Put papers back from the trash, as one undo step; returns their ids as they are now.

        A paper whose text was imported again meanwhile is folded into that paper (its star,
        note, title and tags kept), and that paper's id is returned. DeskError for an id that is
        not in the trash (nothing is restored then).
        """
        with self.db.writing() as session:
            entries = trashing.entries_of(session, ids)
            restored = trashing.restore_entries(session, entries)
            itself = [i for i in restored if i in set(ids)]
            what = f"paper {restored[0]}" if len(restored) == 1 else f"{len(restored)} papers"
            history.record(session, "restore", f"Restore {what}", {"ids": itself, "entries": entries})
        self.sync.flush()
        return restored

    def empty(self) -> int:
        """Delete what the trash holds for good (not undoable); returns how many papers went."""
        with self.db.writing() as session:
            return trashing.empty(session)
