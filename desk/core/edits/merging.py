"""Duplicate policy: merge papers into one (undoably) and remember "not a duplicate"."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from desk.core.edits import carried
from desk.core.runtime.errors import DeskError
from desk.core.search.index_sync import queue
from desk.core.store import DistinctPair, KeyAlias, MergeRecord, Paper, Source
from desk.core.store.models import table_of
from desk.core.store.queries import load_papers, raw_connection, require_papers

NOTE_SEPARATOR = "\n\n---\n\n"
SNAPSHOT_FORMAT = 2
"""Merge records: 1 held the papers as they were; 2 adds what the merge gave the kept paper."""
_PAPER_FIELDS = (
    "id", "key", "abstract_raw", "abstract", "derived_title", "user_title", "short_name",
    "starred", "read", "note", "rev", "created_at", "updated_at",
)  # fmt: skip


def _snapshot(paper: Paper) -> dict[str, Any]:
    data = {f: getattr(paper, f) for f in _PAPER_FIELDS}
    for f in ("created_at", "updated_at"):
        data[f] = data[f].isoformat() if data[f] else None
    data["sources"] = [
        {"id": s.id, "file": s.file, "index": s.index, "collection": s.collection, "import_id": s.import_id}
        for s in paper.sources
    ]
    return data


def _joined(notes: Sequence[str]) -> tuple[str, list[int]]:
    """The notes joined as merged_note() joins them, and which of them (by position) were kept."""
    kept: list[str] = []
    used: list[int] = []
    for k, note in enumerate(notes):
        if note.strip() and note.strip() not in (x.strip() for x in kept):
            kept.append(note.strip("\n"))
            used.append(k)
    return NOTE_SEPARATOR.join(kept), used


def merged_note(notes: Sequence[str]) -> str:
    """The notes of merged papers, kept in order, joined by a separator, without repeats."""
    return _joined(notes)[0]


def _contribution(snapshot: dict[str, Any]) -> dict[str, Any]:
    """What a merge gave the kept paper, worked out from the papers as they were before it.

    Format 2 records store it; a format-1 record (the snapshot alone) gets the same answer here,
    so merges made by an older desk unmerge the same way.
    """
    if snapshot.get("format", 1) >= 2:
        return dict(snapshot["contribution"])
    keep, others = snapshot["keep"], snapshot["others"]
    taken = {(s["file"], s["index"]) for s in keep["sources"]}
    added: list[list[Any]] = []
    for data in others:
        for src in data["sources"]:
            if (src["file"], src["index"]) not in taken:
                taken.add((src["file"], src["index"]))
                added.append([src["file"], src["index"]])
    note, used = _joined([keep["note"], *(o["note"] for o in others)])
    user_title, short_name = keep["user_title"], keep["short_name"]
    for data in others:
        user_title = user_title or data["user_title"]
        short_name = short_name or data["short_name"]
    return {
        "sources": added,
        "note_parts": [others[k - 1]["note"].strip("\n") for k in used if k > 0],
        "note_after": note,
        "starred": not keep["starred"] and any(o["starred"] for o in others),
        "read": not keep["read"] and any(o["read"] for o in others),
        "user_title": user_title if user_title != keep["user_title"] else None,
        "short_name": short_name if short_name != keep["short_name"] else None,
    }


def merge(
    session: Session,
    keep_id: int,
    other_ids: Sequence[int],
    *,
    record_id: int | None = None,
    extra: dict[str, Any] | None = None,
) -> int:
    """Fold other papers into keep: sources kept, star/read OR-ed, notes joined, keep's title kept,
    the metadata keep lacks (authors, year, venue, links) taken from the others (``carried``).

    The merge record holds the papers as they were and what the merge gave the kept paper
    (``_contribution``), so unmerge() takes back exactly that and nothing edited since.
    ``record_id``: the id of the record to write, when it is free: a merge made again (an
    undone unmerge, a redo) keeps the id every undo step that names it knows it by.
    ``extra``: what the caller needs besides to take the merge back (``desk.core.edits.undo``: tags),
    kept in the record with the rest, so that every step naming the record reads the same.
    """
    others = list(dict.fromkeys(i for i in other_ids if i != keep_id))
    if not others:
        raise DeskError("name at least one other paper to merge into the kept one")
    papers = require_papers(session, [keep_id, *others])
    keep = papers[keep_id]
    snapshot: dict[str, Any] = {
        "format": SNAPSHOT_FORMAT,
        "keep": _snapshot(keep),
        "others": [_snapshot(papers[i]) for i in others],
    }
    for data in snapshot["others"]:
        data["aliases"] = list(session.scalars(select(KeyAlias.key).where(KeyAlias.paper_id == data["id"])))
        # The paper's row goes, and its "not a duplicate" pairs with it (ON DELETE CASCADE).
        data["distinct"] = sorted(_partners(session, data["id"]))
    snapshot["contribution"] = _contribution({**snapshot, "format": 1})
    snapshot.update(extra or {})
    if record_id is not None and session.get(MergeRecord, record_id) is not None:
        record_id = None  # taken (never by the merge it names while history is linear): a new one
    record = MergeRecord(id=record_id, keep_id=keep_id, merged_ids=",".join(map(str, others)), snapshot="")
    session.add(record)
    session.flush()
    notes = [keep.note]
    for oid in others:
        other = papers[oid]
        keep.starred = keep.starred or other.starred
        keep.read = keep.read or other.read
        keep.user_title = keep.user_title or other.user_title
        keep.short_name = keep.short_name or other.short_name
        notes.append(other.note)
    keep.note = merged_note(notes)
    snapshot["contribution"]["meta"] = carried.carry(raw_connection(session), keep_id, others)
    # What the kept paper holds after: an undo finding it still so puts back what it held before.
    snapshot["keep_after"] = kept_fields(keep)
    record.snapshot = json.dumps(snapshot)
    _fold(session, keep, [papers[i] for i in others], record.id)
    return record.id


KEPT_FIELDS = ("starred", "read", "note", "user_title", "short_name")
"""The kept paper's fields a merge changes (and an unmerge gives back)."""


def kept_fields(paper: Paper) -> dict[str, Any]:
    """The values of a paper's KEPT_FIELDS."""
    return {f: getattr(paper, f) for f in KEPT_FIELDS}


def set_kept_fields(paper: Paper, found: dict[str, Any], values: dict[str, Any]) -> None:
    """Give each of KEPT_FIELDS its value in ``values`` where it still holds its value in
    ``found`` (what a step left): a field a later change touched stays as that change left it."""
    for field in KEPT_FIELDS:
        if field in found and field in values and getattr(paper, field) == found[field]:
            setattr(paper, field, values[field])


def _fold(session: Session, keep: Paper, others: Sequence[Paper], record_id: int) -> None:
    """The rows of a merge: the others' sources (those keep has not) and aliases go to keep,
    their keys become aliases of keep, and their rows go; queued for the index."""
    taken = {(s.file, s.index) for s in keep.sources}
    for other in others:
        for src in list(other.sources):
            if (src.file, src.index) in taken:
                continue
            taken.add((src.file, src.index))
            session.add(
                Source(
                    paper_id=keep.id,
                    file=src.file,
                    index=src.index,
                    collection=src.collection,
                    import_id=src.import_id,
                )
            )
        session.execute(
            table_of(KeyAlias).update().where(KeyAlias.paper_id == other.id).values(paper_id=keep.id)
        )
        session.add(KeyAlias(key=other.key, paper_id=keep.id, merge_id=record_id))
        session.delete(other)
    keep.touch()
    session.flush()
    queue(session, [keep.id, *(o.id for o in others)])


def saved_record(rec: MergeRecord) -> dict[str, Any]:
    """A merge record as plain values, for ``merge_again``."""
    return {
        "id": rec.id,
        "keep_id": rec.keep_id,
        "merged_ids": rec.merged_ids,
        "snapshot": rec.snapshot,
        "created_at": rec.created_at.isoformat(),
    }


def merge_again(session: Session, saved: dict[str, Any]) -> bool:
    """Make a merge an unmerge took back again, as it was: the same record (its id, what it
    holds of the papers before it), the others' rows folded into the kept paper; the kept
    paper's fields are the caller's (``set_kept_fields``). False, changing nothing, when one of
    the papers is gone or the record's id is taken."""
    others = [int(x) for x in saved["merged_ids"].split(",") if x]
    papers = load_papers(session, [saved["keep_id"], *others])
    if len(papers) != 1 + len(others) or session.get(MergeRecord, saved["id"]) is not None:
        return False
    record = MergeRecord(
        id=saved["id"],
        keep_id=saved["keep_id"],
        merged_ids=saved["merged_ids"],
        snapshot=saved["snapshot"],
        created_at=datetime.fromisoformat(saved["created_at"]),
    )
    session.add(record)
    session.flush()
    _fold(session, papers[saved["keep_id"]], [papers[i] for i in others], record.id)
    given = _contribution(json.loads(saved["snapshot"])).get("meta")
    carried.give_again(raw_connection(session), saved["keep_id"], given)
    return True


def _partners(session: Session, paper_id: int) -> set[int]:
    """The papers a user said ``paper_id`` is not a duplicate of."""
    mine = (DistinctPair.a == paper_id) | (DistinctPair.b == paper_id)
    pairs = session.execute(select(DistinctPair.a, DistinctPair.b).where(mine))
    return {b if a == paper_id else a for a, b in pairs}


def _records(session: Session) -> list[MergeRecord]:
    return list(session.scalars(select(MergeRecord).order_by(MergeRecord.id.desc())))


def record_of(session: Session, paper_id: int) -> MergeRecord | None:
    """The latest merge paper_id took part in (kept or merged away), or None."""
    for rec in _records(session):
        if rec.keep_id == paper_id or str(paper_id) in rec.merged_ids.split(","):
            return rec
    return None


def merged_away(rec: MergeRecord) -> list[int]:
    """The ids a merge record folded into its kept paper, in the order merged."""
    return [int(x) for x in rec.merged_ids.split(",") if x]


def _restore_fields(paper: Paper, data: dict[str, Any]) -> None:
    for f in _PAPER_FIELDS:
        if f in ("id", "created_at", "updated_at"):
            continue
        setattr(paper, f, data[f])
    paper.created_at = datetime.fromisoformat(data["created_at"])
    paper.updated_at = datetime.fromisoformat(data["updated_at"])


def _without_part(note: str, part: str) -> str:
    """``note`` less one copy of ``part`` (a note a merge appended), or ``note`` unchanged when
    that text is no longer there as it was written (the user edited it: their words stay)."""
    pieces = note.split(NOTE_SEPARATOR)
    for k in range(len(pieces) - 1, -1, -1):
        if pieces[k].strip() == part.strip():
            return NOTE_SEPARATOR.join(pieces[:k] + pieces[k + 1 :])
    return note


def _remove_sources(session: Session, keep: Paper, given: dict[str, Any]) -> None:
    mine = {(f, i) for f, i in given["sources"]}
    for src in list(keep.sources):
        if (src.file, src.index) in mine:
            keep.sources.remove(src)
            session.delete(src)


def _take_back(session: Session, keep: Paper, rec: MergeRecord, given: dict[str, Any]) -> None:
    """Take from ``keep`` what merge ``rec`` gave it; edits made since, and what other merges
    still in place gave it, stay."""
    _remove_sources(session, keep, given)
    if keep.note == given["note_after"]:
        keep.note = json.loads(rec.snapshot)["keep"]["note"]
    else:
        for part in given["note_parts"]:
            keep.note = _without_part(keep.note, part)
    # A value the merge set goes back unless another merge still in place would have set it too.
    still = [
        _contribution(json.loads(r.snapshot))
        for r in _records(session)
        if r.keep_id == keep.id and r.id != rec.id
    ]
    if given["starred"] and keep.starred and not any(c["starred"] for c in still):
        keep.starred = False
    if given["read"] and keep.read and not any(c["read"] for c in still):
        keep.read = False
    for field in ("user_title", "short_name"):
        if given[field] is not None and getattr(keep, field) == given[field]:
            setattr(keep, field, next((c[field] for c in still if c[field] is not None), None))


def _home_of(session: Session, paper_id: int) -> int | None:
    """The paper a merged-away paper now lives in (None if it is not merged away)."""
    for rec in _records(session):
        if str(paper_id) in rec.merged_ids.split(","):
            return rec.keep_id
    return None


def unmerge(session: Session, paper_id: int) -> list[int]:
    """Undo the latest merge that paper_id took part in; returns the ids brought back.

    The merged-away papers come back as they were; the kept paper loses only what that merge
    gave it (its sources, its part of a joined note, a star or title it brought), so notes,
    stars and titles set since stay, and other merges into the same paper stay whole: merges
    can be undone in any order.
    """
    rec = record_of(session, paper_id)
    if rec is None:
        raise DeskError(f"paper {paper_id} is not part of a merge that can be undone")
    return unmerge_record(session, rec)


def unmerge_record(session: Session, rec: MergeRecord, exact: bool = False) -> list[int]:
    """Undo one merge (unmerge's work, for a record already found); returns the ids brought back.

    ``exact`` (an undo of the step that made the merge: nothing since it is in place): the kept
    paper's fields go back to what they were before it where they are still as it left them,
    rather than losing only what it gave them (a record from an older desk has no "after").
    """
    snap = json.loads(rec.snapshot)
    found = load_papers(session, [rec.keep_id])
    if rec.keep_id not in found:
        home = _home_of(session, rec.keep_id)
        where = f"merged into paper {home}" if home is not None else "removed"
        raise DeskError(
            f"paper {rec.keep_id}, which paper {merged_away(rec)[0]} was merged into, has since been "
            f"{where}: unmerge {rec.keep_id} first"
        )
    keep = found[rec.keep_id]
    given = _contribution(snap)
    session.execute(delete(KeyAlias).where(KeyAlias.merge_id == rec.id))
    restored: list[int] = []
    for data in snap["others"]:
        other = Paper(id=data["id"])
        _restore_fields(other, data)
        other.rev = data["rev"] + 1  # re-indexed: index must not mistake it for the old entry
        session.add(other)
        session.flush()
        for s in data["sources"]:
            session.add(
                Source(
                    paper_id=other.id,
                    file=s["file"],
                    index=s["index"],
                    collection=s["collection"],
                    import_id=s["import_id"],
                )
            )
        session.execute(
            table_of(KeyAlias)
            .update()
            .where(KeyAlias.paper_id == rec.keep_id, KeyAlias.key.in_(data["aliases"]))
            .values(paper_id=other.id)
        )
        restored.append(other.id)
    for data in snap["others"]:
        for partner in data.get("distinct", []):
            lo, hi = sorted((data["id"], partner))
            if session.get(DistinctPair, (lo, hi)) is None and load_papers(session, [partner]):
                session.add(DistinctPair(a=lo, b=hi))
    if exact and "keep_after" in snap:
        _remove_sources(session, keep, given)
        set_kept_fields(keep, snap["keep_after"], snap["keep"])
    else:
        _take_back(session, keep, rec, given)
    carried.take_back(raw_connection(session), keep.id, given.get("meta"))
    keep.touch()
    session.delete(rec)
    session.flush()
    queue(session, [rec.keep_id, *restored])
    return restored


def mark_distinct(session: Session, a: int, b: int) -> None:
    """Remember that two papers are not duplicates."""
    if a == b:
        raise DeskError("a paper cannot be distinct from itself")
    require_papers(session, [a, b])
    lo, hi = sorted((a, b))
    if session.get(DistinctPair, (lo, hi)) is None:
        session.add(DistinctPair(a=lo, b=hi))


def distinct_pairs(session: Session) -> set[tuple[int, int]]:
    """Every pair a user said is not a duplicate."""
    return {(a, b) for a, b in session.execute(select(DistinctPair.a, DistinctPair.b))}


def unmark_distinct(session: Session, a: int, b: int) -> None:
    """Take back "not a duplicate" for two papers: they can be offered again."""
    lo, hi = sorted((a, b))
    pair = session.get(DistinctPair, (lo, hi))
    if pair is None:
        raise DeskError(f"papers {lo} and {hi} were not marked as distinct")
    session.delete(pair)
