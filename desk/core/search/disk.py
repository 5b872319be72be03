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
from desk.core.search.freshness import DIGEST_PRIME
from desk.core.search.manifest import Untrusted, check_settled, sha256
from desk.core.search.model import IndexState
from desk.core.search.schema import INDEX_NAME, SCHEMA_VERSION, build_schema, read_marker
from desk.core.search.unpickling import install

BUILD_PREFIX = ".rebuild-"  # a rebuild writes into .rebuild-<pid>, then swaps its files in
_TOC_RE = re.compile(r"^_(.+)_\d+\.toc$")
OPEN_ATTEMPTS = 5  # tables of contents replaced while an open read them, at most


def open_index(directory: Path) -> Any:
    """Whoosh's index in ``directory``, its pickles read as data only (``unpickling.py``).

    Callers check the signed record first (``manifest.check_settled``): this opens what it is given.
    """
    install()
    # No mmap: whoosh-reloaded copies each mmapped sub-file into a BytesIO, which holds
    # every segment in memory (≈ 320 MB at 100k papers); plain file reads do not.
    storage = FileStorage(str(directory), supports_mmap=False)
    for attempt in range(OPEN_ATTEMPTS):
        try:
            return storage.open_index(INDEX_NAME)
        except FileNotFoundError:
            # The newest table of contents was listed, then a commit elsewhere (another copy
            # of desk, or the window's idle fold) wrote the next one and removed it: list again.
            if attempt == OPEN_ATTEMPTS - 1:
                raise
    raise AssertionError("unreachable")


def probe(directory: Path) -> IndexState:
    """Classify what is on disk in ``directory``; never raises.

    Nothing of an index desk did not sign for this user is read (UNVERIFIED); a signed file
    that changed is CORRUPT.
    """
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
        try:
            check_settled(directory)
        except Untrusted as exc:
            return IndexState.CORRUPT if exc.damaged else IndexState.UNVERIFIED
        ix = open_index(directory)
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


def revision_digest(ids: Any, revs: Any) -> tuple[int, int]:
    """(count, digest) of (id, rev) pairs; the same formula as IndexSync's SQL over the database,
    so an index holding other revisions than the database is told apart from a current one."""
    import numpy as np

    i = np.asarray(ids, dtype=np.int64) % DIGEST_PRIME
    r = np.asarray(revs, dtype=np.int64) % DIGEST_PRIME
    terms = (i * 1103515245 + r * 48271 + (i * r) % DIGEST_PRIME) % DIGEST_PRIME
    return len(i), int(terms.sum())


def live_revisions(reader: Any) -> tuple[Any, Any]:
    """(ids, revs) arrays of every live document a Whoosh reader holds (bulk column reads)."""
    import numpy as np

    from desk.core.search.posting_decode import column_array

    ids: list[Any] = []
    revs: list[Any] = []
    for leaf, _ in reader.leaf_readers():
        count = leaf.doc_count_all()
        if count == 0 or leaf.segment() is None:
            continue
        alive = np.ones(count, bool)
        if leaf.has_deletions():
            alive[[d for d in range(count) if leaf.is_deleted(d)]] = False
        ids.append(column_array(leaf.column_reader("id", translate=False), count)[alive])
        revs.append(column_array(leaf.column_reader("rev", translate=False), count)[alive])
    if not ids:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    return np.concatenate(ids), np.concatenate(revs)


def verify_segments(directory: Path) -> list[str]:
    """Read every segment of the index whole (stored fields, columns, every posting list);
    what could not be read, in plain words (empty when all of it reads)."""
    problems: list[str] = []
    try:
        check_settled(directory)
        ix = open_index(directory)
        reader = ix.reader()
    except Exception as exc:
        return [f"the search index cannot be opened ({type(exc).__name__})"]
    try:
        for leaf, _ in reader.leaf_readers():
            if leaf.doc_count_all() == 0 or leaf.segment() is None:
                continue
            name = leaf.segment().segment_id()
            try:
                _read_whole(leaf)
            except Exception as exc:
                problems.append(f"segment {name} of the search index cannot be read ({type(exc).__name__})")
    finally:
        with contextlib.suppress(Exception):
            reader.close()
    return problems


def _read_whole(leaf: Any) -> None:
    from desk.core.search.posting_decode import decode_postings

    count = leaf.doc_count_all()
    for colname in ("id", "rev"):
        col = leaf.column_reader(colname, translate=False)
        for _ in zip(range(count), col, strict=False):
            pass
    for docnum in leaf.all_doc_ids():
        leaf.stored_fields(docnum)
    for fieldname in leaf.indexed_field_names():
        for term in leaf.lexicon(fieldname):
            decode_postings(leaf.postings(fieldname, term))
        for docnum in (0, count - 1):
            leaf.doc_field_length(docnum, fieldname)


def current_files(directory: Path) -> tuple[list[str], dict[str, list[str]]]:
    """The files the index's latest generation reads: its table of contents, and each segment's
    files by segment id (the index is opened: check its signed record first)."""
    ix = open_index(directory)
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


def verify_files(directory: Path) -> list[str]:
    """Every file of the index read again: those whose bytes changed since desk wrote them, in
    plain words (empty when the index is as desk wrote it). An index desk did not sign is not
    opened at all."""
    try:
        recorded = check_settled(directory)
    except Untrusted as exc:
        return [exc.reason]
    try:
        tocs, segments = current_files(directory)
    except Exception as exc:
        return [f"the search index cannot be opened ({type(exc).__name__})"]
    problems: list[str] = []
    unrecorded = False
    for name in [*tocs, *(n for names in segments.values() for n in names)]:
        entry = recorded.get(name)
        if not isinstance(entry, dict):
            unrecorded = True
            continue
        try:
            same = sha256(directory / name) == entry.get("sha256")
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
