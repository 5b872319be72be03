"""A signed stamp that lets an open see the search index is current without reading it.

Opening a library repairs a missing, corrupt or stale index. The full check
(``IndexSync.needs_rebuild``) opens Whoosh, reads a little of every segment and every indexed
document's revision, and digests them against the database's; that costs more than the rest of
a command. So whenever the index is known to agree with the database — right after a writer
committed to it with nothing left queued (under the database's write lock, which is also the
index writer's lock), or after an open ran the full check — desk writes this stamp beside it:

- the index's newest table of contents, by name and SHA-256 (the one the signed record,
  ``manifest.py``, vouches for), so the stamp speaks of one generation of the index only;
- the database's (count, digest) of every paper's (id, revision) at that moment (the same
  digest the full check compares, ``disk.revision_digest``), as the database's triggers keep it
  in the one row of ``paper_digest`` (schema step 6: a row read, not every paper's; a stamp
  after the full check computes it from the rows, and mends the row if it ever disagreed);
- the size and time of the acronyms file and the version marker beside the index;

signed with the library's key (``desk.core.runtime.secret.library_key``), like the record: a stamp
copied in from another library never vouches for an index here.

:func:`is_current` accepts an index without opening it when the stamp is signed, the signed
record checks out (``manifest.check_signed``: the table of contents byte for byte, every segment
file's size and time), the stamp names that very table of contents, the side files are as
stamped, nothing is queued for the index, no writer's build or staging folder is there, and the
database's digest now (that row) is the stamped one.
Anything else — a restored or rolled-back database, a lost ``-wal`` file, papers queued, an
index written after the stamp, a planted or damaged file — falls through to the full check,
which repairs. ``desk check`` still reads every byte of the index (``disk.verify_files``).

No SQLAlchemy, Whoosh or numpy here: `desk stats` runs this check with plain ``sqlite3``.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import os
from pathlib import Path
from typing import Any, Protocol

from desk.core.runtime.secret import library_key
from desk.core.search import manifest
from desk.core.search.names import ACRONYMS_NAME, MARKER_NAME, SCHEMA_VERSION, read_marker

STAMP_NAME = "desk-current.json"
STAMP_VERSION = 2  # 1 was signed under the user's key alone
_CONTEXT = b"desk index stamp\x00"
_SIDE_FILES = (ACRONYMS_NAME, MARKER_NAME)

DIGEST_PRIME = 2147483647  # 2^31 - 1: every product below stays inside int64 (and SQLite's integers)
#: The papers' (id, rev) digest over the papers not queued for the index; ``disk.revision_digest``
#: computes the same over what the index holds.
DIGEST_SQL = (
    f"SELECT count(*), coalesce(sum(((id % {DIGEST_PRIME}) * 1103515245 + (rev % {DIGEST_PRIME}) * 48271"
    f" + ((id % {DIGEST_PRIME}) * (rev % {DIGEST_PRIME})) % {DIGEST_PRIME}) % {DIGEST_PRIME}), 0)"
    " FROM paper WHERE id NOT IN (SELECT paper_id FROM index_queue)"
)
#: The same over every paper, for when nothing is queued (a quarter cheaper without the NOT IN).
DIGEST_ALL_SQL = DIGEST_SQL.removesuffix(" WHERE id NOT IN (SELECT paper_id FROM index_queue)")
QUEUED_SQL = "SELECT 1 FROM index_queue LIMIT 1"


class Rows(Protocol):
    """What the check asks the database through: a DB-API connection (sqlite3's, or SQLAlchemy's)."""

    def execute(self, sql: str, /) -> Any: ...


#: The same, as the database's triggers keep it (schema step 6: one row, whatever the library's size).
KEPT_DIGEST_SQL = "SELECT papers, digest FROM paper_digest WHERE id = 1"


def computed_digest(conn: Rows) -> tuple[int, int]:
    """(count, digest) of the (id, rev) of every paper, computed from every paper's row."""
    count, digest = conn.execute(DIGEST_ALL_SQL).fetchone()
    return int(count), int(digest)


def database_digest(conn: Rows) -> tuple[int, int]:
    """(count, digest) of the (id, rev) of every paper, as the triggers keep it in paper_digest
    (computed from every row when that row is missing); only asked when nothing is queued (so the
    papers not queued, which DIGEST_SQL digests, are all of them)."""
    try:
        row = conn.execute(KEPT_DIGEST_SQL).fetchone()
    except Exception:  # no such table (a database not upgraded): the rows themselves
        row = None
    if row is None:
        return computed_digest(conn)
    return int(row[0]), int(row[1])


def repair_digest(conn: Rows) -> tuple[int, int]:
    """The digest computed from every paper's row, put in paper_digest's row when that row says
    otherwise (a full check's, inside the caller's write transaction); returns it."""
    computed = computed_digest(conn)
    try:
        kept = conn.execute(KEPT_DIGEST_SQL).fetchone()
        if kept is None or (int(kept[0]), int(kept[1])) != computed:
            mended = f"VALUES (1, {computed[0]}, {computed[1]})"  # two ints: no parameters needed
            conn.execute(f"INSERT OR REPLACE INTO paper_digest (id, papers, digest) {mended}")
    except Exception:  # no such table: nothing kept to repair
        pass
    return computed


def queued(conn: Rows) -> bool:
    """Whether any paper waits to be written to the index."""
    return conn.execute(QUEUED_SQL).fetchone() is not None


def _mac(directory: Path, body: dict[str, Any]) -> str:
    text = json.dumps(body, sort_keys=True, separators=(",", ":"))
    key = library_key(directory.absolute().parent)  # the library folder holds the index folder
    return hmac.new(key, _CONTEXT + text.encode("utf-8"), hashlib.sha256).hexdigest()


def _side(directory: Path) -> dict[str, list[int]]:
    out: dict[str, list[int]] = {}
    for name in _SIDE_FILES:
        with contextlib.suppress(OSError):
            info = (directory / name).stat()
            out[name] = [info.st_size, info.st_mtime_ns]
    return out


def generation(directory: Path) -> tuple[str, str] | None:
    """(name, SHA-256) of the newest table of contents the signed record vouches for, else None."""
    try:
        files = manifest.check_signed(directory)
        toc = manifest.newest_toc([p.name for p in directory.iterdir()])
    except (manifest.Untrusted, OSError):
        return None
    entry = files.get(toc) if toc is not None else None
    if toc is None or not isinstance(entry, dict) or not isinstance(entry.get("sha256"), str):
        return None
    return toc, entry["sha256"]


def write(directory: Path, conn: Rows, seen: tuple[str, str] | None = None) -> bool:
    """Stamp the index in ``directory`` as agreeing with the database ``conn`` reads; True if done.

    The caller holds the database's write lock (no writer can come between) and knows that the
    index agrees with the database, with nothing queued. ``seen``: the generation the caller
    verified; nothing is stamped when the index moved on since. A stamp that cannot be written
    (a read-only folder) only costs the next open the full check.
    """
    if queued(conn):
        return False
    now = generation(directory)
    if now is None or (seen is not None and now != seen):
        return False
    # A stamp after the full check (``seen``) rests on the rows themselves, and mends the kept
    # digest if it ever disagreed with them; a writer's stamp reads the kept row (one row).
    count, digest = repair_digest(conn) if seen is not None else database_digest(conn)
    body = {
        "version": STAMP_VERSION,
        "toc": now[0],
        "toc_sha256": now[1],
        "papers": count,
        "digest": digest,
        "side": _side(directory),
    }
    tmp = directory / f"{STAMP_NAME}.{os.getpid()}.tmp"
    try:
        tmp.write_text(json.dumps({**body, "mac": _mac(directory, body)}), encoding="utf-8")
        os.replace(tmp, directory / STAMP_NAME)
    except OSError:
        return False
    finally:
        with contextlib.suppress(OSError):
            tmp.unlink()
    return True


def _stamp(directory: Path) -> dict[str, Any] | None:
    try:
        data = json.loads((directory / STAMP_NAME).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("version") != STAMP_VERSION:
        return None
    mac = data.pop("mac", None)
    if not isinstance(mac, str) or not hmac.compare_digest(_mac(directory, data), mac):
        return None
    return data


def is_current(directory: Path, conn: Rows) -> bool:
    """Whether the index in ``directory`` is, for certain, the one agreeing with the database now.

    False means "not known": the full check decides (and repairs). ``conn`` reads the database
    inside one transaction, so the digest is of one moment.
    """
    try:
        if read_marker(directory) != SCHEMA_VERSION:
            return False
        if any(p.name.startswith(".") for p in directory.iterdir()):
            return False  # a writer's build or staging folder (at work, or killed: the full open sweeps it)
    except OSError:
        return False
    stamp = _stamp(directory)
    if stamp is None or generation(directory) != (stamp.get("toc"), stamp.get("toc_sha256")):
        return False
    if _side(directory) != stamp.get("side"):
        return False
    if queued(conn):
        return False
    return database_digest(conn) == (stamp.get("papers"), stamp.get("digest"))


def forget(directory: Path) -> None:
    """Remove the stamp (the next open runs the full check)."""
    with contextlib.suppress(OSError):
        (directory / STAMP_NAME).unlink()
