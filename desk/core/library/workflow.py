"""The Library's methods for working through papers: tags, saved searches, undo/redo, the trash.

A mixin of ``desk.core.library.facade.Library`` (kept apart so the façade's file stays small); each
method opens one transaction and hands the work to a module (tags, saved, undo, trash). Every
change is one step of the undo history.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from functools import cached_property
from typing import TYPE_CHECKING

from sqlalchemy import func, select

from desk.core.edits import fields as edits
from desk.core.edits import history, statements, trash, undo
from desk.core.edits import saved_searches as saved
from desk.core.edits import tags as tagging
from desk.core.library.live_filters import LiveFilters
from desk.core.library.quick import QuickLibrary
from desk.core.records.detail import (
    HistoryEntry,
    ListRemoval,
    SavedSearchInfo,
    TagChange,
    TagCount,
    TrashedPaper,
    UndoOutcome,
)
from desk.core.store import Paper
from desk.core.store.queries import raw_connection, require_papers
from desk.core.text.titles import fit_title

if TYPE_CHECKING:  # attributes Library sets; no import of library.py at run time
    from desk.core.search.index_sync import IndexSync
    from desk.core.store import Database

UNDO_TITLE_MAX = 60  # a paper named in "Undid: …" fits the status line beside the counts


class Workflow:
    """Tags, saved searches, undo/redo and the trash, for ``Library``."""

    db: Database
    _sync: IndexSync

    @cached_property
    def live_filters(self) -> LiveFilters:
        """What answers tag: and is: filters for this library's searches (answers kept until
        the database changes)."""
        return LiveFilters(self.db)

    # -- tags --------------------------------------------------------------------------------
    def _tagging(self, ids: Sequence[int], name: str, add: bool | None) -> TagChange:
        with self.db.writing() as session:
            edit = statements.set_tag(raw_connection(session), ids, name, add)
            if edit.changed:
                history.record(session, *statements.tag_step(edit))
        added, removed = (edit.changed, ()) if edit.added else ((), edit.changed)
        return TagChange(edit.name, added, removed)

    def tag(self, ids: Sequence[int], name: str) -> TagChange:
        """Give papers a tag (created when new; any Unicode name), as one undo step.

        Raises DeskError for an empty name, PaperNotFound for an unknown id (nothing changes).
        """
        return self._tagging(ids, name, True)

    def untag(self, ids: Sequence[int], name: str) -> TagChange:
        """Take a tag off papers, as one undo step (papers without it are left)."""
        return self._tagging(ids, name, False)

    def toggle_tag(self, ids: Sequence[int], name: str) -> TagChange:
        """The `t`/digit key over a selection: untag all when all have it, else tag all. One step."""
        return self._tagging(ids, name, None)

    def tags(self) -> list[TagCount]:
        """Every tag on some paper, with its count, in the order tags were created (keys 1–9)."""
        with self.db.reading() as session:
            return QuickLibrary(raw_connection(session)).tags()

    def tagged(self, name: str | None) -> list[int]:
        """Ids of the papers carrying a tag, in its order (a reading list); None: any tag."""
        with self.db.reading() as session:
            return tagging.paper_ids(session, name)

    def reorder_tag(self, name: str, ordered_ids: Sequence[int]) -> None:
        """Put a tag's papers in this order (a reading list); those not named follow in theirs."""
        with self.db.writing() as session:
            tagging.reorder(session, name, ordered_ids)

    # -- saved searches ------------------------------------------------------------------------
    def _put_search(self, name: str, query: str | None) -> bool:
        with self.db.writing() as session:
            before = saved.put(session, name, query)
            if before == query:
                return False
            shown = saved.get(session, name).name if query is not None else name  # type: ignore[union-attr]
            label = f"{'Save' if query is not None else 'Delete'} the search “{shown}”"
            payload = {"name": shown, "key": saved.key_of(name), "before": before, "after": query}
            history.record(session, "saved", label, payload)
        return True

    def save_search(self, name: str, query: str) -> None:
        """Save (or replace) a query under a name, as one undo step; run it with search()."""
        self._put_search(name, query)

    def delete_saved_search(self, name: str) -> bool:
        """Forget a saved search (one undo step); False when there was none by that name."""
        return self._put_search(name, None)

    def saved_searches(self) -> list[SavedSearchInfo]:
        """Every saved search, in the order first saved."""
        with self.db.reading() as session:
            return saved.listed(session)

    # -- undo and redo -------------------------------------------------------------------------
    def _step(self, backwards: bool) -> UndoOutcome | None:
        with self.db.writing() as session:
            done = undo.undo(session) if backwards else undo.redo(session)
        if done is None:
            return None
        label, applied = done
        self._sync.flush()
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

    def history(self, limit: int = 50) -> list[HistoryEntry]:
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

    def mark_opened(self, paper_id: int) -> bool:
        """Opening a paper (the window, after a moment) marks it read; True when it was unread.

        Not a step of the undo history: it is no decision of the user's (mail clients do not
        undo it either), and Ctrl+Z right after a star must take back the star, not this.
        Undoing an earlier `r` leaves it alone (it holds no longer what that change left).
        """
        with self.db.writing() as session:
            return bool(edits.set_value(session, [paper_id], "read", True))

    def begin_note_session(self, paper_id: int) -> str:
        """A token for one editing session of a note: pass it to every set_note of the session.

        All the saves of a session are one undo step (while no other change comes between).
        """
        return f"note:{paper_id}:{os.urandom(6).hex()}"

    def end_note_session(self, token: str) -> None:
        """Close a note's editing session: the next save, even with this token, is a new step."""
        with self.db.writing() as session:
            step = history.newest_in_group(session, token)
            if step is not None:
                step.group_key = None

    # -- the trash -----------------------------------------------------------------------------
    def papers_with_notes(self, ids: Sequence[int]) -> list[int]:
        """Which of these papers carry a note (ask before deleting them); raises PaperNotFound."""
        with self.db.reading() as session:
            found = require_papers(session, ids)
            return [i for i in dict.fromkeys(ids) if found[i].note.strip()]

    def delete_papers(self, ids: Sequence[int]) -> list[int]:
        """Move papers to the trash, as one undo step (restore_papers or undo brings them back).

        Raises PaperNotFound for an unknown id before anything moves. Ask first when
        papers_with_notes(ids) is not empty: a note goes to the trash with its paper.
        """
        wanted = list(dict.fromkeys(ids))
        with self.db.writing() as session:
            entries = trash.trash_papers(session, wanted)
            what = f"{len(wanted)} papers" if len(wanted) != 1 else f"paper {wanted[0]}"
            history.record(session, "trash", f"Delete {what}", {"ids": wanted, "entries": entries})
        self._sync.flush()
        return wanted

    def list_removal(self, target: str) -> ListRemoval:
        """What remove_list(target) would do, changing nothing (to ask about notes first)."""
        with self.db.reading() as session:
            records = trash.records_named(session, target)
            gone, kept = trash.list_papers(session, records)
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
            records = trash.records_named(session, target)
            lists, entries, _ = trash.remove_lists(session, records)
            imports = [r.id for r in records]
            payload = {"lists": lists, "imports": imports, "ids": list(plan.trashed), "entries": entries}
            label = f"Remove the list “{target}” ({len(plan.trashed)} papers)"
            history.record(session, "trash", label, payload)
        self._sync.flush()
        return plan

    def trash(self) -> list[TrashedPaper]:
        """What the trash holds, the latest removed first."""
        with self.db.reading() as session:
            return trash.listed(session)

    def restore_papers(self, ids: Sequence[int]) -> list[int]:
        """Put papers back from the trash, as one undo step; returns their ids as they are now.

        A paper whose text was imported again meanwhile is folded into that paper (its star,
        note, title and tags kept), and that paper's id is returned. DeskError for an id that is
        not in the trash (nothing is restored then).
        """
        with self.db.writing() as session:
            entries = trash.entries_of(session, ids)
            restored = trash.restore_entries(session, entries)
            itself = [i for i in restored if i in set(ids)]
            what = f"paper {restored[0]}" if len(restored) == 1 else f"{len(restored)} papers"
            history.record(session, "restore", f"Restore {what}", {"ids": itself, "entries": entries})
        self._sync.flush()
        return restored

    def empty_trash(self) -> int:
        """Delete what the trash holds for good (not undoable); returns how many papers went."""
        with self.db.writing() as session:
            return trash.empty(session)
