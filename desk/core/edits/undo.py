"""Undo and redo: taking back the newest step of the history, or doing the oldest undone one again.

Each kind of step has a pair of appliers. An applier changes only what still is as the step left
it (or found it, for redo); what a later change touched stays, and is counted as skipped. The
history is linear: undo takes the newest step not undone, redo the oldest undone one, and a new
change forgets what could be redone.
"""

from __future__ import annotations

import json
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
    """A change is ``[paper_id, name, added, position]``: a tag given (or taken off) a paper
    that had (or has) that place in the tag's order, put back there (older steps have no place)."""
    existing = set(load_papers(session, [c[0] for c in payload["changes"]]))
    by_action: dict[tuple[str, bool], list[tuple[int, int | None]]] = {}
    skipped = 0
    for paper_id, name, added, *place in payload["changes"]:
        if paper_id not in existing:
            skipped += 1
            continue
        by_action.setdefault((name, added != backwards), []).append((paper_id, place[0] if place else None))
    touched: list[int] = []
    for (name, add), placed in by_action.items():
        ids = [i for i, _ in placed]
        done = tags.put_back(session, name, placed) if add else tags.remove(session, ids, name)
        skipped += len(ids) - len(done)
        touched += done
    return Applied(touched, skipped)


def merge_with_tags(
    session: Session, keep: int, others: list[int], record: int | None = None
) -> dict[str, Any]:
    """Merge (merging.merge) and give the kept paper the others' tags; the step's payload.

    A merged-away paper's tags would go with its row: the merge record keeps them (each with
    its place in the tag's order), an unmerge puts them back on it, and the tags the kept
    paper gained are taken off it again. ``record``: the id a step knows this merge by, kept
    when the merge is made again (an undone unmerge, a redo), so that every step naming it
    (a merge, a merge-all's part, an unmerge) still names it.
    """
    carried = tags.placed(session, others)
    names = dict.fromkeys(str(name) for held in carried.values() for name, _ in held)
    gave = [name for name in names if not tags.all_carry(session, [keep], name)]
    extra = {"tags": {str(i): held for i, held in carried.items()}, "gave": gave}
    made = merging.merge(session, keep, others, record_id=record, extra=extra)
    for name in gave:
        tags.add(session, [keep], name)
    plain = {i: [name for name, _ in held] for i, held in carried.items()}
    return {"keep": keep, "others": others, "record": made, "tags": plain, "gave": gave}


def _names(rec: MergeRecord, payload: dict[str, Any]) -> bool:
    """True when the record is the merge the payload describes (a record's id can be given again
    by SQLite to a later merge once the record is gone)."""
    return rec.keep_id == payload["keep"] and merging.merged_away(rec) == [int(i) for i in payload["others"]]


def unmerge_with_tags(session: Session, payload: dict[str, Any], exact: bool = False) -> Applied:
    """Undo the merge a payload of merge_with_tags describes, its tags included (``exact``: an
    undo of the step that made it, see ``merging.unmerge_record``)."""
    rec = session.get(MergeRecord, payload["record"]) if payload.get("record") is not None else None
    if rec is None or not _names(rec, payload):
        return Applied([], 1)  # undone already (desk unmerge)
    return Applied([rec.keep_id, *take_back_merge(session, rec, payload, exact)])


def take_back_merge(
    session: Session, rec: MergeRecord, payload: dict[str, Any] | None = None, exact: bool = False
) -> list[int]:
    """Undo one merge and its tags (every unmerge goes through here: desk unmerge, undo, redo);
    returns the ids brought back. What to give back is read from the merge record, the one copy
    every step naming it shares; ``payload``: a step's, for the tags of a record from an older desk."""
    snap = json.loads(rec.snapshot)
    carried: dict[str, list[Any]] = snap.get("tags", (payload or {}).get("tags", {}))
    gave: list[str] = snap.get("gave", (payload or {}).get("gave", []))
    keep = rec.keep_id
    restored = merging.unmerge_record(session, rec, exact)
    for oid, held in carried.items():
        for each in held:
            name, position = (each, None) if isinstance(each, str) else (each[0], each[1])
            tags.put_back(session, name, [(int(oid), position)])
    for name in gave:
        tags.remove(session, [keep], name)
    return restored


def _kept_state(session: Session, keep: int) -> dict[str, Any]:
    found = load_papers(session, [keep])
    if keep not in found:  # merged away since: unmerge_record says what to unmerge first
        return {"fields": {}, "tags": []}
    fields = merging.kept_fields(found[keep])
    return {"fields": fields, "tags": tags.placed(session, [keep]).get(keep, [])}


def unmerge_step(session: Session, payload: dict[str, Any]) -> tuple[Applied, dict[str, Any]]:
    """Unmerge (``desk unmerge``, the redo of one): what was done, and the step's payload, which
    holds the merge record and the kept paper before and after, so that undoing the unmerge
    makes the merge again exactly as it was (``_merge_back``)."""
    rec = session.get(MergeRecord, payload["record"]) if payload.get("record") is not None else None
    if rec is None or not _names(rec, payload):
        return Applied([], 1), payload
    saved = merging.saved_record(rec)
    before = _kept_state(session, rec.keep_id)
    applied = Applied([rec.keep_id, *take_back_merge(session, rec, payload)])
    after = _kept_state(session, payload["keep"])
    step: dict[str, Any] = {k: v for k, v in payload.items() if k != "undo"}
    return applied, {**step, "undo": {"record": saved, "before": before, "after": after}}


def _merge_back(session: Session, payload: dict[str, Any]) -> Applied:
    """Undo an unmerge: the merge again as it was, and the kept paper's fields and tags as
    they were before the unmerge (where still as it left them)."""
    undone = payload["undo"]
    if not merging.merge_again(session, undone["record"]):
        return Applied([], 1)  # one of the papers is gone (merged elsewhere, deleted)
    keep_id = payload["keep"]
    keep = load_papers(session, [keep_id])[keep_id]
    before, after = undone["before"], undone["after"]
    merging.set_kept_fields(keep, after["fields"], before["fields"])
    had = {name: position for name, position in before["tags"]}
    left = {name for name, _ in after["tags"]}
    now = {name for name, _ in tags.placed(session, [keep_id]).get(keep_id, [])}
    for name in (had.keys() | left) - (had.keys() & left):
        if (name in now) == (name in left):  # as the unmerge left it
            if name in had:
                tags.put_back(session, name, [(keep_id, had[name])])
            else:
                tags.remove(session, [keep_id], name)
    return Applied([keep_id, *payload["others"]])


def _merge_again(session: Session, payload: dict[str, Any]) -> Applied:
    keep, others = payload["keep"], payload["others"]
    if len(load_papers(session, [keep, *others])) != 1 + len(others):
        return Applied([], 1)  # one of them is gone (merged elsewhere, deleted)
    again = merge_with_tags(session, keep, others, payload.get("record"))
    return Applied([keep, *others], payload=again)


def _merge_step(session: Session, payload: dict[str, Any], backwards: bool) -> Applied:
    return unmerge_with_tags(session, payload, exact=True) if backwards else _merge_again(session, payload)


def _unmerge_step(session: Session, payload: dict[str, Any], backwards: bool) -> Applied:
    if not backwards:
        applied, again = unmerge_step(session, payload)
        return Applied(applied.paper_ids, applied.skipped, again)
    if "undo" in payload:
        return _merge_back(session, payload)
    return _merge_again(session, payload)  # a step from an older desk: a merge made anew


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
    """The payload of the merge an unmerge of ``paper_id`` would undo (None: no such merge):
    the one of the step that made it (a merge, a merge-all's part, an unmerge undone), or one
    made from the record for a merge no step holds any more."""
    from desk.core.store import HistoryStep

    record = merging.record_of(session, paper_id)
    if record is None:
        return None
    kinds = HistoryStep.kind.in_(("merge", "unmerge", "merge-all"))
    steps = select(HistoryStep).where(kinds).order_by(HistoryStep.id.desc())
    for step in session.scalars(steps):
        payload = history.payload_of(step)
        for part in payload.get("merges", [payload]):
            if part.get("record") == record.id and _names(record, part):
                return dict(part)
    others = merging.merged_away(record)
    return {"keep": record.keep_id, "others": others, "record": record.id, "tags": {}, "gave": []}


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
