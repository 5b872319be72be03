"""Segments written beside the index (by worker processes), then moved in with one commit.

A big batch of papers is cut into parts; each part becomes one finished Whoosh segment in
a folder of its own (``.stage-<pid>-<random>``), written without the index lock — that is
what lets both cores write at once. The writer that holds the lock then moves the
segments' files into the index folder and commits a table of contents listing them; until
that commit nothing a reader sees has changed, and a kill leaves only a folder that the
next open sweeps away (the papers stay queued in the database and are indexed again).
"""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from whoosh.filedb.filestore import FileStorage
from whoosh.writing import NO_MERGE

from desk.core.search.acronym_definitions import Definition
from desk.core.search.fields import writer_fields
from desk.core.search.model import IndexDoc
from desk.core.search.schema import INDEX_NAME, build_schema, codec
from desk.core.search.writer import FastSegmentWriter

STAGE_PREFIX = ".stage-"


@dataclass(frozen=True)
class StagedSegment:
    """One finished segment waiting in its folder, and the lexicon counts of its documents."""

    folder: str
    segment: Any  # whoosh W3Segment: its id, document count and (no) deletions
    ids: tuple[int, ...]
    word_counts: dict[str, int]
    acronyms: dict[int, frozenset[Definition]] = field(default_factory=dict)  # id -> its acronym definitions


def write_segment(index_dir: str, owner: int, docs: Sequence[IndexDoc]) -> StagedSegment:
    """Write ``docs`` as one segment in a new staging folder inside ``index_dir`` (any process).

    ``owner`` is the id of the process that will install it: the folder is swept once it is gone.
    """
    folder = Path(index_dir) / f"{STAGE_PREFIX}{owner}-{os.urandom(6).hex()}"  # no uuid: 10 ms to load
    folder.mkdir()
    try:
        ix = FileStorage(str(folder)).create_index(build_schema(), indexname=INDEX_NAME)
        writer = FastSegmentWriter(ix, codec=codec())
        for doc in docs:
            writer.add_document(**writer_fields(doc))
        segment = writer._finalize_segment()
        writer._finish()
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    return StagedSegment(
        str(folder), segment, tuple(d.id for d in docs), dict(writer.word_counts), writer.acronyms
    )


def install(writer: FastSegmentWriter, staged: Sequence[StagedSegment], mergetype: Any = NO_MERGE) -> None:
    """Commit ``writer`` (which holds the index lock) with the staged segments added.

    Deletions the writer made are kept; documents added to the writer itself become one
    more segment; ``mergetype`` may fold small existing segments in, as a commit would.
    """
    directory = Path(writer.storage.folder)
    try:
        segments = writer._merge_segments(mergetype, False, True)
        for item in staged:
            prefix = f"{item.segment.segment_id()}."  # "desk_v1_<random id>.seg" and the like
            moved = [p for p in Path(item.folder).iterdir() if p.name.startswith(prefix)]
            if not moved:
                raise FileNotFoundError(f"staged segment {prefix}* is missing from {item.folder}")
            for path in moved:
                os.replace(path, directory / path.name)
        segments += [item.segment for item in staged]
        if writer._added:
            segments.append(writer._finalize_segment())
        else:
            writer._close_segment()
        writer._commit_toc(segments)
    except BaseException:
        # Files already moved in are listed by no table of contents: the next commit removes them.
        with contextlib.suppress(Exception):
            writer.cancel()
        discard(staged)
        raise
    writer._finish()
    discard(staged)


def discard(staged: Sequence[StagedSegment]) -> None:
    """Remove the staging folders (after install, or when the batch is abandoned)."""
    for item in staged:
        shutil.rmtree(item.folder, ignore_errors=True)


def sweep_stages(directory: Path) -> None:
    """Remove staging folders that killed processes left behind (their papers are still queued)."""
    from desk.core.search.disk import pid_alive

    for p in directory.glob(f"{STAGE_PREFIX}*"):
        pid = p.name[len(STAGE_PREFIX) :].partition("-")[0]
        if pid.isdigit() and int(pid) != os.getpid() and not pid_alive(int(pid)):
            with contextlib.suppress(OSError):
                shutil.rmtree(p)
