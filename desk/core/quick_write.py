"""One small write from the command line with plain ``sqlite3``: `desk star/read/tag/note/retitle`.

Opening the whole ``Library`` for a star costs the ORM's import and mapper set-up, Whoosh and
numpy: several times what the write itself takes. These edits touch nothing the search index
holds (the star, the reading state and tags are read from the database at query time:
``desk.core.live_filters``, ``tags``), so on a library whose index is stamped current
(``QuickLibrary.open(write=True)``: the schema version, the signed stamp, nothing queued) they
are done here, with the same statements, in one ``BEGIN IMMEDIATE`` transaction, and with the
same undo step ``history.record`` writes. The (id, rev) digest the stamp holds does not change,
so the index stays current and the next command is quick too.

The result is the Library's row for row (tests/core/test_quick_write.py compares the database
after each edit done both ways, and undoes the fast one through the Library); a note or a
title changes indexed text: it is queued as the Library queues it, committed, and then written to
the index by ``desk.core.quick_index.flush`` (IndexSync.flush's work without the ORM). Anything
else (a stale index, another schema version) goes through the Library.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from desk.core.errors import PaperNotFound
from desk.core.quick import CHUNK, QuickLibrary
from desk.core.tag_names import normalize_name, tag_key

if TYPE_CHECKING:  # made by set_tag alone (desk.core.records: a note makes none)
    from desk.core.records import TagChange

KEEP = 1000  # desk.core.history.KEEP: steps kept (checked by a test)
FLAGS = ("starred", "read")  # desk.core.edits.FLAGS
TEXTS = ("note", "user_title")  # the other fields of edits.FIELDS: indexed text


def now() -> str:
    """Now in UTC, as SQLAlchemy's SQLite DateTime stores it (desk.core.db.models.utcnow)."""
    return datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S.%f")


def _chunks(ids: Sequence[int]) -> list[list[int]]:
    return [list(ids[k : k + CHUNK]) for k in range(0, len(ids), CHUNK)]


def _marks(chunk: Sequence[object]) -> str:
    return ",".join("?" * len(chunk))


def _require(conn: sqlite3.Connection, ids: Sequence[int]) -> None:
    """PaperNotFound for the first id with no paper, before anything changes (tags._require)."""
    found: set[int] = set()
    for chunk in _chunks(ids):
        found.update(r[0] for r in conn.execute(f"SELECT id FROM paper WHERE id IN ({_marks(chunk)})", chunk))
    for i in ids:
        if i not in found:
            raise PaperNotFound(i)


def record(conn: sqlite3.Connection, kind: str, label: str, payload: dict[str, Any]) -> int:
    """An undo step, as ``history.record`` adds one outside a batch (forgetting what could be
    redone, and now and then the oldest steps); returns its id."""
    conn.execute("DELETE FROM history_step WHERE history_step.undone = 1")
    cur = conn.execute(
        "INSERT INTO history_step (kind, label, payload, undone, group_key, created_at, updated_at)"
        " VALUES (?, ?, ?, 0, NULL, ?, ?)",
        (kind, label, json.dumps(payload), now(), now()),
    )
    step = int(cur.lastrowid or 0)
    if step % 100 == 0:
        conn.execute("DELETE FROM history_step WHERE history_step.id <= ?", (step - KEEP,))
    return step


def set_flag(writer: QuickLibrary, ids: Sequence[int], field: str, value: bool) -> list[int]:
    """``Library.set_starred`` / ``set_read``: the ids that changed, one undo step for them."""
    if field not in FLAGS:
        raise ValueError(f"{field} is not a flag")
    conn = writer.connection
    wanted = list(dict.fromkeys(ids))
    current: dict[int, bool] = {}
    for chunk in _chunks(wanted):
        sql = f"SELECT id, {field} FROM paper WHERE id IN ({_marks(chunk)})"
        current.update((i, bool(v)) for i, v in conn.execute(sql, chunk))
    for i in wanted:
        if i not in current:
            raise PaperNotFound(i)
    changed = [i for i in wanted if current[i] != value]
    if not changed:
        return []
    stamp = now()
    for chunk in _chunks(changed):
        sql = f"UPDATE paper SET {field}=?, updated_at=? WHERE paper.id IN ({_marks(chunk)})"
        conn.execute(sql, [int(value), stamp, *chunk])
    what = f"{len(changed)} papers" if len(changed) != 1 else f"paper {changed[0]}"  # edits.label
    if field == "starred":
        label = f"{'Star' if value else 'Unstar'} {what}"
    else:
        label = f"Mark {what} {'read' if value else 'unread'}"
    record(conn, "fields", label, {"changes": [[i, field, not value, value] for i in changed]})
    return changed


def set_text(writer: QuickLibrary, paper_id: int, field: str, value: str | None) -> bool:
    """``Library.set_note`` / ``set_title`` (without a note session): the field set, the paper's
    revision bumped (``Paper.touch``) and queued for the index, one undo step; True when it
    changed. The caller commits, then writes the index (desk.core.quick_index.flush)."""
    if field not in TEXTS:
        raise ValueError(f"{field} is not a text field")
    conn = writer.connection
    row = conn.execute(f"SELECT {field} FROM paper WHERE id = ?", (paper_id,)).fetchone()
    if row is None:
        raise PaperNotFound(paper_id)
    before = row[0]
    if before == value:
        return False
    sql = f"UPDATE paper SET {field}=?, rev=coalesce(rev, 0) + 1, updated_at=? WHERE paper.id = ?"
    conn.execute(sql, (value, now(), paper_id))
    conn.execute("INSERT INTO index_queue (paper_id) VALUES (?) ON CONFLICT DO NOTHING", (paper_id,))
    label = f"Edit the note of paper {paper_id}" if field == "note" else f"Retitle paper {paper_id}"
    record(conn, "fields", label, {"changes": [[paper_id, field, before, value]]})
    return True


def _carrying(conn: sqlite3.Connection, tag_id: int, ids: Sequence[int]) -> dict[int, int]:
    """The papers carrying the tag, each with its place in the tag's order (tags.places)."""
    found: dict[int, int] = {}
    for chunk in _chunks(ids):
        sql = f"SELECT paper_id, position FROM paper_tag WHERE tag_id = ? AND paper_id IN ({_marks(chunk)})"
        found.update((r[0], r[1]) for r in conn.execute(sql, [tag_id, *chunk]))
    return found


def set_tag(writer: QuickLibrary, ids: Sequence[int], name: str, add: bool) -> TagChange:
    """``Library.tag`` (add) / ``untag``: the tag made when new, one undo step for what changed."""
    from desk.core.records import TagChange

    conn = writer.connection
    key = tag_key(name)
    row = conn.execute('SELECT id, name FROM tag WHERE tag."key" = ?', (key,)).fetchone()
    shown = row[1] if row is not None else normalize_name(name)
    wanted = list(dict.fromkeys(ids))
    places: dict[int, int] = {}  # each changed paper's place in the tag's order, for the undo step
    if add:
        _require(conn, wanted)
        if row is None:
            cur = conn.execute(
                'INSERT INTO tag (name, "key", created_at) VALUES (?, ?, ?)',
                (normalize_name(name), key, now()),
            )
            row = (int(cur.lastrowid or 0), shown)
        have = _carrying(conn, row[0], wanted)
        done = [i for i in wanted if i not in have]
        if done:
            last = conn.execute("SELECT max(position) FROM paper_tag WHERE tag_id = ?", (row[0],)).fetchone()[
                0
            ]
            start = (last or 0) + 1
            added = now()
            places = {i: start + n for n, i in enumerate(done)}
            conn.executemany(
                "INSERT INTO paper_tag (paper_id, tag_id, position, added_at) VALUES (?, ?, ?, ?)"
                " ON CONFLICT DO NOTHING",
                [(i, row[0], places[i], added) for i in done],
            )
    else:
        if row is None:
            return TagChange(shown, (), ())
        places = _carrying(conn, row[0], wanted)  # where each was: an undo puts it back there
        done = [i for i in wanted if i in places]
        for chunk in _chunks(done):
            where = f"paper_tag.tag_id = ? AND paper_tag.paper_id IN ({_marks(chunk)})"
            sql = f"DELETE FROM paper_tag WHERE {where}"
            conn.execute(sql, [row[0], *chunk])
    if done:
        what = f"{len(done)} papers" if len(done) != 1 else f"paper {done[0]}"
        label = f"{'Tag' if add else 'Untag'} {what} “{shown}”"
        record(conn, "tags", label, {"changes": [[i, shown, add, places[i]] for i in done]})
    return TagChange(shown, tuple(done) if add else (), () if add else tuple(done))
