"""Undo and redo: taking back the newest step of the history, or doing the oldest undone one again.

Each kind of step has a pair of appliers. An applier changes only what still is as the step left
it (or found it, for redo); what a later change touched stays, and is counted as skipped. The
history is linear: undo takes the newest step not undone, redo the oldest undone one, and a new
change forgets what could be redone.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from desk.core import edits, history, merging, tags
from desk.core.db import DistinctPair, MergeRecord, Paper, SavedSearch
from desk.core.db.queries import load_papers
from desk.core.errors import DeskError


@dataclass
class Applied:
    """What applying a step did: papers touched, parts skipped, and the payload to keep."""

    paper_ids: list[int]
    skipped: int = 0
    payload: dict[str, Any] | None = None  # a redo that made new records rewrites the step


Applier = Callable[[Session, dict[str, Any], bool], Applied]  # (session, payload, backwards)


def _fields(session: Session, payload: dict[str, Any], backwards: bool) -> Applied:
    ids, skipped = edits.apply(session, payload["changes"], backwards)
    return Applied(ids, skipped)


def _tags(session: Session, payload: dict[str, Any], backwards: bool) -> Applied:
    existing = set(load_papers(session, [c[0] for c in payload["changes"]]))
    by_action: dict[tuple[str, bool], list[int]] = {}
    skipped = 0
    for paper_id, name, added in payload["changes"]:
        if paper_id not in existing:
            skipped += 1
            continue
        by_action.setdefault((name, added != backwards), []).append(paper_id)
    touched: list[int] = []
    for (name, add), ids in by_action.items():
        done = tags.add(session, ids, name) if add else tags.remove(session, ids, name)
        skipped += len(ids) - len(done)
        touched += done
    return Applied(touched, skipped)


def _latest_merge(session: Session, paper_id: int) -> int | None:
    for rec in session.scalars(select(MergeRecord).order_by(MergeRecord.id.desc())):
        if rec.keep_id == paper_id or str(paper_id) in rec.merged_ids.split(","):
            return rec.id
    return None


def _unmerge(session: Session, payload: dict[str, Any]) -> Applied:
    keep = payload["keep"]
    if payload.get("record") is None or _latest_merge(session, keep) != payload["record"]:
        return Applied([], 1)  # undone already, or a later merge stands on it
    restored = merging.unmerge(session, keep)
    return Applied([keep, *restored])


def _merge(session: Session, payload: dict[str, Any]) -> tuple[Applied, int | None]:
    keep, others = payload["keep"], payload["others"]
    found = load_papers(session, [keep, *others])
    if len(found) != 1 + len(others):
        return Applied([], 1), None  # one of them is gone (merged elsewhere, deleted)
    record = merging.merge(session, keep, others)
    return Applied([keep, *others]), record


def _merge_step(session: Session, payload: dict[str, Any], backwards: bool) -> Applied:
    if backwards:
        return _unmerge(session, payload)
    applied, record = _merge(session, payload)
    if record is not None:
        applied.payload = {**payload, "record": record}
    return applied


def _unmerge_step(session: Session, payload: dict[str, Any], backwards: bool) -> Applied:
    if not backwards:
        return _unmerge(session, payload)
    applied, record = _merge(session, payload)
    if record is not None:
        applied.payload = {**payload, "record": record}
    return applied


def _distinct(session: Session, payload: dict[str, Any], backwards: bool) -> Applied:
    a, b = payload["a"], payload["b"]
    pair = session.get(DistinctPair, (a, b))
    if backwards and pair is not None:
        session.delete(pair)
        return Applied([a, b])
    if not backwards and pair is None and session.get(Paper, a) and session.get(Paper, b):
        session.add(DistinctPair(a=a, b=b))
        return Applied([a, b])
    return Applied([], 1)


def _saved(session: Session, payload: dict[str, Any], backwards: bool) -> Applied:
    from desk.core import saved

    expect, value = (payload["after"], payload["before"]) if backwards else (payload["before"], payload["after"])
    row = session.scalar(select(SavedSearch).where(SavedSearch.key == payload["key"]))
    if (row.query if row is not None else None) != expect:
        return Applied([], 1)
    saved.put(session, payload["name"], value)
    return Applied([])


APPLIERS: dict[str, Applier] = {
    "fields": _fields,
    "tags": _tags,
    "merge": _merge_step,
    "unmerge": _unmerge_step,
    "distinct": _distinct,
    "saved": _saved,
}


def register(kind: str, applier: Applier) -> None:
    """Add the appliers of a kind of step kept in another module (the trash's)."""
    APPLIERS[kind] = applier


def _run(session: Session, backwards: bool) -> tuple[str, Applied] | None:
    step = history.newest(session) if backwards else history.oldest_undone(session)
    if step is None:
        return None
    applier = APPLIERS.get(step.kind)
    if applier is None:
        raise DeskError(f"this desk does not know how to undo “{step.label}”")
    applied = applier(session, history.payload_of(step), backwards)
    if applied.payload is not None:
        history.replace_payload(step, applied.payload)
    step.undone = backwards
    step.group_key = None  # an undone note session is not extended by a later save
    return step.label, applied


def undo(session: Session) -> tuple[str, Applied] | None:
    """Take back the newest step not undone: (its label, what was done), or None when there is none."""
    return _run(session, backwards=True)


def redo(session: Session) -> tuple[str, Applied] | None:
    """Do the oldest undone step again, or None when there is none."""
    return _run(session, backwards=False)
