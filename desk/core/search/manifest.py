"""What the index's files held when desk wrote them: a SHA-256 per file, checked by `desk check`.

Whoosh keeps no checksums, so random bytes inside a segment show only when a search reads
that block. After each commit (under the library's write lock) the files of the index's
current generation are recorded here; segment files never change once written, so only new
names are hashed. ``desk check`` hashes every file again and reads in full any segment not
recorded (one committed by a process killed before it could record it).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
from pathlib import Path
from typing import Any

from whoosh.filedb.filestore import FileStorage

from desk.core.search.disk import verify_segments
from desk.core.search.schema import INDEX_NAME

MANIFEST_NAME = "desk-files.json"
MANIFEST_VERSION = 1


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def current_files(directory: Path) -> tuple[list[str], dict[str, list[str]]]:
    """The files the index's latest generation reads: its table of contents, and each segment's
    files by segment id."""
    ix = FileStorage(str(directory), supports_mmap=False).open_index(INDEX_NAME)
    names = [p.name for p in directory.iterdir() if p.is_file()]
    toc = f"_{INDEX_NAME}_{ix.latest_generation()}.toc"
    segments: dict[str, list[str]] = {}
    with ix.reader() as reader:
        for leaf, _ in reader.leaf_readers():
            segment = leaf.segment()
            if segment is not None:
                segid = segment.segment_id()
                segments[segid] = sorted(n for n in names if n.startswith(f"{segid}."))
    return [toc], segments


_TOC = re.compile(rf"^_{re.escape(INDEX_NAME)}_(\d+)\.toc$")
_SEGMENT_FILE = re.compile(rf"^{re.escape(INDEX_NAME)}_\w+\.seg$")


def _listed_files(directory: Path) -> list[str]:
    """The newest table of contents and every segment file, from the folder's listing alone
    (no index opened: recording costs a listing and the hashes of new files)."""
    names = [p.name for p in directory.iterdir()]
    tocs = sorted((int(m.group(1)), n) for n in names if (m := _TOC.match(n)))
    return [tocs[-1][1]] * bool(tocs) + sorted(n for n in names if _SEGMENT_FILE.match(n))


def _read(directory: Path) -> dict[str, Any]:
    try:
        data = json.loads((directory / MANIFEST_NAME).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict) or data.get("version") != MANIFEST_VERSION:
        return {}
    files = data.get("files")
    return files if isinstance(files, dict) else {}


def record(directory: Path) -> None:
    """Record the current generation's files (hashing only names not recorded yet).

    Called under the library's write lock after a commit; a failure only leaves files
    unrecorded, which `desk check` then reads in full.
    """
    old = _read(directory)
    files: dict[str, Any] = {}
    for name in _listed_files(directory):
        path = directory / name
        size = path.stat().st_size
        entry = old.get(name)
        if not (
            isinstance(entry, dict) and entry.get("size") == size and isinstance(entry.get("sha256"), str)
        ):
            entry = {"size": size, "sha256": _sha256(path)}
        files[name] = entry
    tmp = directory / f"{MANIFEST_NAME}.{os.getpid()}.tmp"
    try:
        tmp.write_text(json.dumps({"version": MANIFEST_VERSION, "files": files}), encoding="utf-8")
        os.replace(tmp, directory / MANIFEST_NAME)
    finally:
        with contextlib.suppress(OSError):
            tmp.unlink()


def verify(directory: Path) -> list[str]:
    """Every file of the index read again: those whose bytes changed since they were written, in
    plain words (empty when the index is as desk wrote it)."""
    try:
        tocs, segments = current_files(directory)
    except Exception as exc:
        return [f"the search index cannot be opened ({type(exc).__name__})"]
    recorded = _read(directory)
    problems: list[str] = []
    unrecorded = False
    for name in [*tocs, *(n for names in segments.values() for n in names)]:
        entry = recorded.get(name)
        if not isinstance(entry, dict):
            unrecorded = True
            continue
        try:
            same = _sha256(directory / name) == entry.get("sha256")
        except OSError as exc:
            problems.append(f"the search index file {name} cannot be read ({exc.strerror or exc})")
            continue
        if not same:
            problems.append(
                f"the search index file {name} is damaged (its bytes changed since desk wrote it)"
            )
    if unrecorded and not problems:
        problems += verify_segments(directory)
    return problems
