"""The SQL of every small edit and of the undo step it records: the one write path for them.

The window's ``Library`` and the command line's light writer (``QuickLibrary.open(write=True)``,
which opens no ORM) both run these functions on a plain ``sqlite3`` connection inside their own
transaction, so a star, a reading state, a note, a title or a tag is written, labelled and
recorded for undo in exactly one way. Nothing here imports SQLAlchemy, Whoosh or numpy: a
`desk star` process loads this module and the standard library.

A change is ``[paper_id, field, before, after]`` (fields) or ``[paper_id, tag_name, added]``
(tags); a step's payload is ``{"changes": [...]}``, read back by ``desk.core.edits.undo``.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from desk.core.runtime.errors import PaperNotFound
from desk.core.store.limits import IDS_PER_STATEMENT
from desk.core.text.tag_names import normalize_name, tag_key

KEEP = 1000  # undo steps kept; the oldest are forgotten beyond this
FLAGS = ("starred", "read")  # answered by the database at query time: no re-indexing
TEXTS = ("note", "user_title")  # indexed text: the paper's revision bumped, queued for the index
FIELDS = FLAGS + TEXTS
Change = list[Any]


@dataclass(frozen=True)
class TagEdit:
    """What a tag edit did: the tag's name as shown, whether it added, the papers it changed."""

    name: str
    added: bool
    changed: tuple[int, ...]
    places: dict[int, int]  # each changed paper's place in the tag's order (an undo puts it back)


def now() -> str:
    """Now in UTC, as SQLAlchemy's SQLite DateTime stores it (``desk.core.store.models.utcnow``)."""
    return datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S.%f")


def _chunks(ids: Sequence[int]) -> list[list[int]]:
    return [list(ids[k : k + IDS_PER_STATEMENT]) for k in range(0, len(ids), IDS_PER_STATEMENT)]


def _marks(chunk: Sequence[object]) -> str:
    return ",".join("?" * len(chunk))


def require(conn: sqlite3.Connection, ids: Sequence[int]) -> None:
    """PaperNotFound for the first id with no paper, before anything changes."""
    found: set[int] = set()
    for chunk in _chunks(ids):
        found.update(r[0] for r in conn.execute(f"SELECT id FROM paper WHERE id IN ({_marks(chunk)})", chunk))
    for i in ids:
        if i not in found:
            raise PaperNotFound(i)


def record_step(
    conn: sqlite3.Connection, kind: str, label: str, payload: dict[str, Any], group: str | None = None
) -> int:
    """Add an undo step (forgetting what could be redone, and now and then the oldest); its id."""
    conn.execute("DELETE FROM history_step WHERE history_step.undone = 1")
    stamp = now()
    cur = conn.execute(
        "INSERT INTO history_step (kind, label, payload, undone, group_key, created_at, updated_at)"
        " VALUES (?, ?, ?, 0, ?, ?, ?)",
        (kind, label, json.dumps(payload), group, stamp, stamp),
    )
    step = int(cur.lastrowid or 0)
    if step % 100 == 0:
        conn.execute("DELETE FROM history_step WHERE history_step.id <= ?", (step - KEEP,))
    return step


def label(field: str, value: object, count: int, paper_id: int) -> str:
    """A field step's words: "Star 5 papers", "Mark paper 12 read", "Edit the note of paper 12"."""
    what = f"{count} papers" if count != 1 else f"paper {paper_id}"
    if field == "starred":
        return f"{'Star' if value else 'Unstar'} {what}"
    if field == "read":
        return f"Mark {what} {'read' if value else 'unread'}"
    if field == "note":
        return f"Edit the note of {what}"
    return f"Retitle {what}"


def tag_label(name: str, added: bool, changed: Sequence[int]) -> str:
    """A tag step's words: "Tag 3 papers “reading group”", "Untag paper 7 “x”"."""
    what = f"{len(changed)} papers" if len(changed) != 1 else f"paper {changed[0]}"
    return f"{'Tag' if added else 'Untag'} {what} “{name}”"


def field_step(changes: Sequence[Change], field: str, value: object) -> tuple[str, str, dict[str, Any]]:
    """The undo step of field changes: (kind, label, payload), for ``record_step``."""
    return "fields", label(field, value, len(changes), changes[0][0]), {"changes": list(changes)}


def tag_step(edit: TagEdit) -> tuple[str, str, dict[str, Any]]:
    """The undo step of a tag edit that changed papers: (kind, label, payload)."""
    changes = [[i, edit.name, edit.added, edit.places[i]] for i in edit.changed]
    return "tags", tag_label(edit.name, edit.added, edit.changed), {"changes": changes}


def set_flags(conn: sqlite3.Connection, ids: Sequence[int], field: str, value: bool) -> list[Change]:
    """Set the star or the reading state; the changes made (papers already so are left).

    Raises PaperNotFound for an id that does not exist, before anything changes.
    """
    if field not in FLAGS:
        raise ValueError(f"{field} is not a flag")
    wanted = list(dict.fromkeys(ids))
    current: dict[int, bool] = {}
    for chunk in _chunks(wanted):
        sql = f"SELECT id, {field} FROM paper WHERE id IN ({_marks(chunk)})"
        current.update((i, bool(v)) for i, v in conn.execute(sql, chunk))
    for i in wanted:
        if i not in current:
            raise PaperNotFound(i)
    changed = [i for i in wanted if current[i] != value]
    stamp = now()
    for chunk in _chunks(changed):
        sql = f"UPDATE paper SET {field}=?, updated_at=? WHERE paper.id IN ({_marks(chunk)})"
        conn.execute(sql, [int(value), stamp, *chunk])
    return [[i, field, not value, value] for i in changed]


def set_texts(conn: sqlite3.Connection, ids: Sequence[int], field: str, value: str | None) -> list[Change]:
    """Set a note or a title: the revision bumped and the paper queued for the index; the changes.

    Raises PaperNotFound for an id that does not exist, before anything changes.
    """
    if field not in TEXTS:
        raise ValueError(f"{field} is not a text field")
    wanted = list(dict.fromkeys(ids))
    before: dict[int, str | None] = {}
    for chunk in _chunks(wanted):
        sql = f"SELECT id, {field} FROM paper WHERE id IN ({_marks(chunk)})"
        before.update(conn.execute(sql, chunk))
    for i in wanted:
        if i not in before:
            raise PaperNotFound(i)
    changes: list[Change] = [[i, field, before[i], value] for i in wanted if before[i] != value]
    stamp = now()
    for paper_id, *_ in changes:
        sql = f"UPDATE paper SET {field}=?, rev=coalesce(rev, 0) + 1, updated_at=? WHERE paper.id = ?"
        conn.execute(sql, (value, stamp, paper_id))
    queue_for_index(conn, [c[0] for c in changes])
    return changes


def queue_for_index(conn: sqlite3.Connection, ids: Sequence[int]) -> None:
    """Mark papers for re-indexing, inside the caller's transaction."""
    conn.executemany(
        "INSERT INTO index_queue (paper_id) VALUES (?) ON CONFLICT DO NOTHING", [(i,) for i in ids]
    )


def _carrying(conn: sqlite3.Connection, tag_id: int, ids: Sequence[int]) -> dict[int, int]:
    """The papers carrying the tag, each with its place in the tag's order."""
    found: dict[int, int] = {}
    for chunk in _chunks(ids):
        sql = f"SELECT paper_id, position FROM paper_tag WHERE tag_id = ? AND paper_id IN ({_marks(chunk)})"
        found.update((r[0], r[1]) for r in conn.execute(sql, [tag_id, *chunk]))
    return found


def _tag_row(conn: sqlite3.Connection, name: str) -> tuple[int, str] | None:
    row = conn.execute('SELECT id, name FROM tag WHERE tag."key" = ?', (tag_key(name),)).fetchone()
    return None if row is None else (int(row[0]), str(row[1]))


def _made_tag(conn: sqlite3.Connection, name: str) -> tuple[int, str]:
    """The tag with this name (any case), made when new."""
    row = _tag_row(conn, name)
    if row is None:
        shown = normalize_name(name)
        sql = 'INSERT INTO tag (name, "key", created_at) VALUES (?, ?, ?)'
        cur = conn.execute(sql, (shown, tag_key(name), now()))
        row = (int(cur.lastrowid or 0), shown)
    return row


def places(conn: sqlite3.Connection, ids: Sequence[int], name: str) -> dict[int, int]:
    """Each paper's place in the tag's order (papers without the tag left out)."""
    row = _tag_row(conn, name)
    return {} if row is None else _carrying(conn, row[0], list(ids))


def put_tag_back(conn: sqlite3.Connection, name: str, placed: Sequence[tuple[int, int | None]]) -> list[int]:
    """Give papers a tag again, each at the place it had in the tag's order, or last when that
    place is taken since or unknown; returns those that did not have it (undo's half of set_tag).

    Raises PaperNotFound for an id that does not exist (nothing changes).
    """
    wanted = list(dict.fromkeys(i for i, _ in placed))
    require(conn, wanted)
    tag_id, _shown = _made_tag(conn, name)
    have = set(_carrying(conn, tag_id, wanted))
    taken = {r[0] for r in conn.execute("SELECT position FROM paper_tag WHERE tag_id = ?", (tag_id,))}
    last = max(taken, default=0)
    rows: list[tuple[int, int, int, str]] = []
    stamp = now()
    for paper_id, position in placed:
        if paper_id in have:
            continue
        have.add(paper_id)
        if position is None or position in taken:
            last += 1
            position = last
        taken.add(position)
        last = max(last, position)
        rows.append((paper_id, tag_id, position, stamp))
    conn.executemany(
        "INSERT INTO paper_tag (paper_id, tag_id, position, added_at) VALUES (?, ?, ?, ?)"
        " ON CONFLICT DO NOTHING",
        rows,
    )
    return [r[0] for r in rows]


def set_tag(conn: sqlite3.Connection, ids: Sequence[int], name: str, add: bool | None) -> TagEdit:
    """Give papers a tag (made when new) or take it off (``add`` None: a toggle, off when every
    one of them has it, else on for all), recorded as one undo step when anything changed.

    Raises DeskError for an empty name, PaperNotFound for an unknown id (nothing changes).
    """
    tag_key(name)  # DeskError for an empty name, before anything is read
    row = _tag_row(conn, name)
    shown: str = row[1] if row is not None else normalize_name(name)
    wanted = list(dict.fromkeys(ids))
    if add is None:
        add = not (row is not None and bool(wanted) and set(_carrying(conn, row[0], wanted)) == set(wanted))
    places: dict[int, int] = {}
    if add:
        require(conn, wanted)
        row = _made_tag(conn, name)
        have = _carrying(conn, row[0], wanted)
        done = [i for i in wanted if i not in have]
        if done:
            sql = "SELECT max(position) FROM paper_tag WHERE tag_id = ?"
            last = conn.execute(sql, (row[0],)).fetchone()[0]
            start, added = (last or 0) + 1, now()
            places = {i: start + n for n, i in enumerate(done)}
            conn.executemany(
                "INSERT INTO paper_tag (paper_id, tag_id, position, added_at) VALUES (?, ?, ?, ?)"
                " ON CONFLICT DO NOTHING",
                [(i, row[0], places[i], added) for i in done],
            )
    elif row is None:
        done = []
    else:
        places = _carrying(conn, row[0], wanted)  # where each was: an undo puts it back there
        done = [i for i in wanted if i in places]
        for chunk in _chunks(done):
            where = f"paper_tag.tag_id = ? AND paper_tag.paper_id IN ({_marks(chunk)})"
            sql = f"DELETE FROM paper_tag WHERE {where}"
            conn.execute(sql, [row[0], *chunk])
    return TagEdit(shown, add, tuple(done), {i: places[i] for i in done})
