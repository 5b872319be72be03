"""The index folder on disk: what state it is in, abandoned builds, stopping a writer."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
from pathlib import Path
from typing import Any

from whoosh.filedb.filestore import FileStorage

from desk.core.search.acronyms import ACRONYMS_NAME
from desk.core.search.acronyms import read as read_acronyms
from desk.core.search.model import IndexState
from desk.core.search.schema import INDEX_NAME, SCHEMA_VERSION, build_schema, read_marker

BUILD_PREFIX = ".rebuild-"  # a rebuild writes into .rebuild-<pid>, then swaps its files in
_TOC_RE = re.compile(r"^_(.+)_\d+\.toc$")


def probe(directory: Path) -> IndexState:
    """Classify what is on disk in ``directory``; never raises."""
    try:
        if not directory.is_dir():
            return IndexState.MISSING
        files = [p.name for p in directory.iterdir() if p.is_file()]
        version = read_marker(directory)
        if version is None:
            if not files:
                return IndexState.MISSING
            names = {m.group(1) for f in files if (m := _TOC_RE.match(f))}
            return IndexState.OLD_SCHEMA if names and INDEX_NAME not in names else IndexState.CORRUPT
        if version == -1:
            return IndexState.CORRUPT
        if version != SCHEMA_VERSION:
            return IndexState.OLD_SCHEMA
        ix = FileStorage(str(directory), supports_mmap=False).open_index(INDEX_NAME)  # see SearchIndex._index
        if set(ix.schema.names()) != set(build_schema().names()):
            return IndexState.OLD_SCHEMA
        with ix.reader() as reader:
            _touch(reader)
        if read_acronyms(directory / ACRONYMS_NAME) is None:
            return IndexState.CORRUPT
        return IndexState.OK
    except Exception:  # any failure to read is what CORRUPT means
        return IndexState.CORRUPT


def _touch(reader: Any) -> None:
    """Read a little of every segment file so truncation shows up as an error."""
    if reader.doc_count_all() == 0:
        return  # an empty index has no segments (and its reader no columns) to read
    for leaf, _ in reader.leaf_readers():
        ids = leaf.column_reader("id")
        docnums = list(leaf.all_doc_ids())
        for docnum in docnums[:1] + docnums[-1:]:
            ids[docnum]
            leaf.stored_fields(docnum)
        for fieldname in ("title", "abstract"):
            for _ in zip(range(1), leaf.lexicon(fieldname), strict=False):
                pass
            if docnums and leaf.doc_field_length(docnums[-1], fieldname) is None:
                raise ValueError("missing field lengths")


def abort(writer: Any) -> None:
    """Cancel a writer, ending the sub-processes of a parallel one (its cancel() leaves them waiting)."""
    for task in getattr(writer, "tasks", ()):
        with contextlib.suppress(Exception):
            task.terminate()
            task.join(5)
    for q in (getattr(writer, "jobqueue", None), getattr(writer, "resultqueue", None)):
        if q is not None:
            q.cancel_join_thread()
    with contextlib.suppress(Exception):
        writer.cancel()


def sweep_builds(directory: Path) -> None:
    """Remove build folders that killed processes left behind."""
    for p in directory.glob(f"{BUILD_PREFIX}*"):
        pid = p.name[len(BUILD_PREFIX) :]
        if pid.isdigit() and int(pid) != os.getpid() and not pid_alive(int(pid)):
            shutil.rmtree(p, ignore_errors=True)


def pid_alive(pid: int) -> bool:
    """Whether a process with this id exists."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # exists but not ours, or a platform without signals
        return True
    return True
