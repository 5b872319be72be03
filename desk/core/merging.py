"""Duplicate policy: merge papers into one (undoably) and remember "not a duplicate"."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from desk.core.db import DistinctPair, KeyAlias, MergeRecord, Paper, Source
from desk.core.db.models import table_of
from desk.core.db.queries import require_papers
from desk.core.errors import DeskError
from desk.core.index_sync import queue

NOTE_SEPARATOR = "\n\n---\n\n"
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


def merged_note(notes: Sequence[str]) -> str:
    """The notes of merged papers, kept in order, joined by a separator, without repeats."""
    kept: list[str] = []
    for note in notes:
        if note.strip() and note.strip() not in (k.strip() for k in kept):
            kept.append(note.strip("\n"))
    return NOTE_SEPARATOR.join(kept)


def merge(session: Session, keep_id: int, other_ids: Sequence[int]) -> int:
    """Fold other papers into keep: sources kept, star/read OR-ed, notes joined, keep's title kept."""
    others = list(dict.fromkeys(i for i in other_ids if i != keep_id))
    if not others:
        raise DeskError("name at least one other paper to merge into the kept one")
    papers = require_papers(session, [keep_id, *others])
    keep = papers[keep_id]
    merged = [_snapshot(papers[i]) for i in others]
    for data in merged:
        data["aliases"] = list(session.scalars(select(KeyAlias.key).where(KeyAlias.paper_id == data["id"])))
    snapshot = {"keep": _snapshot(keep), "others": merged}
    record = MergeRecord(
        keep_id=keep_id, merged_ids=",".join(map(str, others)), snapshot=json.dumps(snapshot)
    )
    session.add(record)
    session.flush()
    taken = {(s.file, s.index) for s in keep.sources}
    notes = [keep.note]
    for oid in others:
        other = papers[oid]
        keep.starred = keep.starred or other.starred
        keep.read = keep.read or other.read
        keep.user_title = keep.user_title or other.user_title
        keep.short_name = keep.short_name or other.short_name
        notes.append(other.note)
        for src in list(other.sources):
            if (src.file, src.index) in taken:
                continue
            taken.add((src.file, src.index))
            session.add(
                Source(
                    paper_id=keep_id,
                    file=src.file,
                    index=src.index,
                    collection=src.collection,
                    import_id=src.import_id,
                )
            )
        session.execute(table_of(KeyAlias).update().where(KeyAlias.paper_id == oid).values(paper_id=keep_id))
        session.add(KeyAlias(key=other.key, paper_id=keep_id, merge_id=record.id))
        session.delete(other)
    keep.note = merged_note(notes)
    keep.touch()
    session.flush()
    queue(session, [keep_id, *others])
    return record.id


def _record_for(session: Session, paper_id: int) -> MergeRecord:
    records = session.scalars(select(MergeRecord).order_by(MergeRecord.id.desc())).all()
    for rec in records:
        if rec.keep_id == paper_id or str(paper_id) in rec.merged_ids.split(","):
            return rec
    raise DeskError(f"paper {paper_id} is not part of a merge that can be undone")


def _restore_fields(paper: Paper, data: dict[str, Any]) -> None:
    for f in _PAPER_FIELDS:
        if f in ("id", "created_at", "updated_at"):
            continue
        setattr(paper, f, data[f])
    paper.created_at = datetime.fromisoformat(data["created_at"])
    paper.updated_at = datetime.fromisoformat(data["updated_at"])


def unmerge(session: Session, paper_id: int) -> list[int]:
    """Undo the latest merge that paper_id took part in; returns the ids brought back."""
    rec = _record_for(session, paper_id)
    snap = json.loads(rec.snapshot)
    keep = require_papers(session, [rec.keep_id])[rec.keep_id]
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
    keep_sources = {(s["file"], s["index"]) for s in snap["keep"]["sources"]}
    for src in list(keep.sources):
        if (src.file, src.index) not in keep_sources:
            session.delete(src)
    rev = keep.rev
    _restore_fields(keep, snap["keep"])
    keep.rev = rev + 1
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
