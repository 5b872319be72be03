"""The undo history, stored in the database: one row per change a user made, window and CLI alike.

A step records what undoing and redoing it needs (``payload``, JSON) and a label said back to the
user ("Star 5 papers"). Steps not undone form the undo stack (newest first); undone ones the redo
stack (oldest undone first). A new change forgets the redo stack, as every editor does. Applying
a step is ``desk.core.edits.undo``'s work; this module only stores them.

Note edits coalesce: saves of one editing session (``group``, a token the window gets from
``Library.begin_note_session``) update the newest step instead of adding one, so one session of
typing is one undo step.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from desk.core.edits import statements
from desk.core.records.detail import HistoryEntry
from desk.core.store import HistoryStep
from desk.core.store.models import utcnow
from desk.core.store.queries import raw_connection

BATCH = "batch:"  # group_key of the steps of one batch: "batch:<token>:<label>"
_batch: ContextVar[str | None] = ContextVar("desk_history_batch", default=None)


@contextmanager
def batch(label: str) -> Iterator[None]:
    """Every step recorded inside (in this thread) is one undo step, said back as ``label``."""
    outer = _batch.get()
    token = _batch.set(outer or f"{BATCH}{os.urandom(6).hex()}:{label}")
    try:
        yield
    finally:
        _batch.reset(token)


def in_batch() -> bool:
    """True inside batch(): a note save then is a step of the batch, not of a note session."""
    return _batch.get() is not None


def batch_label(group: str | None) -> str | None:
    """The label of the batch a step belongs to, or None when it is a step of its own."""
    if group is None or not group.startswith(BATCH):
        return None
    return group.split(":", 2)[2]


def batch_steps(session: Session, step: HistoryStep, backwards: bool) -> list[HistoryStep]:
    """The steps of ``step``'s batch in the order to apply them (newest first to undo)."""
    order = HistoryStep.id.desc() if backwards else HistoryStep.id
    stmt = select(HistoryStep).where(
        HistoryStep.group_key == step.group_key, HistoryStep.undone.is_(not backwards)
    )
    return list(session.scalars(stmt.order_by(order)))


def record(session: Session, kind: str, label: str, payload: dict[str, Any], group: str | None = None) -> int:
    """Add a step (forgetting what could be redone); returns its id. Inside batch() it joins the batch."""
    return statements.record_step(raw_connection(session), kind, label, payload, _batch.get() or group)


def newest_in_group(session: Session, group: str) -> HistoryStep | None:
    """The newest step if it belongs to ``group`` (a note session that can be extended), else None."""
    step = newest(session)
    return step if step is not None and step.group_key == group else None


def replace_payload(step: HistoryStep, payload: dict[str, Any], label: str | None = None) -> None:
    """Rewrite a step's payload (a coalesced note save, a redo that made new records)."""
    step.payload = json.dumps(payload)
    if label is not None:
        step.label = label
    step.updated_at = utcnow()


def payload_of(step: HistoryStep) -> dict[str, Any]:
    """A step's payload, decoded."""
    data = json.loads(step.payload)
    return data if isinstance(data, dict) else {}


def newest(session: Session) -> HistoryStep | None:
    """The step undo() would take back, or None."""
    stmt = select(HistoryStep).where(HistoryStep.undone.is_(False)).order_by(HistoryStep.id.desc()).limit(1)
    return session.scalar(stmt)


def oldest_undone(session: Session) -> HistoryStep | None:
    """The step redo() would do again, or None."""
    stmt = select(HistoryStep).where(HistoryStep.undone.is_(True)).order_by(HistoryStep.id).limit(1)
    return session.scalar(stmt)


def entries(session: Session, limit: int = 50) -> list[HistoryEntry]:
    """The newest steps, newest first (undone ones included, marked)."""
    stmt = select(HistoryStep).order_by(HistoryStep.id.desc()).limit(limit)
    return [HistoryEntry(s.id, s.label, s.undone, s.created_at) for s in session.scalars(stmt)]
