"""A whole index written beside the live one and swapped in, and batches staged by worker processes.

A rebuild writes into ``.build-<pid>`` (in parts on the worker processes when they pay), then
moves its files over the live index with the schema marker removed first and written last: a
kill in between leaves an index that reads CORRUPT and is rebuilt, never a mix of both.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Future
from pathlib import Path

from whoosh import index as windex

from desk.core.runtime.processes import WorkerPool
from desk.core.runtime.tuning import DEFAULT as DEFAULT_TUNING
from desk.core.search.acronyms import ACRONYMS_NAME, Acronyms
from desk.core.search.fields import writer_fields
from desk.core.search.model import IndexDoc
from desk.core.search.schema import INDEX_NAME, LEXICON_NAME, build_schema, codec, remove_marker, write_marker
from desk.core.search.spelling import Lexicon
from desk.core.search.staging import StagedSegment, discard, install, write_segment
from desk.core.search.whoosh_internals import fast
from desk.core.search.writer import FastSegmentWriter, segment_writer

Progress = Callable[[int, int], None]


def build(
    build: Path,
    docs: Iterable[IndexDoc],
    total: int,
    progress: Progress | None,
    cancelled: Callable[[], bool] | None,
    pool: WorkerPool | None,
) -> bool:
    """Write a complete index into ``build``; False when cancelled.

    A batch of pool.tuning.index_on_workers_from papers or more is cut into one segment per
    worker process; a smaller one is written here (a worker and moving its segment in cost more).
    """
    ix = windex.create_in(str(build), build_schema(), indexname=INDEX_NAME)
    if not fast():
        return _build_public(ix, build, docs, total, progress, cancelled)
    tuning = pool.tuning if pool is not None else DEFAULT_TUNING
    if pool is None or not pool.parallel or total < tuning.index_on_workers_from:
        pool = WorkerPool(1, tuning)  # runs each part here, in turn
    part = min(tuning.rebuild_part, max(1, -(-total // pool.workers)))
    pending: list[Future[StagedSegment]] = []
    staged: list[StagedSegment] = []
    written = 0

    def collect(keep: int) -> None:
        nonlocal written
        while len(pending) > keep:
            staged.append(pending.pop(0).result())
            written += len(staged[-1].ids)
            if progress is not None:
                progress(written, total)

    try:
        gathered: list[IndexDoc] = []
        for doc in docs:
            if cancelled is not None and len(gathered) % 32 == 0 and cancelled():
                abandon(pending, staged)
                return False
            gathered.append(doc)
            if len(gathered) >= part:
                pending.append(pool.submit(write_segment, str(build), os.getpid(), gathered))
                gathered = []
                collect(keep=pool.workers)  # at most one part waiting per worker
        if gathered:
            pending.append(pool.submit(write_segment, str(build), os.getpid(), gathered))
        collect(keep=0)
        install(FastSegmentWriter(ix, codec=codec()), staged)
    except BaseException:
        abandon(pending, staged)
        raise
    count = ix.doc_count_all()
    ix.close()
    if count != written:  # a failed worker must not leave a silently partial index
        raise RuntimeError(f"the search index build wrote {count} of {written} papers")
    lexicon, acronyms = Lexicon(), Acronyms()
    for item in staged:
        lexicon.add_counts(item.word_counts)
        acronyms.set_docs(item.acronyms)
    lexicon.save(build / LEXICON_NAME)
    acronyms.save(build / ACRONYMS_NAME)
    if progress is not None:
        progress(written, total)
    return True


def _build_public(
    ix: windex.Index,
    build: Path,
    docs: Iterable[IndexDoc],
    total: int,
    progress: Progress | None,
    cancelled: Callable[[], bool] | None,
) -> bool:
    """build() through Whoosh's own writer, in this process (no staged segments)."""
    writer = segment_writer(ix)
    written = 0
    try:
        for doc in docs:
            if cancelled is not None and written % 32 == 0 and cancelled():
                writer.cancel()
                return False
            writer.add_document(**writer_fields(doc))
            written += 1
            if progress is not None and written % DEFAULT_TUNING.rebuild_part == 0:
                progress(written, total)
    except BaseException:
        writer.cancel()
        raise
    writer.commit()
    ix.close()
    lexicon, acronyms = Lexicon(), Acronyms()
    lexicon.add_counts(writer.word_counts)
    lexicon.save(build / LEXICON_NAME)
    acronyms.set_docs(writer.acronyms)
    acronyms.save(build / ACRONYMS_NAME)
    if progress is not None:
        progress(written, total)
    return True


def swap_in(directory: Path, build: Path, record: Callable[[], None]) -> None:
    """Move the finished build's files over the index in ``directory``; ``record`` signs them
    (manifest.py) before the marker makes them readable."""
    # Without the marker the directory reads CORRUPT until the last step.
    remove_marker(directory)
    for p in directory.iterdir():
        if p.is_file():
            p.unlink()
    for p in build.iterdir():
        os.replace(p, directory / p.name)
    record()
    write_marker(directory)


class StagedBatch:
    """Segments worker processes are writing for a batch of documents (see SearchIndex.stage)."""

    def __init__(self, ids: tuple[int, ...], jobs: list[Future[StagedSegment]]) -> None:
        self.ids = ids
        self._jobs = jobs

    def result(self) -> list[StagedSegment]:
        """The finished segments (waits); when a part failed, none is kept and its error is raised."""
        staged: list[StagedSegment] = []
        try:
            for job in self._jobs:
                staged.append(job.result())
        except BaseException:
            abandon(self._jobs[len(staged) + 1 :], staged)
            raise
        return staged

    def abandon(self) -> None:
        """Stop waiting and remove whatever was written."""
        abandon(self._jobs, [])


def abandon(pending: Sequence[Future[StagedSegment]], staged: list[StagedSegment]) -> None:
    """Cancel parts not started, wait for the running ones, and remove every staged folder."""
    for future in pending:
        future.cancel()
    for future in pending:
        with contextlib.suppress(BaseException):
            staged.append(future.result())
    discard(staged)
