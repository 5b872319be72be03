"""Tags (and reading lists, which are tags with an order): names, adding, removing, counting.

A tag's name is what the user typed, NFC-normalised with its spaces collapsed; two names that
differ only in case are one tag (``key`` is the casefolded name), shown as first typed. Every
tag keeps its papers in an order (``PaperTag.position``, the order they were tagged): read that
way, a tag is a reading list. Tags live only in the database: the search index does not hold
them, so ``tag:`` filters read the database at query time and a tag change is searchable the
moment it is committed (see ``desk.core.search.query.TagFilter``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from sqlalchemy import delete, func, select, update
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.orm import Session

from desk.core.db import Paper, PaperTag, Tag
from desk.core.db.queries import CHUNK
from desk.core.errors import DeskError, PaperNotFound
from desk.core.records import TagCount
from desk.core.tag_names import normalize_name, tag_key


def find(session: Session, name: str) -> Tag | None:
    """The tag with this name (any case), or None."""
    return session.scalar(select(Tag).where(Tag.key == tag_key(name)))


def _get_or_create(session: Session, name: str) -> Tag:
    tag = find(session, name)
    if tag is None:
        tag = Tag(name=normalize_name(name), key=tag_key(name))
        session.add(tag)
        session.flush()
    return tag


def _carrying(session: Session, tag_id: int, ids: Sequence[int]) -> set[int]:
    found: set[int] = set()
    for start in range(0, len(ids), CHUNK):
        chunk = ids[start : start + CHUNK]
        stmt = select(PaperTag.paper_id).where(PaperTag.tag_id == tag_id, PaperTag.paper_id.in_(chunk))
        found.update(session.scalars(stmt))
    return found


def _require(session: Session, ids: Sequence[int]) -> None:
    """PaperNotFound for the first id with no paper (ids only: no paper is loaded)."""
    found: set[int] = set()
    for start in range(0, len(ids), CHUNK):
        found.update(session.scalars(select(Paper.id).where(Paper.id.in_(ids[start : start + CHUNK]))))
    for i in ids:
        if i not in found:
            raise PaperNotFound(i)


def add(session: Session, ids: Sequence[int], name: str) -> list[int]:
    """Give papers the tag (created when new); returns those that did not have it, in order given.

    Raises PaperNotFound for an id that does not exist (nothing changes).
    """
    wanted = list(dict.fromkeys(ids))
    _require(session, wanted)
    tag = _get_or_create(session, name)
    have = _carrying(session, tag.id, wanted)
    new = [i for i in wanted if i not in have]
    if new:
        last = session.scalar(select(func.max(PaperTag.position)).where(PaperTag.tag_id == tag.id))
        start = (last or 0) + 1
        rows = [{"paper_id": i, "tag_id": tag.id, "position": start + n} for n, i in enumerate(new)]
        session.execute(sqlite_insert(PaperTag).on_conflict_do_nothing(), rows)
    return new


def remove(session: Session, ids: Sequence[int], name: str) -> list[int]:
    """Take the tag off papers; returns those that had it. Unknown tags and ids change nothing."""
    tag = find(session, name)
    if tag is None:
        return []
    wanted = list(dict.fromkeys(ids))
    had = _carrying(session, tag.id, wanted)
    gone = [i for i in wanted if i in had]
    for start in range(0, len(gone), CHUNK):
        chunk = gone[start : start + CHUNK]
        session.execute(delete(PaperTag).where(PaperTag.tag_id == tag.id, PaperTag.paper_id.in_(chunk)))
    return gone


def all_carry(session: Session, ids: Sequence[int], name: str) -> bool:
    """True when every one of the papers already carries the tag (a toggle then removes it)."""
    tag = find(session, name)
    wanted = list(dict.fromkeys(ids))
    return tag is not None and bool(wanted) and _carrying(session, tag.id, wanted) == set(wanted)


def placed(session: Session, ids: Iterable[int]) -> dict[int, list[list[object]]]:
    """Each paper's tags with its place in each: ``[name, position]``, in the order the tags were
    created (papers without tags left out); ``put_back`` gives a paper them again where it was."""
    wanted = list(ids)
    out: dict[int, list[list[object]]] = {}
    for start in range(0, len(wanted), CHUNK):
        stmt = (
            select(PaperTag.paper_id, Tag.name, PaperTag.position)
            .join(Tag, Tag.id == PaperTag.tag_id)
            .where(PaperTag.paper_id.in_(wanted[start : start + CHUNK]))
            .order_by(Tag.id)
        )
        for paper_id, name, position in session.execute(stmt):
            out.setdefault(paper_id, []).append([name, position])
    return out


def places(session: Session, ids: Sequence[int], name: str) -> dict[int, int]:
    """Each paper's place in the tag's order (papers without the tag left out)."""
    tag = find(session, name)
    if tag is None:
        return {}
    found: dict[int, int] = {}
    wanted = list(ids)
    for start in range(0, len(wanted), CHUNK):
        stmt = select(PaperTag.paper_id, PaperTag.position).where(
            PaperTag.tag_id == tag.id, PaperTag.paper_id.in_(wanted[start : start + CHUNK])
        )
        found.update((i, p) for i, p in session.execute(stmt))
    return found


def put_back(session: Session, name: str, placed: Sequence[tuple[int, int | None]]) -> list[int]:
    """Give papers a tag again, each at the place it had in the tag's order (a reading list keeps
    its order), or last when that place is taken since or unknown; returns those that did not
    have it. Raises PaperNotFound for an id that does not exist (nothing changes)."""
    wanted = list(dict.fromkeys(i for i, _ in placed))
    _require(session, wanted)
    tag = _get_or_create(session, name)
    have = _carrying(session, tag.id, wanted)
    taken = set(session.scalars(select(PaperTag.position).where(PaperTag.tag_id == tag.id)))
    last = max(taken, default=0)
    rows = []
    for paper_id, position in placed:
        if paper_id in have:
            continue
        have.add(paper_id)
        if position is None or position in taken:
            last += 1
            position = last
        taken.add(position)
        last = max(last, position)
        rows.append({"paper_id": paper_id, "tag_id": tag.id, "position": position})
    if rows:
        session.execute(sqlite_insert(PaperTag).on_conflict_do_nothing(), rows)
    return [r["paper_id"] for r in rows]


def display_name(session: Session, name: str) -> str:
    """The tag's name as first typed, or the normalised name when there is no such tag yet."""
    tag = find(session, name)
    return tag.name if tag is not None else normalize_name(name)


def tags_of(session: Session, ids: Iterable[int]) -> dict[int, tuple[str, ...]]:
    """Each paper's tags, in the order the tags were created (papers without tags left out)."""
    wanted = list(ids)
    out: dict[int, list[str]] = {}
    for start in range(0, len(wanted), CHUNK):
        stmt = (
            select(PaperTag.paper_id, Tag.name)
            .join(Tag, Tag.id == PaperTag.tag_id)
            .where(PaperTag.paper_id.in_(wanted[start : start + CHUNK]))
            .order_by(Tag.id)
        )
        for paper_id, name in session.execute(stmt):
            out.setdefault(paper_id, []).append(name)
    return {i: tuple(names) for i, names in out.items()}


def counts(session: Session) -> list[TagCount]:
    """Every tag some paper carries, with how many, in the order the tags were created.

    A tag left on no paper is not listed (it comes back with its first paper). The order is
    stable as tags are added, so "the first nine tags" (keys 1–9) do not shift.
    """
    stmt = (
        select(Tag.name, func.count(PaperTag.paper_id))
        .join(PaperTag, PaperTag.tag_id == Tag.id)
        .group_by(Tag.id)
        .order_by(Tag.id)
    )
    return [TagCount(name, n) for name, n in session.execute(stmt)]


def paper_ids(session: Session, name: str | None) -> list[int]:
    """Ids of the papers carrying the tag in its order (None: carrying any tag, by id)."""
    raw = session.connection().connection.driver_connection  # one fetchall at C speed
    assert raw is not None
    if name is None:
        rows = raw.execute("SELECT DISTINCT paper_id FROM paper_tag ORDER BY paper_id").fetchall()
        return [r[0] for r in rows]
    try:
        key = tag_key(name)
    except DeskError:
        return []
    rows = raw.execute(
        "SELECT pt.paper_id FROM paper_tag pt JOIN tag t ON t.id = pt.tag_id WHERE t.key = ?"
        " ORDER BY pt.position",
        (key,),
    ).fetchall()
    return [r[0] for r in rows]


def reorder(session: Session, name: str, ordered_ids: Sequence[int]) -> None:
    """Put a tag's papers in the given order (a reading list); papers not named keep theirs after."""
    tag = find(session, name)
    if tag is None:
        raise DeskError(f"no tag is called “{name}”")
    current = paper_ids(session, tag.name)
    first = [i for i in dict.fromkeys(ordered_ids) if i in set(current)]
    rest = [i for i in current if i not in set(first)]
    for position, paper_id in enumerate([*first, *rest], start=1):
        session.execute(
            update(PaperTag)
            .where(PaperTag.tag_id == tag.id, PaperTag.paper_id == paper_id)
            .values(position=position)
        )
