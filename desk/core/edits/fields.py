"""A paper's own fields a user edits (star, read, note, title), as changes undo can take back.

A change is ``[paper_id, field, before, after]``. Applying changes backwards (undo) or forwards
(redo) sets a field only where it still holds the value the change left (or found): a field a
later change touched is left alone, so undoing one change never takes back a later one.

The star and the reading state are not re-indexed: searches ask the database for them
(``desk.core.library.live_filters.LiveFilters``), so starring a thousand papers is one UPDATE and is
searchable once committed; a note or a title changes indexed text and is queued for the index.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from desk.core.edits import history
from desk.core.runtime.errors import DeskError, PaperNotFound
from desk.core.search.index_sync import queue
from desk.core.store import Paper
from desk.core.store.models import utcnow
from desk.core.store.queries import CHUNK, load_papers, require_papers

FIELDS = ("starred", "read", "note", "user_title")
FLAGS = ("starred", "read")  # answered by the database at query time: no re-indexing
Change = list[Any]  # [paper_id, field, before, after]


def record(
    session: Session, ids: Sequence[int], field: str, value: object, group: str | None = None
) -> list[Change]:
    """Set a field on papers and record the changes as one undo step (``set_value`` + history).

    Saves with the same ``group`` (a note's editing session) extend the newest step while it
    is that session's, so one session of typing is one step.
    """
    changes = set_value(session, ids, field, value)
    if changes:
        coalesce = group is not None and not history.in_batch()
        step = history.newest_in_group(session, group) if coalesce and group else None
        if step is not None:
            first = history.payload_of(step)["changes"]
            history.replace_payload(step, {"changes": [[*first[0][:3], value]]})
        else:
            words = label(field, value, len(changes), changes[0][0])
            history.record(session, "fields", words, {"changes": changes}, group)
    return changes


#: The token of the note session a rehearsal's note save belongs to (no real session has it).
REHEARSAL_SESSION = "note:rehearsal"


def rehearse(session: Session) -> list[int]:
    """Make, in a rehearsal (``Database.rehearsing``: rolled back), the edits a user makes most
    (a note saved in an editing session, a star, the reading state) on the library's first
    paper, so that SQLAlchemy compiles their statements; returns the papers queued for the
    index (none when the library is empty)."""
    first = select(Paper.id, Paper.note, Paper.starred, Paper.read).order_by(Paper.id).limit(1)
    paper = session.execute(first).first()
    if paper is None:
        return []
    changes = record(session, [paper.id], "note", f"{paper.note} rehearsed", REHEARSAL_SESSION)
    record(session, [paper.id], "starred", not paper.starred)
    record(session, [paper.id], "read", not paper.read)
    return [c[0] for c in changes]


def set_value(session: Session, ids: Sequence[int], field: str, value: object) -> list[Change]:
    """Set a field on papers (re-indexed); returns the changes made (papers already so are left).

    Raises PaperNotFound for an id that does not exist, before anything changes.
    """
    if field not in FIELDS:
        raise DeskError(f"{field} is not a field a user edits")
    if field in FLAGS:
        return _set_flag(session, list(dict.fromkeys(ids)), field, bool(value))
    found = require_papers(session, ids)
    changes: list[Change] = []
    for i in dict.fromkeys(ids):
        paper = found[i]
        before = getattr(paper, field)
        if before != value:
            setattr(paper, field, value)
            paper.touch()
            changes.append([i, field, before, value])
    queue(session, [c[0] for c in changes])
    return changes


def _set_flag(session: Session, ids: list[int], field: str, value: bool) -> list[Change]:
    """set_value for a flag, in plain SQL (a selection of thousands is one statement per chunk)."""
    column = getattr(Paper, field)
    current: dict[int, bool] = {}
    for start in range(0, len(ids), CHUNK):
        chunk = ids[start : start + CHUNK]
        rows = session.execute(select(Paper.id, column).where(Paper.id.in_(chunk)))
        current.update((i, v) for i, v in rows)
    for i in ids:
        if i not in current:
            raise PaperNotFound(i)
    changed = [i for i in ids if bool(current[i]) != value]
    now = utcnow()
    for start in range(0, len(changed), CHUNK):
        chunk = changed[start : start + CHUNK]
        stmt = update(Paper).where(Paper.id.in_(chunk)).values({field: value, "updated_at": now})
        session.execute(stmt.execution_options(synchronize_session=False))
    return [[i, field, not value, value] for i in changed]


def apply(session: Session, changes: Sequence[Change], backwards: bool) -> tuple[list[int], int]:
    """Undo (backwards) or redo changes where the field still holds what they left; (changed ids, skipped)."""
    papers: dict[int, Paper] = load_papers(session, [c[0] for c in changes])
    changed: dict[int, None] = {}
    reindex: dict[int, None] = {}
    skipped = 0
    for paper_id, field, before, after in changes:
        expect, value = (after, before) if backwards else (before, after)
        paper = papers.get(paper_id)
        if paper is None or field not in FIELDS or getattr(paper, field) != expect:
            skipped += 1  # gone, or changed again since: the later change stays
            continue
        setattr(paper, field, value)
        if field in FLAGS:
            paper.updated_at = utcnow()
        else:
            paper.touch()
            reindex[paper_id] = None
        changed[paper_id] = None
    queue(session, reindex)
    return list(changed), skipped


def label(field: str, value: object, count: int, paper_id: int) -> str:
    """The step's words: "Star 5 papers", "Mark paper 12 read", "Edit the note of paper 12"."""
    what = f"{count} papers" if count != 1 else f"paper {paper_id}"
    if field == "starred":
        return f"{'Star' if value else 'Unstar'} {what}"
    if field == "read":
        return f"Mark {what} {'read' if value else 'unread'}"
    if field == "note":
        return f"Edit the note of {what}"
    return f"Retitle {what}"
