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

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from desk.core.edits import statements
from desk.core.runtime.errors import DeskError
from desk.core.store import PaperTag, Tag
from desk.core.store.limits import IDS_PER_STATEMENT
from desk.core.store.queries import raw_connection
from desk.core.text.tag_names import tag_key


def find(session: Session, name: str) -> Tag | None:
    """The tag with this name (any case), or None."""
    return session.scalar(select(Tag).where(Tag.key == tag_key(name)))


def add(session: Session, ids: Sequence[int], name: str) -> list[int]:
    """Give papers the tag (created when new); returns those that did not have it, in order given.

    Raises PaperNotFound for an id that does not exist (nothing changes).
    """
    return list(statements.set_tag(raw_connection(session), ids, name, True).changed)


def remove(session: Session, ids: Sequence[int], name: str) -> list[int]:
    """Take the tag off papers; returns those that had it. Unknown tags and ids change nothing."""
    return list(statements.set_tag(raw_connection(session), ids, name, False).changed)


def all_carry(session: Session, ids: Sequence[int], name: str) -> bool:
    """True when every one of the papers already carries the tag (a toggle then removes it)."""
    wanted = list(dict.fromkeys(ids))
    return bool(wanted) and set(places(session, wanted, name)) == set(wanted)


def placed(session: Session, ids: Iterable[int]) -> dict[int, list[list[object]]]:
    """Each paper's tags with its place in each: ``[name, position]``, in the order the tags were
    created (papers without tags left out); ``put_back`` gives a paper them again where it was."""
    wanted = list(ids)
    out: dict[int, list[list[object]]] = {}
    for start in range(0, len(wanted), IDS_PER_STATEMENT):
        stmt = (
            select(PaperTag.paper_id, Tag.name, PaperTag.position)
            .join(Tag, Tag.id == PaperTag.tag_id)
            .where(PaperTag.paper_id.in_(wanted[start : start + IDS_PER_STATEMENT]))
            .order_by(Tag.id)
        )
        for paper_id, name, position in session.execute(stmt):
            out.setdefault(paper_id, []).append([name, position])
    return out


def places(session: Session, ids: Sequence[int], name: str) -> dict[int, int]:
    """Each paper's place in the tag's order (papers without the tag left out)."""
    return statements.places(raw_connection(session), ids, name)


def put_back(session: Session, name: str, placed: Sequence[tuple[int, int | None]]) -> list[int]:
    """Give papers a tag again, each at the place it had in the tag's order (a reading list keeps
    its order), or last when that place is taken since or unknown; returns those that did not
    have it. Raises PaperNotFound for an id that does not exist (nothing changes)."""
    return statements.put_tag_back(raw_connection(session), name, placed)


def tags_of(session: Session, ids: Iterable[int]) -> dict[int, tuple[str, ...]]:
    """Each paper's tags, in the order the tags were created (papers without tags left out)."""
    wanted = list(ids)
    out: dict[int, list[str]] = {}
    for start in range(0, len(wanted), IDS_PER_STATEMENT):
        stmt = (
            select(PaperTag.paper_id, Tag.name)
            .join(Tag, Tag.id == PaperTag.tag_id)
            .where(PaperTag.paper_id.in_(wanted[start : start + IDS_PER_STATEMENT]))
            .order_by(Tag.id)
        )
        for paper_id, name in session.execute(stmt):
            out.setdefault(paper_id, []).append(name)
    return {i: tuple(names) for i, names in out.items()}


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
