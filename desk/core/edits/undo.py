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

from desk.core.edits import fields as edits
from desk.core.edits import history, merging, tags
from desk.core.runtime.errors import DeskError
from desk.core.store import DistinctPair, MergeRecord, SavedSearch
from desk.core.store.queries import load_papers


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


def merge_with_tags(session: Session, keep: int, others: list[int]) -> dict[str, Any]:
    """Merge (merging.merge) and give the kept paper the others' tags; the step's payload.

    A merged-away paper's tags would go with its row: they are kept in the payload, put back
    on it by an unmerge, and the tags the kept paper gained are taken off it again.
    """
    carried = tags.tags_of(session, others)
    record = merging.merge(session, keep, others)
    gave: list[str] = []
    for name in dict.fromkeys(n for names in carried.values() for n in names):
        gave += [name] if tags.add(session, [keep], name) else []
    return {"keep": keep, "others": others, "record": record, "tags": carried, "gave": gave}


def unmerge_with_tags(session: Session, payload: dict[str, Any]) -> Applied:
    """Undo the merge a payload of merge_with_tags describes, its tags included."""
    keep, others = payload["keep"], payload["others"]
    if payload.get("record") is None or session.get(MergeRecord, payload["record"]) is None:
        return Applied([], 1)  # undone already (desk unmerge)
    restored = merging.unmerge(session, others[0])  # a merged-away id names its one merge
    for oid, names in payload.get("tags", {}).items():
        for name in names:
            tags.add(session, [int(oid)], name)
    for name in payload.get("gave", []):
        tags.remove(session, [keep], name)
    return Applied([keep, *restored])


def _merge_again(session: Session, payload: dict[str, Any]) -> Applied:
    keep, others = payload["keep"], payload["others"]
    if len(load_papers(session, [keep, *others])) != 1 + len(others):
        return Applied([], 1)  # one of them is gone (merged elsewhere, deleted)
    return Applied([keep, *others], payload=merge_with_tags(session, keep, others))


def _merge_step(session: Session, payload: dict[str, Any], backwards: bool) -> Applied:
    return unmerge_with_tags(session, payload) if backwards else _merge_again(session, payload)


def _unmerge_step(session: Session, payload: dict[str, Any], backwards: bool) -> Applied:
    return _merge_again(session, payload) if backwards else unmerge_with_tags(session, payload)


def _distinct(session: Session, payload: dict[str, Any], backwards: bool) -> Applied:
    a, b = payload["a"], payload["b"]
    pair = session.get(DistinctPair, (a, b))
    if backwards and pair is not None:
        session.delete(pair)
        return Applied([a, b])
    if not backwards and pair is None and len(load_papers(session, [a, b])) == 2:
        session.add(DistinctPair(a=a, b=b))
        return Applied([a, b])
    return Applied([], 1)


def _undistinct(session: Session, payload: dict[str, Any], backwards: bool) -> Applied:
    """Taking back "not a duplicate" (``desk distinct --undo``): a distinct step the other way."""
    return _distinct(session, payload, not backwards)


def _merge_all(session: Session, payload: dict[str, Any], backwards: bool) -> Applied:
    """Every merge of a "merge all of this kind", taken back newest first or made again in order."""
    merges = payload["merges"]
    touched: list[int] = []
    skipped = 0
    kept: list[dict[str, Any]] = []
    for part in reversed(merges) if backwards else merges:
        applied = _merge_step(session, part, backwards)
        touched += applied.paper_ids
        skipped += applied.skipped
        kept.append(applied.payload if applied.payload is not None else part)
    return Applied(touched, skipped, payload={"merges": kept[::-1] if backwards else kept})


def _saved(session: Session, payload: dict[str, Any], backwards: bool) -> Applied:
    from desk.core.edits import saved_searches as saved

    expect, value = payload["before"], payload["after"]
    if backwards:
        expect, value = value, expect
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
    "undistinct": _undistinct,
    "merge-all": _merge_all,
    "saved": _saved,
}


def register(kind: str, applier: Applier) -> None:
    """Add the appliers of a kind of step kept in another module (the trash's)."""
    APPLIERS[kind] = applier


def _run(session: Session, backwards: bool) -> tuple[str, Applied] | None:
    step = history.newest(session) if backwards else history.oldest_undone(session)
    if step is None:
        return None
    batch = history.batch_label(step.group_key)
    steps = history.batch_steps(session, step, backwards) if batch is not None else [step]
    total = Applied([])
    for each in steps:
        applier = APPLIERS.get(each.kind)
        if applier is None:
            raise DeskError(f"this desk does not know how to undo “{each.label}”")
        applied = applier(session, history.payload_of(each), backwards)
        if applied.payload is not None:
            history.replace_payload(each, applied.payload)
        each.undone = backwards
        if batch is None:
            each.group_key = None  # an undone note session is not extended by a later save
        total.paper_ids += applied.paper_ids
        total.skipped += applied.skipped
    return batch or step.label, total


def undo(session: Session) -> tuple[str, Applied] | None:
    """Take back the newest step not undone: (its label, what was done), or None when there is none."""
    return _run(session, backwards=True)


def redo(session: Session) -> tuple[str, Applied] | None:
    """Do the oldest undone step again, or None when there is none."""
    return _run(session, backwards=False)


def merge_payload(session: Session, paper_id: int) -> dict[str, Any] | None:
    """The payload of the merge an unmerge of ``paper_id`` would undo (None: no such merge)."""
    from desk.core.store import HistoryStep

    rec_id = None
    for rec in session.scalars(select(MergeRecord).order_by(MergeRecord.id.desc())):
        if rec.keep_id == paper_id or str(paper_id) in rec.merged_ids.split(","):
            rec_id = rec.id
            break
    if rec_id is None:
        return None
    kinds = HistoryStep.kind.in_(("merge", "unmerge"))
    steps = select(HistoryStep).where(kinds).order_by(HistoryStep.id.desc())
    for step in session.scalars(steps):
        payload = history.payload_of(step)
        if payload.get("record") == rec_id:
            return payload
    record = session.get(MergeRecord, rec_id)
    assert record is not None
    others = [int(x) for x in record.merged_ids.split(",") if x]
    return {"keep": record.keep_id, "others": others, "record": rec_id, "tags": {}, "gave": []}


def _trash_step(session: Session, payload: dict[str, Any], backwards: bool) -> Applied:
    """A deletion or a list's removal: undo puts back, redo removes again (new trash entries)."""
    from desk.core.edits import trash
    from desk.core.store import ImportRecord

    if backwards:  # by paper: a paper restored and trashed again since has a newer entry
        restored = [i for lid in payload.get("lists", []) for i in trash.restore_list(session, lid)]
        restored += trash.restore_entries(session, trash.entries_of(session, payload["ids"], strict=False))
        skipped = len(set(payload["ids"]) - set(restored))
        return Applied(restored, skipped)
    if payload.get("lists"):
        records = [r for i in payload["imports"] if (r := session.get(ImportRecord, i)) is not None]
        records = [r for r in records if not r.sha256.startswith(trash.REMOVED_PREFIX)]
        if not records:
            return Applied([], 1)
        lists, entries, kept = trash.remove_lists(session, records)
        return Applied([*payload["ids"], *kept], payload={**payload, "lists": lists, "entries": entries})
    present = list(load_papers(session, payload["ids"]))
    entries = trash.trash_papers(session, present)
    return Applied(present, len(payload["ids"]) - len(present), {**payload, "entries": entries})


def _restore_step(session: Session, payload: dict[str, Any], backwards: bool) -> Applied:
    """A restore from the trash: undoing it trashes the papers again; redoing restores them."""
    return _trash_step(session, payload, not backwards)


APPLIERS.update({"trash": _trash_step, "restore": _restore_step})
