"""Keep the derived search index in step with the database, and say where they differ."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING

import numpy as np
from sqlalchemy import delete, func, select, text
from sqlalchemy.orm import Session

from desk.core.runtime import failures
from desk.core.runtime.processes import WorkerPool
from desk.core.runtime.tuning import Tuning
from desk.core.search import IndexDoc, IndexState, SearchIndex, freshness, index_queue, manifest
from desk.core.search.disk import revision_digest, verify_files
from desk.core.search.manifest import Untrusted
from desk.core.search.model import Merge
from desk.core.search.names import INDEX_BATCH
from desk.core.search.schema import remove_marker
from desk.core.search.staging import discard
from desk.core.store import Database, IndexQueue, Paper
from desk.core.store.queries import raw_connection

if TYPE_CHECKING:
    from desk.core.search.building import StagedBatch
    from desk.core.search.segment_merge import MergedSegment

log = logging.getLogger(__name__)
Progress = Callable[[int, int], None]
UNVERIFIED = (
    "the search index could not be verified as written by desk for this user and library, so it was not read"
)
BATCH = INDEX_BATCH
#: With folds deferred, an edit still folds as it commits once this many small segments wait (a
#: long run of edits with no idle moment): searches read every segment, so their number stays bounded.
MAX_DEFERRED_SEGMENTS = 24
_DIGEST_SQL = text(freshness.DIGEST_SQL)  # the papers' (id, rev) digest, as disk.revision_digest's


class IndexSync:
    """Applies queued changes to the index, rebuilds it, and compares it with the database."""

    def __init__(self, db: Database, index: SearchIndex, tuning: Tuning | None = None) -> None:
        self.db = db
        self.index = index
        self.tuning = tuning  # for the pools it starts itself (None: the default)
        self.behind: str | None = None
        """Why the index is behind the database (it could not be written), or None."""
        self.defer_folds = False
        """Edits commit without folding small segments; fold_edits() folds them later (the window,
        when idle): a note or a star is then searchable without paying for earlier edits' folds."""
        self._folds_owed = False  # an edit's commit left its fold to fold_edits()

    def flush(self, pool: WorkerPool | None = None, merge: Merge = "auto") -> int:
        """Write every queued paper to the index (a big batch on ``pool``'s workers); returns how many.

        ``merge``: which small segments the commits fold in (search.model.Merge).

        The database has committed the changes already: an index that cannot be written (a
        read-only folder, a full disk, a busy library) does not make them fail. The papers
        stay queued, ``behind`` says why, and the next flush or open catches up.
        """
        try:
            written = self._flush(pool, merge)
        except Exception as exc:
            self.behind = (
                "the search index is behind the database: it could not be written"
                f" ({failures.reason(exc, self.index.directory)})"
            )
            log.debug("index flush failed; the papers stay queued", exc_info=True)
            return 0
        self.behind = None
        return written

    def _flush(self, pool: WorkerPool | None, merge: Merge) -> int:
        written = 0
        with self.db.reading() as session:
            if not index_queue.queued(raw_connection(session), 1):
                return 0  # nothing queued: no write lock taken, so a busy library still opens
        if merge == "auto" and self.defer_folds and self.index.small_segments() < MAX_DEFERRED_SEGMENTS:
            merge, self._folds_owed = "emptied", True
        while True:
            # The write transaction doubles as the cross-process lock on the index writer.
            with self.db.writing() as session:
                done = index_queue.write_batch(raw_connection(session), self.index, pool, merge, BATCH)
                if done is None:
                    return written
                written += done

    def rehearse_flush(self, session: Session, queued: Sequence[int]) -> None:
        """In a rehearsal (``Database.rehearsing``) that queued papers ``queued``: the statements
        of flushing them (the queue read, their documents, their removal from the queue), so that
        SQLAlchemy has compiled them; the index is not touched."""
        conn = raw_connection(session)
        index_queue.queued(conn, BATCH)
        if queued:
            index_queue.docs(conn, queued)
            index_queue.unqueue(conn, queued)

    def merge_small(self) -> None:
        """Fold the index's small segments into one (after an import that left them), in one commit.

        Derived data: when the index cannot be written it stays as it is (still correct). An
        index stamped current before the merge is stamped again after it (the same papers in
        fewer segments): else the first command after every import paid the full check.
        """
        try:
            with self.db.writing() as session:  # the cross-process lock on the index writer
                current = freshness.is_current(self.index.directory, raw_connection(session))
                self.index.merge_small(lambda ids: index_queue.docs(raw_connection(session), ids))
                if current:
                    index_queue.stamp(self.index.directory, raw_connection(session))
        except Exception:
            log.debug("could not merge the index's small segments", exc_info=True)

    def fold_edits(self) -> int:
        """Fold the small segments that edits left unfolded (see ``defer_folds``), in short commits;
        returns how many papers were written again (0 at once when no edit left any).

        Derived data: when the index cannot be written it stays as it is (still correct), and the
        fold is tried again after the next edit.
        """
        if not self._folds_owed:
            return 0
        self._folds_owed = False
        try:
            with self.db.writing() as session:  # the cross-process lock on the index writer
                current = freshness.is_current(self.index.directory, raw_connection(session))
                written = self.index.fold_edits(lambda ids: index_queue.docs(raw_connection(session), ids))
                if current and written:
                    index_queue.stamp(self.index.directory, raw_connection(session))
                return written
        except Exception:
            log.debug("could not fold the index's small segments", exc_info=True)
            return 0

    def merge_segments(
        self,
        pool: WorkerPool,
        progress: Progress | None = None,
        cancelled: Callable[[], bool] | None = None,
    ) -> int:
        """Merge the index's segments by size class (search.segment_merge) on the pool's workers,
        then commit them in one short write; returns how many merged segments went in.

        For the end of an import. The merging holds no lock (the database's write lock only for
        the commit); a cancel drops it. Derived data: a merge that fails leaves the index as it was.
        """
        try:
            jobs = self.index.start_merge(pool)
        except Exception:
            log.debug("could not start merging the index's segments", exc_info=True)
            return 0
        if not jobs:
            return 0
        merged: list[MergedSegment] = []
        try:
            for k, job in enumerate(jobs):
                while True:
                    if cancelled is not None and cancelled():
                        raise _Cancelled
                    try:
                        merged.append(job.result(timeout=0.2))
                        break
                    except TimeoutError:
                        continue
                if progress is not None:
                    progress(k + 1, len(jobs))
            with self.db.writing() as session:  # the cross-process lock on the index writer
                done = self.index.commit_merge(merged)
                index_queue.stamp(self.index.directory, raw_connection(session))
            return done
        except BaseException as exc:
            for job in jobs:
                job.cancel()
            for job in jobs:
                with contextlib.suppress(BaseException):
                    merged.append(job.result())
            discard([m.staged for m in merged])
            if isinstance(exc, _Cancelled):
                return 0
            if not isinstance(exc, Exception):
                raise
            log.debug("could not merge the index's segments", exc_info=True)
            return 0

    def start_flush(self, pool: WorkerPool, merge: Merge = "auto", limit: int = BATCH) -> PendingFlush | None:
        """Start indexing the queued papers (the first ``limit``) on the pool's workers and return at
        once (None: done here).

        For an import: the next file is stored while the workers write this one's segments.
        A small queue is flushed here and now instead (its commit folding in what ``merge`` says).
        """
        with self.db.reading() as session:
            conn = raw_connection(session)
            ids = index_queue.queued(conn, limit)
            big = self.index.can_stage(pool) and len(ids) >= pool.tuning.index_on_workers_from
            docs = index_queue.docs(conn, ids) if big else []
        if not big:
            self.flush(pool, merge)
            return None
        return PendingFlush(self, docs, self.index.stage(docs, pool), merge)

    def _iter_all(self, session: Session) -> Iterator[IndexDoc]:
        last = 0
        while True:
            batch = index_queue.docs_after(raw_connection(session), last, BATCH)
            if not batch:
                return
            yield from batch
            last = batch[-1].id

    def rebuild(
        self,
        progress: Progress | None = None,
        cancelled: Callable[[], bool] | None = None,
        pool: WorkerPool | None = None,
    ) -> None:
        """Rebuild the whole index from the database (on ``pool``'s workers when one is given)."""
        with self.db.writing() as session:
            total = session.scalar(select(func.count(Paper.id))) or 0
            self.index.rebuild(self._iter_all(session), total, progress, cancelled, pool)
            if cancelled is None or not cancelled():
                session.execute(delete(IndexQueue))
                index_queue.stamp(self.index.directory, raw_connection(session))
        self.behind = None

    def needs_rebuild(self) -> str | None:
        """Why the index must be rebuilt before use, or None when it can be used as it is."""
        state = self.index.state()
        if state is not IndexState.OK:
            return {
                IndexState.MISSING: "the search index is missing",
                IndexState.CORRUPT: "the search index is damaged",
                IndexState.OLD_SCHEMA: "the search index is from an older desk",
                IndexState.UNVERIFIED: UNVERIFIED,
            }.get(state, "the search index cannot be used")
        with self.db.reading() as session:
            queued = list(session.scalars(select(IndexQueue.paper_id)))
            in_db = tuple(session.execute(_DIGEST_SQL).one())
        try:
            ids, revs = self.index.live_revisions()
        except Untrusted as exc:  # changed since state() looked, by no writer desk knows
            return "the search index is damaged" if exc.damaged else UNVERIFIED
        if queued:
            keep = ~np.isin(ids, np.array(queued, dtype=np.int64))
            ids, revs = ids[keep], revs[keep]
        if revision_digest(ids, revs) != in_db:
            # A kill during a restore, a lost -wal file, an index copied from elsewhere: the same
            # number of papers is not the same papers.
            return "the search index holds other revisions than the database"
        return None

    def ensure(self, progress: Progress | None = None, *, trust_stamp: bool = True) -> str | None:
        """Repair the index if needed (rebuild or apply queued changes); returns what was repaired.

        An index that cannot be written is left as it is (``behind`` says why): reading the
        database never waits for derived data.
        """
        if trust_stamp and self.is_current():
            return None  # the signed stamp vouches for it: no sweep, no full check, no flush
        try:
            self.index.sweep()
        except OSError:
            log.debug("could not sweep the index folder", exc_info=True)
        seen = freshness.generation(self.index.directory)
        reason = self.needs_rebuild()
        if reason == UNVERIFIED and self._signed_meanwhile():
            reason = self.needs_rebuild()
        if reason:
            try:
                with WorkerPool(tuning=self.tuning) as pool:
                    self.rebuild(progress, pool=pool)
            except Exception as exc:
                why = failures.reason(exc, self.index.directory)
                self.behind = f"{reason}, and it could not be rebuilt ({why})"
                log.debug("index rebuild failed", exc_info=True)
                return None
            return reason
        with WorkerPool(tuning=self.tuning) as pool:
            flushed = self.flush(pool)
        if flushed:
            return "the search index missed recent changes"
        if seen is not None and self.behind is None:  # checked in full: stamp it for the next opens
            try:
                with self.db.writing() as session:  # the cross-process lock on the index writer
                    # A copied library's files hold the bytes desk recorded under other times:
                    # recorded again, so that the next opens need not hash them.
                    manifest.refresh(self.index.directory)
                    index_queue.stamp(self.index.directory, raw_connection(session), seen)
            except Exception:  # a read-only or busy library: the next open checks in full again
                log.debug("could not stamp the index as current", exc_info=True)
        return None

    def is_current(self) -> bool:
        """Whether the signed stamp says the index agrees with the database now (freshness.py)."""
        try:
            with self.db.reading() as session:
                return freshness.is_current(self.index.directory, raw_connection(session))
        except Exception:  # unreadable stamp, busy database: the full check decides
            log.debug("could not read the index's stamp", exc_info=True)
            return False

    def _signed_meanwhile(self) -> bool:
        """Whether an index that read UNVERIFIED is signed once no writer is between its commit
        and its record (another process's, that very moment): asked under the write lock."""
        try:
            with self.db.writing():
                return self.index.state() is not IndexState.UNVERIFIED
        except Exception:  # a read-only or busy library: leave the verdict as it was
            log.debug("could not take the write lock to look again", exc_info=True)
            return False

    def differences(self) -> list[str]:
        """Every way the index and the database disagree (empty when they agree).

        Every file of the index is read (``disk.verify_files``): an index whose bytes changed is
        reported, and marked so that the next open rebuilds it.
        """
        problems = self._differences()
        if problems:  # the next open checks in full (and repairs), whatever the stamp said
            freshness.forget(self.index.directory)
        return problems

    def _differences(self) -> list[str]:
        state = self.index.state()
        if state is not IndexState.OK:
            if state is IndexState.UNVERIFIED:  # e.g. a read-only library from another user or machine
                return [f"search index: {UNVERIFIED}; desk rebuilds it where it can write the library"]
            if state is not IndexState.CORRUPT:
                return [f"search index: {state.name.lower().replace('_', ' ')}"]
        damaged = (
            ["the search index is damaged (a segment cannot be read)"]
            if state is IndexState.CORRUPT  # an open that trusted its stamp did not read the segments
            else verify_files(self.index.directory)
        )
        if damaged:
            try:
                remove_marker(self.index.directory)
                then = "it is rebuilt from the database when the library next opens (or run `desk reindex`)"
            except OSError:
                then = "run `desk reindex` to rebuild it from the database"
            return [f"search index: {p}" for p in damaged] + [f"search index: {then}"]
        with self.db.reading() as session:
            in_db = {i: r for i, r in session.execute(select(Paper.id, Paper.rev))}
            queued = session.scalar(select(func.count(IndexQueue.paper_id))) or 0
        in_index = self.index.revisions()
        problems: list[str] = []
        missing = sorted(set(in_db) - set(in_index))
        extra = sorted(set(in_index) - set(in_db))
        stale = sorted(i for i in set(in_db) & set(in_index) if in_db[i] != in_index[i])
        for label, ids in (("missing from", missing), ("extra in", extra), ("out of date in", stale)):
            if ids:
                shown = ", ".join(map(str, ids[:10])) + (" …" if len(ids) > 10 else "")
                problems.append(f"search index: {len(ids)} papers {label} the index ({shown})")
        if queued:
            behind = f"; {self.behind}" if self.behind else ""
            problems.append(f"search index: {queued} changes not yet applied{behind}")
        return problems


class _Cancelled(Exception):
    """A merge given up on by the user."""


class PendingFlush:
    """Queued papers whose index segments worker processes are writing (see IndexSync.start_flush)."""

    def __init__(
        self, sync: IndexSync, docs: Sequence[IndexDoc], batch: StagedBatch, merge: Merge = "auto"
    ) -> None:
        self.sync = sync
        self.merge: Merge = merge
        self.revs = {d.id: d.rev for d in docs}
        self.batch = batch

    def finish(self) -> None:
        """Wait for the segments and commit them, unless the papers changed meanwhile.

        Papers not committed here stay queued, for the next flush.
        """
        try:
            staged = self.batch.result()
        except Exception:
            log.warning("index segments could not be written by the workers", exc_info=True)
            return
        with self.sync.db.writing() as session:  # the cross-process lock on the index writer
            ids = list(self.revs)
            revs: dict[int, int] = {}
            conn = raw_connection(session)
            queued = index_queue.queued_among(conn, ids)
            for chunk in index_queue.chunks(ids):
                rows = session.execute(select(Paper.id, Paper.rev).where(Paper.id.in_(chunk))).all()
                revs.update((paper_id, rev) for paper_id, rev in rows)
            if queued != set(ids) or revs != self.revs:
                discard(staged)  # another process indexed or changed some of them: theirs is newer
                return
            self.sync.index.commit_staged(ids, staged, self.merge)
            index_queue.unqueue(conn, ids)
            index_queue.stamp(self.sync.index.directory, conn)

    def abandon(self) -> None:
        """Drop the segments; the papers stay queued and the next flush indexes them."""
        self.batch.abandon()


def queue(session: Session, ids: Iterable[int]) -> None:
    """Mark papers for re-indexing, inside the caller's transaction."""
    from sqlalchemy.dialects.sqlite import insert as sqlite_insert

    rows = [{"paper_id": i} for i in ids]
    if rows:
        session.execute(sqlite_insert(IndexQueue).on_conflict_do_nothing(), rows)
