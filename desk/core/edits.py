"""A paper's own fields a user edits (star, read, note, title), as changes undo can take back.

A change is ``[paper_id, field, before, after]``. Applying changes backwards (undo) or forwards
(redo) sets a field only where it still holds the value the change left (or found): a field a
later change touched is left alone, so undoing one change never takes back a later one.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy.orm import Session

from desk.core.db import Paper
from desk.core.db.queries import load_papers, require_papers
from desk.core.errors import DeskError
from desk.core.index_sync import queue

FIELDS = ("starred", "read", "note", "user_title")
Change = list[Any]  # [paper_id, field, before, after]


def set_value(session: Session, ids: Sequence[int], field: str, value: object) -> list[Change]:
    """Set a field on papers (re-indexed); returns the changes made (papers already so are left).

    Raises PaperNotFound for an id that does not exist, before anything changes.
    """
    if field not in FIELDS:
        raise DeskError(f"{field} is not a field a user edits")
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


def apply(session: Session, changes: Sequence[Change], backwards: bool) -> tuple[list[int], int]:
    """Undo (backwards) or redo changes where the field still holds what they left; (changed ids, skipped)."""
    papers: dict[int, Paper] = load_papers(session, [c[0] for c in changes])
    changed: dict[int, None] = {}
    skipped = 0
    for paper_id, field, before, after in changes:
        expect, value = (after, before) if backwards else (before, after)
        paper = papers.get(paper_id)
        if paper is None or field not in FIELDS or getattr(paper, field) != expect:
            skipped += 1  # gone, or changed again since: the later change stays
            continue
        setattr(paper, field, value)
        paper.touch()
        changed[paper_id] = None
    queue(session, changed)
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
