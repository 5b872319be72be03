"""The trash: removed papers and lists, kept whole so they can be put back, until emptied.

A removed paper leaves the ``paper`` table (so searches, lists, counts and near-duplicates
never see it) and a ``TrashEntry`` keeps everything about it as JSON: its fields, sources, tags,
the keys of papers merged into it and its "not a duplicate" pairs. Its id is never reused
(``sqlite_autoincrement``), so it comes back under the same id.

Removing a list (one imported file, or every file of a collection) trashes the papers only
that list held; papers also in another list stay and lose that list's sources (kept in the
``RemovedList`` row). The file's ``import_record`` stays too, with its hash put aside, so the
same file can be imported again. A paper imported again while its old copy is in the trash
takes that copy's star, reading state, note, title and tags when the copy is restored: the
two are one paper, and nothing the user wrote is lost.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import delete, func, or_, select, text
from sqlalchemy.orm import Session

from desk.core.edits import tags
from desk.core.edits.merging import merged_note
from desk.core.records.detail import TrashedPaper
from desk.core.records.page import PaperSummary, SourceInfo
from desk.core.runtime.errors import DeskError
from desk.core.search.index_sync import queue
from desk.core.store import (
    DistinctPair,
    ImportRecord,
    KeyAlias,
    MergeRecord,
    Paper,
    RemovedList,
    Source,
    TrashEntry,
)
from desk.core.store.queries import load_papers, require_papers

_FIELDS = (
    "id", "key", "abstract_raw", "abstract", "derived_title", "user_title", "short_name",
    "starred", "read", "note", "rev",
)  # fmt: skip
REMOVED_PREFIX = "removed:"


def _snapshot(session: Session, paper: Paper) -> dict[str, Any]:
    data: dict[str, Any] = {f: getattr(paper, f) for f in _FIELDS}
    data["created_at"] = paper.created_at.isoformat()
    data["updated_at"] = paper.updated_at.isoformat()
    data["sources"] = [[s.file, s.index, s.collection, s.import_id] for s in paper.sources]
    data["tags"] = list(tags.tags_of(session, [paper.id]).get(paper.id, ()))
    aliases = session.execute(select(KeyAlias.key, KeyAlias.merge_id).where(KeyAlias.paper_id == paper.id))
    data["aliases"] = [[k, m] for k, m in aliases]
    pairs = session.execute(
        select(DistinctPair.a, DistinctPair.b).where(
            or_(DistinctPair.a == paper.id, DistinctPair.b == paper.id)
        )
    )
    data["distinct"] = [b if a == paper.id else a for a, b in pairs]
    return data


def trash_papers(session: Session, ids: Sequence[int], list_id: int | None = None) -> list[int]:
    """Move papers to the trash (raises PaperNotFound first); returns the new entries' ids."""
    wanted = list(dict.fromkeys(ids))
    papers = require_papers(session, wanted)
    entries: list[int] = []
    for i in wanted:
        paper = papers[i]
        entry = TrashEntry(
            paper_id=i,
            title=paper.title,
            has_note=bool(paper.note.strip()),
            snapshot=json.dumps(_snapshot(session, paper)),
            list_id=list_id,
        )
        session.add(entry)
        session.flush()
        entries.append(entry.id)
        session.delete(paper)  # sources, tags, aliases and pairs go with it (ON DELETE CASCADE)
    session.flush()
    queue(session, wanted)  # the index drops them at its next flush
    return entries


def _live_holder(session: Session, key: str) -> Paper | None:
    """The paper that holds a duplicate key now (imported again since), if any."""
    found = session.scalar(select(Paper).where(Paper.key == key))
    if found is None:
        alias = session.get(KeyAlias, key)
        found = session.get(Paper, alias.paper_id) if alias is not None else None
    return found


def _add_sources(session: Session, paper: Paper, sources: list[list[Any]]) -> None:
    have = {(s.file, s.index) for s in paper.sources}
    for file, index, collection, import_id in sources:
        if (file, index) not in have and session.get(ImportRecord, import_id) is not None:
            have.add((file, index))
            session.add(
                Source(paper_id=paper.id, file=file, index=index, collection=collection, import_id=import_id)
            )


def _put_back(session: Session, data: dict[str, Any]) -> int:
    """Re-create a trashed paper (or fold it into the paper holding its text now); returns its id."""
    holder = _live_holder(session, data["key"])
    if holder is not None:  # imported again meanwhile: one paper, keeping what the user set
        holder.starred = holder.starred or data["starred"]
        holder.read = holder.read or data["read"]
        holder.note = merged_note([holder.note, data["note"]])
        holder.user_title = holder.user_title or data["user_title"]
        paper = holder
    else:
        paper = Paper(**{f: data[f] for f in _FIELDS if f != "rev"})
        paper.created_at = datetime.fromisoformat(data["created_at"])
        paper.updated_at = datetime.fromisoformat(data["updated_at"])
        session.add(paper)
        paper.rev = data["rev"]
    paper.touch()  # a new revision: the index must not mistake it for an entry it dropped
    session.flush()
    _add_sources(session, paper, data["sources"])
    for name in data["tags"]:
        tags.add(session, [paper.id], name)
    for key, merge_id in data["aliases"]:
        if _live_holder(session, key) is None and session.get(MergeRecord, merge_id) is not None:
            session.add(KeyAlias(key=key, paper_id=paper.id, merge_id=merge_id))
    for other in data["distinct"]:
        lo, hi = sorted((paper.id, other))
        if lo != hi and session.get(DistinctPair, (lo, hi)) is None and load_papers(session, [other]):
            session.add(DistinctPair(a=lo, b=hi))
    session.flush()
    return paper.id


def restore_entries(session: Session, entry_ids: Sequence[int]) -> list[int]:
    """Put trash entries back (those still in the trash); returns the papers' ids, in order."""
    restored: list[int] = []
    for entry_id in entry_ids:
        entry = session.get(TrashEntry, entry_id)
        if entry is None:
            continue  # restored already, or the trash was emptied
        restored.append(_put_back(session, json.loads(entry.snapshot)))
        session.delete(entry)
    session.flush()
    queue(session, restored)
    return list(dict.fromkeys(restored))


def entries_of(session: Session, paper_ids: Sequence[int], strict: bool = True) -> list[int]:
    """The newest trash entry of each paper id; one not in the trash raises DeskError, or is left out."""
    found: list[int] = []
    for paper_id in dict.fromkeys(paper_ids):
        entry_id = session.scalar(select(func.max(TrashEntry.id)).where(TrashEntry.paper_id == paper_id))
        if entry_id is None and strict:
            raise DeskError(f"paper {paper_id} is not in the trash")
        if entry_id is not None:
            found.append(entry_id)
    return found


def _summary(entry: TrashEntry, data: dict[str, Any]) -> PaperSummary:
    return PaperSummary(
        id=entry.paper_id,
        title=entry.title,
        short_name=data.get("short_name"),
        starred=bool(data.get("starred")),
        read=bool(data.get("read")),
        has_note=entry.has_note,
        sources=tuple(SourceInfo(f, i, c) for f, i, c, _ in data.get("sources", [])),
        tags=tuple(data.get("tags", ())),
    )


def listed(session: Session) -> list[TrashedPaper]:
    """What the trash holds, the latest removed first."""
    rows = session.execute(
        select(TrashEntry, RemovedList.file)
        .outerjoin(RemovedList, RemovedList.id == TrashEntry.list_id)
        .order_by(TrashEntry.id.desc())
    )
    return [TrashedPaper(_summary(e, json.loads(e.snapshot)), e.removed_at, file) for e, file in rows]


# ---- whole lists --------------------------------------------------------------------------------


def records_named(session: Session, target: str) -> list[ImportRecord]:
    """The imported files (not removed) a FILE or COLLECTION name names; DeskError when none."""
    stmt = select(ImportRecord).where(
        or_(ImportRecord.file == target, ImportRecord.collection == target),
        ImportRecord.sha256.not_like(f"{REMOVED_PREFIX}%"),
    )
    found = list(session.scalars(stmt.order_by(ImportRecord.id)))
    if not found:
        raise DeskError(f"no imported list is called “{target}” (give a file's name or a collection)")
    return found


def list_papers(session: Session, records: Sequence[ImportRecord]) -> tuple[list[int], list[int]]:
    """(papers only these lists hold, papers that also have a source elsewhere)."""
    import_ids = [r.id for r in records]
    held = set(session.scalars(select(Source.paper_id).where(Source.import_id.in_(import_ids))))
    elsewhere = set(
        session.scalars(
            select(Source.paper_id).where(Source.paper_id.in_(held), Source.import_id.not_in(import_ids))
        )
    )
    return sorted(held - elsewhere), sorted(held & elsewhere)


def remove_lists(session: Session, records: Sequence[ImportRecord]) -> tuple[list[int], list[int], list[int]]:
    """Remove imported files: (removed-list ids, trash entry ids, papers kept that lost a source)."""
    gone, kept = list_papers(session, records)
    list_ids: list[int] = []
    entries: list[int] = []
    for record in records:
        rows = session.execute(
            select(Source.paper_id, Source.file, Source.index, Source.collection).where(
                Source.import_id == record.id, Source.paper_id.in_(kept)
            )
        )
        sources = [list(r) for r in rows]
        removed = RemovedList(
            import_id=record.id,
            sha256=record.sha256,
            file=record.file,
            collection=record.collection,
            sources=json.dumps(sources),
        )
        session.add(removed)
        session.flush()
        record.sha256 = f"{REMOVED_PREFIX}{removed.id}:{record.sha256}"  # the same file imports again
        list_ids.append(removed.id)
        here = set(session.scalars(select(Source.paper_id).where(Source.import_id == record.id)))
        entries += trash_papers(session, sorted(here & set(gone)), removed.id)  # once: they leave the table
        session.execute(delete(Source).where(Source.import_id == record.id, Source.paper_id.in_(kept)))
    for paper in load_papers(session, kept).values():
        paper.touch()  # its collections changed
    queue(session, kept)
    return list_ids, entries, kept


def restore_list(session: Session, list_id: int) -> list[int]:
    """Put a removed list back: its papers, its sources on papers that stayed, its hash."""
    removed = session.get(RemovedList, list_id)
    if removed is None:
        return []
    entry_ids = list(session.scalars(select(TrashEntry.id).where(TrashEntry.list_id == list_id)))
    restored = restore_entries(session, entry_ids)
    record = session.get(ImportRecord, removed.import_id)
    kept = json.loads(removed.sources)
    for paper in load_papers(session, [s[0] for s in kept]).values():
        _add_sources(session, paper, [[f, i, c, removed.import_id] for p, f, i, c in kept if p == paper.id])
        paper.touch()
        restored.append(paper.id)
    taken = session.scalar(select(ImportRecord.id).where(ImportRecord.sha256 == removed.sha256))
    if record is not None and taken is None:
        record.sha256 = removed.sha256  # not imported again since: re-importing it adds nothing again
    session.delete(removed)
    session.flush()
    queue(session, restored)
    return list(dict.fromkeys(restored))


def empty(session: Session) -> int:
    """Delete everything in the trash for good; returns how many papers went."""
    count = session.scalar(select(func.count(TrashEntry.id))) or 0
    session.execute(delete(TrashEntry))
    for removed in list(session.scalars(select(RemovedList))):
        import_id = removed.import_id
        session.delete(removed)
        session.flush()
        if session.scalar(select(Source.id).where(Source.import_id == import_id).limit(1)) is None:
            session.execute(delete(ImportRecord).where(ImportRecord.id == import_id))
    _forget_metadata(session)
    return count


def _forget_metadata(session: Session) -> None:
    """Delete the metadata of papers gone for good: neither in the library, nor in the trash, nor
    merged into another (an unmerge brings those back under their ids, finding theirs)."""
    records = session.scalars(select(MergeRecord.merged_ids))
    merged = [int(i) for ids in records for i in ids.split(",") if i]
    for table in ("paper_meta", "paper_author"):
        session.execute(
            text(
                f"DELETE FROM {table} WHERE paper_id NOT IN (SELECT id FROM paper)"
                " AND paper_id NOT IN (SELECT paper_id FROM trash_entry)"
                " AND paper_id NOT IN (SELECT value FROM json_each(:merged))"
            ),
            {"merged": json.dumps(merged)},
        )
