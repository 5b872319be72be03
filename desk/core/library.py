"""The Library façade: the one entry point the CLI and the window call."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy import func, select
from sqlalchemy.orm import selectinload

from desk.core import export, importer, merging
from desk.core.analysis import Analysed
from desk.core.db import Database, Paper, Source
from desk.core.db.queries import load_papers, require_papers
from desk.core.dedup import Candidate
from desk.core.duplicates import CACHE_FILE_NAME, DuplicateFinder, Hashing
from desk.core.index_sync import IndexSync, PendingFlush, queue
from desk.core.paths import BACKUP_DIR_NAME, CACHE_DIR_NAME, DATABASE_NAME, INDEX_DIR_NAME
from desk.core.records import (
    ImportReport,
    PaperDetail,
    PaperSummary,
    ResultPage,
    ResultRow,
    SourceInfo,
    Stats,
)
from desk.core.search import SearchIndex, SearchResult
from desk.core.search.staging import write_segment
from desk.core.workers import WorkerPool

Progress = Callable[[int, int], None]


def _sources(paper: Paper) -> tuple[SourceInfo, ...]:
    return tuple(SourceInfo(s.file, s.index, s.collection) for s in paper.sources)


def summary_of(paper: Paper) -> PaperSummary:
    """The list-row record of a paper."""
    return PaperSummary(
        id=paper.id,
        title=paper.title,
        short_name=paper.short_name,
        starred=paper.starred,
        read=paper.read,
        has_note=bool(paper.note.strip()),
        sources=_sources(paper),
    )


def detail_of(paper: Paper) -> PaperDetail:
    """The full record of a paper."""
    s = summary_of(paper)
    return PaperDetail(
        **{f: getattr(s, f) for f in s.__dataclass_fields__},
        abstract=paper.abstract,
        abstract_raw=paper.abstract_raw,
        note=paper.note,
        derived_title=paper.derived_title,
        user_title=paper.user_title,
        created_at=paper.created_at,
        updated_at=paper.updated_at,
    )


class _IndexAsStored:
    """Told about each file of an import: once analysed, its abstracts are hashed for
    near-duplicates on the workers while it is stored; once stored, its index segments are
    written on the workers while the next file is stored, and the previous file's committed."""

    def __init__(self, sync: IndexSync, dupes: DuplicateFinder, pool: WorkerPool) -> None:
        self.sync, self.dupes, self.pool = sync, dupes, pool
        self.pending: list[PendingFlush] = []
        self.current: Hashing | None = None  # the file being stored
        self.hashing: list[tuple[Hashing, list[int], list[int]]] = []

    def analysed(self, items: Sequence[Analysed]) -> None:
        """A file is analysed and about to be stored: start hashing its abstracts."""
        self.current = self.dupes.start_hashing([a.readable for a in items], self.pool)

    def __call__(self, outcome: importer.FileOutcome) -> None:
        if self.current is not None and outcome.added_ids:
            self.hashing.append((self.current, outcome.added_ids, outcome.added_rows))
        self.current = None
        if self.pending:
            self.pending.pop().finish()
        started = self.sync.start_flush(self.pool)
        if started is not None:
            self.pending.append(started)

    def add_hashes(self) -> None:
        """Give the near-duplicate finder the hashes the workers computed (waits for them)."""
        self.dupes.add_hashed(self.hashing)
        self.hashing = []

    def finish(self) -> None:
        """Commit the last file's segments and index what is left."""
        while self.pending:
            self.pending.pop().finish()
        self.sync.flush(self.pool)  # merged papers' new sources, a batch that failed

    def abandon(self) -> None:
        """Drop segments not committed (their papers stay queued)."""
        while self.pending:
            self.pending.pop().abandon()


class Library:
    """A library folder: the database (the truth) and its derived search index."""

    def __init__(self, directory: Path, progress: Progress | None = None) -> None:
        """Open (creating if needed) the library in directory and repair its index."""
        self.directory = directory
        directory.mkdir(parents=True, exist_ok=True)
        self.db = Database(directory / DATABASE_NAME, directory / BACKUP_DIR_NAME)
        self.index = SearchIndex(directory / INDEX_DIR_NAME)
        self._sync = IndexSync(self.db, self.index)
        self._dupes = DuplicateFinder(self.db, directory / CACHE_DIR_NAME / CACHE_FILE_NAME)
        self.repaired: str | None = self._sync.ensure(progress)

    @property
    def index_behind(self) -> str | None:
        """Why the search index is behind the database (it could not be written), or None.

        The database has every committed change; searches see them once the index catches up
        (at the next change or open that can write it).
        """
        return self._sync.behind

    # -- lifecycle ---------------------------------------------------------------------------
    def close(self) -> None:
        """Close the index and the database (saving the near-duplicate cache)."""
        self._dupes.save()
        self.index.close()
        self.db.close()

    def __enter__(self) -> Library:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- reading -----------------------------------------------------------------------------

    def data_version(self) -> int:
        """Changes whenever another connection or process committed to the database (cheap to ask)."""
        return self.db.data_version()

    def count(self) -> int:
        """How many papers the library holds."""
        with self.db.reading() as session:
            return session.scalar(select(func.count(Paper.id))) or 0

    def paper_ids(self, *, starred: bool = False) -> list[int]:
        """Every paper id (or every starred one), in import order."""
        stmt = select(Paper.id).order_by(Paper.id)
        if starred:
            stmt = stmt.where(Paper.starred.is_(True))
        with self.db.reading() as session:
            return list(session.scalars(stmt))

    def summaries(self, ids: Sequence[int]) -> dict[int, PaperSummary]:
        """Row records for the given ids (ids that do not exist are left out)."""
        with self.db.reading() as session:
            return {i: summary_of(p) for i, p in load_papers(session, ids).items()}

    def list_papers(self, *, starred: bool = False) -> list[PaperSummary]:
        """Every paper (or every starred one), in import order."""
        stmt = select(Paper).order_by(Paper.id).options(selectinload(Paper.sources))
        if starred:
            stmt = stmt.where(Paper.starred.is_(True))
        with self.db.reading() as session:
            return [summary_of(p) for p in session.scalars(stmt)]

    def paper(self, paper_id: int) -> PaperDetail:
        """One paper in full; raises PaperNotFound."""
        return self.papers([paper_id])[0]

    def papers(self, ids: Sequence[int]) -> list[PaperDetail]:
        """Several papers in full, in the order asked; raises PaperNotFound for a missing id."""
        with self.db.reading() as session:
            found = require_papers(session, ids)
            return [detail_of(found[i]) for i in ids]

    def stats(self) -> Stats:
        """Counts over the whole library."""
        with self.db.reading() as session:
            papers = session.scalar(select(func.count(Paper.id))) or 0
            starred = session.scalar(select(func.count()).where(Paper.starred.is_(True))) or 0
            read = session.scalar(select(func.count()).where(Paper.read.is_(True))) or 0
            notes = session.scalar(select(func.count()).where(func.trim(Paper.note) != "")) or 0
            sources = session.scalar(select(func.count(Source.id))) or 0
            per = session.execute(
                select(Source.collection, func.count(func.distinct(Source.paper_id)))
                .group_by(Source.collection)
                .order_by(Source.collection)
            )
            return Stats(papers, sources, starred, read, notes, {c: n for c, n in per})

    # -- writing -----------------------------------------------------------------------------
    def import_paths(
        self,
        paths: Iterable[Path],
        progress: importer.ImportProgress | None = None,
        cancelled: Callable[[], bool] | None = None,
    ) -> ImportReport:
        """Import files and folders; each file is one transaction, indexed once stored.

        A big file is analysed and indexed on worker processes (both cores).
        """
        with WorkerPool() as pool:
            indexing = _IndexAsStored(self._sync, self._dupes, pool)
            try:
                report = importer.import_paths(
                    self.db,
                    paths,
                    progress=progress,
                    cancelled=cancelled,
                    before_store=indexing.analysed,
                    after_file=indexing,
                    pool=pool,
                    preload=(write_segment.__module__,),
                )
                indexing.add_hashes()
                found = 0  # near-duplicates checked here while the workers write the last segments
                if report.new_ids:
                    found = self._dupes.offered(report.new_ids, self.distinct_pairs(), pool)
                indexing.finish()
            finally:
                indexing.abandon()  # after an error: the papers stay queued for the next flush
        return replace(report, near_duplicates=found)

    def _change(self, ids: Sequence[int], apply: Callable[[Paper], bool]) -> list[int]:
        """Apply a change to papers in one transaction; re-index those that changed."""
        changed: list[int] = []
        with self.db.writing() as session:
            found = require_papers(session, ids)
            for i in dict.fromkeys(ids):
                if apply(found[i]):
                    found[i].touch()
                    changed.append(i)
            queue(session, changed)
        if changed:
            self._sync.flush()
        return changed

    def set_starred(self, ids: Sequence[int], starred: bool) -> list[int]:
        """Star or unstar papers; returns the ids that changed."""
        return self._change(ids, lambda p: _set(p, "starred", starred))

    def set_read(self, ids: Sequence[int], read: bool) -> list[int]:
        """Mark papers read or unread; returns the ids that changed."""
        return self._change(ids, lambda p: _set(p, "read", read))

    def set_note(self, paper_id: int, note: str) -> bool:
        """Replace a paper's note ("" clears it); True when it changed."""
        return bool(self._change([paper_id], lambda p: _set(p, "note", note)))

    def set_title(self, paper_id: int, title: str | None) -> bool:
        """Set the title a user prefers; empty or None goes back to the derived title."""
        clean = " ".join((title or "").split()) or None
        return bool(self._change([paper_id], lambda p: _set(p, "user_title", clean)))

    # -- search ------------------------------------------------------------------------------
    def _page(self, result: SearchResult) -> ResultPage:
        rows = self.summaries([h.id for h in result.hits])
        return ResultPage(
            query=result.query,
            total=result.total,
            took_ms=result.took_ms,
            suggestion=result.suggestion,
            corrected=result.corrected,
            terms=result.terms,
            message=result.message,
            hint=result.hint,
            no_new_query=result.no_new_query,
            rows=tuple(
                ResultRow(rows[h.id], h.score, h.snippet, h.highlights) for h in result.hits if h.id in rows
            ),
        )

    def search(self, query: str, limit: int = 50, offset: int = 0, *, typing: bool = False) -> ResultPage:
        """Ranked hits for a query in desk's query language; never raises on a bad query.

        ``typing=True`` for search as you type: the last word is unfinished and never corrected.
        A query whose complete part is empty ("title:", an open quote) gives ``no_new_query``.
        """
        return self._page(self.index.search(query, limit=limit, offset=offset, typing=typing))

    def search_ids(
        self, query: str, limit: int = 50, offset: int = 0, *, typing: bool = False
    ) -> SearchResult:
        """The raw ranked hits (ids, snippets) without loading the papers: for lazy lists."""
        return self.index.search(query, limit=limit, offset=offset, typing=typing)

    def related(self, paper_id: int, limit: int = 10) -> ResultPage:
        """Papers most like the given one."""
        self.paper(paper_id)
        return self._page(self.index.related(paper_id, limit=limit))

    # -- duplicates --------------------------------------------------------------------------
    def near_duplicates(self) -> list[Candidate]:
        """Groups of papers that look like one paper, best first, minus pairs ruled out."""
        return self._dupes.groups(self.distinct_pairs())

    def merge(self, keep_id: int, other_ids: Sequence[int]) -> None:
        """Fold other papers into keep (sources kept, star/read OR-ed, notes joined); undo with unmerge."""
        with self.db.writing() as session:
            merging.merge(session, keep_id, other_ids)
        self._sync.flush()

    def unmerge(self, paper_id: int) -> list[int]:
        """Undo the latest merge paper_id took part in; returns the ids brought back."""
        with self.db.writing() as session:
            restored = merging.unmerge(session, paper_id)
        self._sync.flush()
        return restored

    def mark_distinct(self, a: int, b: int) -> None:
        """Remember that two papers are not duplicates; they are never offered again."""
        with self.db.writing() as session:
            merging.mark_distinct(session, a, b)

    def distinct_pairs(self) -> set[tuple[int, int]]:
        """Every (a, b) pair, a < b, a user said is not a duplicate."""
        with self.db.reading() as session:
            return merging.distinct_pairs(session)

    # -- export ------------------------------------------------------------------------------
    def export_markdown(self, ids: Sequence[int], *, what: str) -> str:
        """Markdown for the given papers, headed by what was exported and when."""
        return export.to_markdown(self.papers(ids), what=what, when=datetime.now(UTC))

    # -- maintenance -------------------------------------------------------------------------
    def reindex(self, progress: Progress | None = None, cancelled: Callable[[], bool] | None = None) -> None:
        """Rebuild the search index from the database (on worker processes when it is big)."""
        with WorkerPool() as pool:
            self._sync.rebuild(progress, cancelled, pool)

    def check(self) -> list[str]:
        """Problems with the database or between it and the index (empty when all is well)."""
        return self.db.integrity_problems() + self._sync.differences()

    def backup(self, dest: Path | None = None, *, force: bool = False) -> Path:
        """An online copy of the database (the index is rebuilt from it on restore).

        A damaged database is refused unless ``force`` (its copy would be damaged too).
        """
        if dest is None:
            stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
            dest = self.directory / BACKUP_DIR_NAME / f"desk-backup-{stamp}.sqlite3"
        self.db.backup_to(dest, force=force)
        return dest


def _set(paper: Paper, attr: str, value: object) -> bool:
    if getattr(paper, attr) == value:
        return False
    setattr(paper, attr, value)
    return True
