"""The index's files as desk wrote them, signed: what is checked before Whoosh reads any of them.

Whoosh reads its table of contents and its segments with pickle, so an index folder desk did
not write could run code when opened (``unpickling.py`` is the second wall). After each
commit (under the index writer's and the library's write lock) desk records the current
generation's files here — the newest table of contents and every segment file, each with its
size, modification time and SHA-256 — and signs the record with an HMAC under the library's key
(``desk.core.runtime.secret.library_key``: the user's key, kept outside the library, and the identity of
the library folder the index sits in). Segment files never change once written, so only new
names are hashed. An index copied in from another library (even one holding the same papers at
the same revisions) is thus not signed for this one, and is rebuilt.

Before an index is opened, :func:`check_signed` (cheap: one small file hashed, a listing and a
``stat`` per file) requires a record signed by this user whose newest table of contents is the
one on disk, byte for byte, and whose segment files still have their sizes and times: anything
else is :class:`Untrusted` and the index is rebuilt from the database. A file of the size
recorded whose time alone differs (a copy of the library that kept no times, ``cp -r``) is
hashed again, and trusted when its bytes are the ones recorded; the next writer's record
(``refresh`` under the write lock) puts the new times in, so it is hashed once. A writer signs its
generation before it lets go of Whoosh's write lock, so a table of contents that is not
recorded yet while another process holds that lock is one being signed: :func:`check_settled`
waits for it rather than calling it untrusted (which would rebuild a good index, or fail a
command that merely ran beside the window). A library moved to
another machine or user therefore rebuilds its index once. ``desk check`` goes further and
hashes every file again (``disk.verify_files``).
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import os
import re
import time
from pathlib import Path
from typing import Any

from desk.core.runtime.file_locks import held_elsewhere
from desk.core.runtime.secret import library_key
from desk.core.search.names import INDEX_NAME

MANIFEST_NAME = "desk-files.json"
#: 1 was unsigned, 2 signed under the user's key alone (any of their libraries' indexes verified in
#: another): neither is trusted, the index is rebuilt once.
MANIFEST_VERSION = 3
_CONTEXT = b"desk index manifest\x00"


SETTLE_TIMEOUT = 30.0  # seconds to wait for a writer between its commit and its record (as commits wait)


class Untrusted(Exception):
    """The index on disk is not one desk can vouch for; ``damaged``: a file desk signed changed;
    ``unrecorded``: its newest table of contents is not in the record (planted, or not signed yet)."""

    def __init__(self, reason: str, *, damaged: bool = False, unrecorded: bool = False) -> None:
        super().__init__(reason)
        self.reason = reason
        self.damaged = damaged
        self.unrecorded = unrecorded


def sha256(path: Path) -> str:
    """The SHA-256 of a file, read in blocks."""
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


_TOC = re.compile(rf"^_{re.escape(INDEX_NAME)}_(\d+)\.toc$")
#: A segment's files: Whoosh's compound file, and desk's flat postings beside it (flat_postings.py).
SEGMENT_FILE = re.compile(rf"^{re.escape(INDEX_NAME)}_\w+\.(seg|dpost)$")


def newest_toc(names: list[str]) -> str | None:
    """The table of contents Whoosh opens: the highest generation's."""
    tocs = sorted((int(m.group(1)), n) for n in names if (m := _TOC.match(n)))
    return tocs[-1][1] if tocs else None


def _listed_files(directory: Path) -> list[str]:
    """The newest table of contents and every segment file, from the folder's listing alone
    (no index opened: recording costs a listing and the hashes of new files)."""
    names = [p.name for p in directory.iterdir()]
    toc = newest_toc(names)
    return ([] if toc is None else [toc]) + sorted(n for n in names if SEGMENT_FILE.match(n))


def _mac(directory: Path, files: dict[str, Any]) -> str:
    """The signature of a record of the index in ``directory``, under its library's key (the
    library folder is the index folder's parent)."""
    body = json.dumps({"version": MANIFEST_VERSION, "files": files}, sort_keys=True, separators=(",", ":"))
    key = library_key(directory.absolute().parent)
    return hmac.new(key, _CONTEXT + body.encode("utf-8"), hashlib.sha256).hexdigest()


def signed_files(directory: Path) -> dict[str, Any] | None:
    """The files of the record in ``directory`` when it is signed by this user's key, else None."""
    try:
        data = json.loads((directory / MANIFEST_NAME).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("version") != MANIFEST_VERSION:
        return None
    files, mac = data.get("files"), data.get("mac")
    if not isinstance(files, dict) or not isinstance(mac, str):
        return None
    if not hmac.compare_digest(_mac(directory, files), mac):
        return None
    return files


def _entry_ok(entry: Any, info: os.stat_result) -> bool:
    return (
        isinstance(entry, dict)
        and entry.get("size") == info.st_size
        and entry.get("mtime_ns") == info.st_mtime_ns
        and isinstance(entry.get("sha256"), str)
    )


def _same_bytes(entry: Any, path: Path, info: os.stat_result) -> bool:
    """Whether a file whose time is not the recorded one still holds the recorded bytes (a copy
    that kept no times): hashed again, so only when its size is the recorded one."""
    if not isinstance(entry, dict) or entry.get("size") != info.st_size:
        return False
    digest = entry.get("sha256")
    try:
        return isinstance(digest, str) and hmac.compare_digest(sha256(path), digest)
    except OSError:
        return False


def record(directory: Path) -> None:
    """Record and sign the current generation's files (hashing only those not recorded yet).

    Called right after a commit, by the writer; a failure (a read-only folder) leaves the old
    record, and the index is rebuilt when it is next opened where it can be written.
    """
    old = signed_files(directory) or {}
    files: dict[str, Any] = {}
    for name in _listed_files(directory):
        path = directory / name
        info = path.stat()
        entry = old.get(name)
        if not _entry_ok(entry, info):
            entry = {"size": info.st_size, "mtime_ns": info.st_mtime_ns, "sha256": sha256(path)}
            if path.stat().st_mtime_ns != info.st_mtime_ns:  # written to while hashed: not ours to sign
                continue
        files[name] = entry
    tmp = directory / f"{MANIFEST_NAME}.{os.getpid()}.tmp"
    try:
        payload = {"version": MANIFEST_VERSION, "files": files, "mac": _mac(directory, files)}
        tmp.write_text(json.dumps(payload), encoding="utf-8")
        os.replace(tmp, directory / MANIFEST_NAME)
    finally:
        with contextlib.suppress(OSError):
            tmp.unlink()


def check_signed(directory: Path) -> dict[str, Any]:
    """The signed record of ``directory``, after checking that Whoosh would open what it vouches for.

    Raises :class:`Untrusted` when there is no record signed by this user, when its newest
    table of contents is not the one on disk, or when a file it lists changed (``damaged``).
    """
    files = signed_files(directory)
    if files is None:
        raise Untrusted("the search index carries no record signed by desk for this user and library")
    try:
        names = [p.name for p in directory.iterdir()]
    except OSError as exc:
        raise Untrusted(f"the search index folder cannot be listed ({exc.strerror or exc})") from exc
    toc = newest_toc(names)
    if toc is None or toc not in files:
        raise Untrusted("the search index's table of contents is not one desk recorded", unrecorded=True)
    for name, entry in files.items():
        if not isinstance(name, str) or os.sep in name or name.startswith("."):
            raise Untrusted("the search index's record is malformed")
        try:
            info = (directory / name).stat()
        except OSError as exc:
            raise Untrusted(f"the search index file {name} is missing", damaged=True) from exc
        if not _entry_ok(entry, info) and not _same_bytes(entry, directory / name, info):
            raise Untrusted(f"the search index file {name} changed since desk wrote it", damaged=True)
    try:
        same = sha256(directory / toc) == files[toc]["sha256"]
    except OSError as exc:
        raise Untrusted(f"the search index file {toc} cannot be read", damaged=True) from exc
    if not same:
        raise Untrusted(f"the search index file {toc} changed since desk wrote it", damaged=True)
    return files


def refresh(directory: Path) -> bool:
    """Put the times of files that only their times set apart from the record (a copied library)
    into the record, so that they are not hashed at every open; True when it was written again.

    For a caller holding the index writer's lock (as :func:`record`'s callers do). Raises
    :class:`Untrusted` as :func:`check_signed` does.
    """
    files = check_signed(directory)
    for name, entry in files.items():
        try:
            info = (directory / name).stat()
        except OSError:
            return False
        if not _entry_ok(entry, info):
            record(directory)  # every file's bytes were just found to be the recorded ones
            return True
    return False


def writer_busy(directory: Path) -> bool:
    """Whether a process holds Whoosh's write lock on the index in ``directory`` right now."""
    return held_elsewhere(directory / f"{INDEX_NAME}_WRITELOCK")


def check_settled(directory: Path, timeout: float = SETTLE_TIMEOUT) -> dict[str, Any]:
    """:func:`check_signed`, waiting out a writer caught between writing its table of contents
    and signing it (it holds Whoosh's write lock until it has signed); raises :class:`Untrusted`."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            return check_signed(directory)
        except Untrusted as exc:
            if not exc.unrecorded:
                raise
            if not writer_busy(directory):
                # Nobody writing: either planted, or a writer signed and let go since we looked.
                return check_signed(directory)
            if time.monotonic() > deadline:
                raise
            time.sleep(0.01)
