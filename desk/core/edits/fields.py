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

from sqlalchemy import select
from sqlalchemy.orm import Session
from sqlalchemy.orm.util import identity_key

from desk.core.edits import history, statements
from desk.core.edits.statements import FIELDS, FLAGS, Change
from desk.core.runtime.errors import DeskError
from desk.core.search.index_sync import queue
from desk.core.store import Paper
from desk.core.store.models import utcnow
from desk.core.store.queries import load_papers, raw_connection


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
            kind, words, payload = statements.field_step(changes, field, value)
            history.record(session, kind, words, payload, group)
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
    """Set a field on papers (a note or a title re-indexed); returns the changes made (papers
    already so are left). Raises PaperNotFound for an id that does not exist, before anything changes.
    """
    if field not in FIELDS:
        raise DeskError(f"{field} is not a field a user edits")
    conn = raw_connection(session)
    if field in FLAGS:
        changes = statements.set_flags(conn, ids, field, bool(value))
    else:
        changes = statements.set_texts(conn, ids, field, value if value is None else str(value))
    _forget_loaded(session, [c[0] for c in changes])
    return changes


def _forget_loaded(session: Session, ids: Sequence[int]) -> None:
    """Papers the session holds are read again after a statement changed them under it."""
    for i in ids:
        paper = session.identity_map.get(identity_key(Paper, i))
        if paper is not None:
            session.expire(paper)


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
