"""Flat postings for the segments an older desk wrote without them (``flat_postings.py``).

A library indexed before flat postings existed, or a segment made by Whoosh's own writer (a
merge through its pool), has segments read from Whoosh's blocks: correct, only slower. This
writes their files from the segments themselves (every term's list decoded once) and signs
them into the index's record under the index's write lock, so the next reader uses them. It
never changes a segment; a segment merged away meanwhile just loses its file with it.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from itertools import accumulate
from pathlib import Path
from typing import Any

from desk.core.search import manifest
from desk.core.search.flat_postings import EXT, FlatWriter, open_trusted, path_of
from desk.core.search.names import INDEX_NAME
from desk.core.search.whoosh_internals import fast

LOCK_TIMEOUT = 10.0  # seconds to wait for the index's write lock to sign the new files


def lacking(folder: Path, segments: list[Any]) -> list[Any]:
    """The segments of ``segments`` without flat postings a reader would use: none listed in the
    signed record, or a file of an older layout (or damaged: its header refused)."""
    signed = manifest.signed_files(folder) or {}
    return [
        seg
        for seg in segments
        if f"{seg.segment_id()}{EXT}" not in signed
        or open_trusted(folder, seg.segment_id(), seg.doc_count_all(), signed) is None
    ]


def write_for(storage: Any, schema: Any, segment: Any) -> Path:
    """Write the flat postings of one segment of the index in ``storage`` from its own lists."""
    from whoosh.reading import SegmentReader

    reader = SegmentReader(storage, schema, segment)
    out = FlatWriter()
    try:
        terms = reader._terms
        for fieldname in sorted(reader.indexed_field_names()):
            fmt = reader.schema[fieldname].format
            for btext in reader.lexicon(fieldname):
                # The segment's own lists, deleted documents included: readers drop those.
                ids, weights, values = _postings(terms.matcher(fieldname, btext, fmt))
                out.add(fieldname, btext, ids, weights, values)
    finally:
        reader.close()
    path = path_of(Path(storage.folder), segment.segment_id())
    out.write(path, segment.segment_id(), segment.doc_count_all())
    return path


def _postings(matcher: Any) -> tuple[list[int], list[float], list[Any]]:
    """(docnums, weights, values) of a whole posting list: a block at a time where Whoosh's block
    layout allows it (as segment_merge reads them), else through the matcher."""
    from whoosh.codec.whoosh3 import W3LeafMatcher

    ids: list[int] = []
    weights: list[float] = []
    values: list[Any] = []
    if isinstance(matcher, W3LeafMatcher) and not matcher._byteids:
        while matcher.is_active():
            if matcher._data is None:
                matcher._read_data()
            deltas, block_weights = matcher._data[0], matcher._data[1]
            block = list(accumulate(deltas))
            if block_weights is None or isinstance(block_weights, float):
                block_weights = [1.0 if block_weights is None else block_weights] * len(block)
            matcher._read_values()
            ids.extend(block)
            weights.extend(block_weights)
            values.extend(matcher._values)
            matcher._next_block()
        return ids, weights, values
    while matcher.is_active():
        ids.append(matcher.id())
        weights.append(matcher.weight())
        values.append(matcher.value())
        matcher.next()
    return ids, weights, values


def backfill(folder: Path, cancel: threading.Event | None = None) -> int:
    """Write and sign the flat postings every current segment of the index in ``folder`` lacks;
    returns how many were written (0 when Whoosh is not the verified version: nothing reads them)."""
    if not fast():
        return 0
    from desk.core.search.disk import open_index

    # As every reader of the index: its signed record first (raises manifest.Untrusted), then
    # Whoosh's pickles read as data only.
    manifest.check_settled(folder)
    ix = open_index(folder)
    written = 0
    for segment in lacking(folder, list(ix._segments())):
        if cancel is not None and cancel.is_set():
            break
        write_for(ix.storage, ix.schema, segment)
        written += 1
    if written:
        lock = ix.storage.lock(f"{INDEX_NAME}_WRITELOCK")
        deadline = time.monotonic() + LOCK_TIMEOUT
        while not lock.acquire(False):
            if time.monotonic() > deadline:  # a long commit: the files are signed by its record
                return written
            time.sleep(0.05)
        try:
            manifest.record(folder)  # files of segments merged away meanwhile are not listed
        finally:
            with contextlib.suppress(Exception):
                lock.release()
    return written


POLL_S = 0.1  # how often a waiting backfill looks whether it was cancelled


def _child(folder: str) -> None:
    with contextlib.suppress(OSError, AttributeError):  # below the window: ~0.3 s of CPU per 1,000 papers
        os.nice(10)
    backfill(Path(folder))


def backfill_in_process(folder: Path, cancel: threading.Event | None = None) -> bool:
    """Run backfill in a spawned process (it is Python through and through: on a thread it would
    share the window's interpreter) and wait; True when it exited cleanly. Setting ``cancel`` kills
    it: files it wrote and did not sign are never read, and are written again next time."""
    import multiprocessing

    proc = multiprocessing.get_context("spawn").Process(
        target=_child, args=(str(folder),), name="desk-flat-postings", daemon=True
    )
    proc.start()
    while proc.is_alive():
        if cancel is not None and cancel.is_set():
            proc.kill()
            break
        proc.join(POLL_S)
    proc.join()
    return proc.exitcode == 0
