"""The Library façade: the one entry point the CLI and the window call."""

from __future__ import annotations

import contextlib
import logging
import os
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import func, select

from desk.core.edits import fields as edits
from desk.core.edits import history
from desk.core.library import sorting
from desk.core.library.atlas import Atlas
from desk.core.library.discovery import Discovery
from desk.core.library.duplicates import Duplicates
from desk.core.library.history import History
from desk.core.library.live_filters import LiveFilters
from desk.core.library.quick import QuickLibrary
from desk.core.library.saved_searches import SavedSearches
from desk.core.library.tags import Tags
from desk.core.library.trash import Trash
from desk.core.records.detail import ImportReport, PaperDetail, Stats
from desk.core.records.page import PaperSummary, ResultPage, page_of, with_copies
from desk.core.runtime import privacy
from desk.core.runtime.errors import DeskError
from desk.core.runtime.paths import BACKUP_DIR_NAME, CACHE_DIR_NAME, DATABASE_NAME, INDEX_DIR_NAME
from desk.core.runtime.processes import WorkerPool
from desk.core.runtime.tuning import Tuning
from desk.core.search import SearchIndex, SearchResult
from desk.core.search.index_sync import IndexSync
from desk.core.semantic.encoded import DIR_NAME as ENCODED_DIR_NAME
from desk.core.semantic.encoded import EncodedVectors
from desk.core.semantic.store import DIR_NAME as VECTORS_DIR_NAME
from desk.core.semantic.vectors import SemanticVectors
from desk.core.store import Database, Paper
from desk.core.store.queries import raw_connection
from desk.core.text.control_chars import one_line

if TYPE_CHECKING:
    import numpy as np

    from desk.core.dedup.detector import DedupProgress
    from desk.core.importing import importer
    from desk.core.obsidian import VaultReport
    from desk.core.search.model import Marks

log = logging.getLogger(__name__)
Progress = Callable[[int, int], None]


class Library:
    """A library folder: the database (the truth), its derived search index and semantic vectors.

    Reading, importing, the edits of a paper's own fields, search and upkeep are methods here;
    the rest is in services it is composed of, each in its own module of this package:
    ``tags``, ``saved_searches``, ``history`` (undo, redo), ``trash``, ``duplicates``,
    ``discovery`` (the vectors, related papers, recommendations) and ``atlas`` (the map).
    """

    listing_mended = 0  # how many papers' kept list objects check() found wrong and wrote again

    def __init__(
        self,
        directory: Path,
        progress: Progress | None = None,
        *,
        tuning: Tuning | None = None,
        full_check: bool = False,
        defer_folds: bool = False,
    ) -> None:
        """Open (creating if needed) the library in directory and repair its index.

        ``tuning``: when imports and rebuilds use worker processes (the measured defaults if None).
        ``full_check``: check the index in full even when its stamp says it is current (desk check).
        ``defer_folds``: edits are searchable without folding earlier edits' small index segments
        nor freeing the search caches they replaced; the owner calls fold_edits() when idle (the
        window does).
        """
        self.directory = directory
        self.tuning = tuning
        privacy.keep_private()  # what this process creates from now on is the owner's alone
        privacy.make_folder(directory)
        self.exposure: str | None = privacy.exposure(directory)
        """That this library, made before desk made libraries private, can be read by other
        users: said once (the next opens give None)."""
        self.db = Database(directory / DATABASE_NAME, directory / BACKUP_DIR_NAME)
        self.index = SearchIndex(directory / INDEX_DIR_NAME)
        self._sync = IndexSync(self.db, self.index, tuning)
        self._sync.defer_folds = defer_folds
        self.index.defer_frees = defer_folds
        self._edits_rehearsed = False  # see rehearse_edits
        self.repaired: str | None = self._sync.ensure(progress, trust_stamp=not full_check)
        # Read when first needed, built by ensure_vectors() (after an import, never inside it).
        self.vectors = SemanticVectors(directory / VECTORS_DIR_NAME)
        self.index.semantic = self.vectors
        # The sentence encoder's vectors, fused with LSA's once they cover the library.
        self.encoded = EncodedVectors(directory / ENCODED_DIR_NAME)
        self.index.encoded = self.encoded
        self.live_filters = LiveFilters(self.db)
        """What answers tag: and is: filters for this library's searches (kept until the database changes)."""
        self.tags = Tags(self.db, self._sync)
        self.saved_searches = SavedSearches(self.db)
        self.history = History(self.db, self._sync)
        self.trash = Trash(self.db, self._sync)
        self.duplicates = Duplicates(self.db, self._sync, directory / CACHE_DIR_NAME)
        self.discovery = Discovery(
            self.db,
            directory,
            self.index,
            self.vectors,
            self.encoded,
            self.tags,
            self._page,
            self.duplicates.copies,
        )
        self.atlas = Atlas(self.db, directory / CACHE_DIR_NAME, self.discovery)
        self.live_filters.clusters = self.atlas.members
        self.live_filters.nearby = self.atlas.nearest

    @property
    def index_behind(self) -> str | None:
        """Why the search index is behind the database (it could not be written), or None.

        The database has every committed change; searches see them once the index catches up
        (at the next change or open that can write it).
        """
        return self._sync.behind

    # -- lifecycle ---------------------------------------------------------------------------
    def close(self) -> None:
        """Close the index and the database (saving the near-duplicate cache and folding what
        edits left unfolded)."""
        self.duplicates.save()
        self._sync.fold_edits()
        self.index.close()
        self.db.close()

    def __enter__(self) -> Library:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def fold_edits(self) -> int:
        """Fold the small index segments that edits left unfolded (``defer_folds``) and free the
        search caches they replaced: for an idle moment. Returns how many papers were written
        again; 0 at once when no edit left any."""
        self.index.release_retired()
        return self._sync.fold_edits()

    # -- reading -----------------------------------------------------------------------------

    def data_version(self) -> int:
        """Changes whenever another connection or process committed to the database (cheap to ask)."""
        return self.db.data_version()

    def count(self) -> int:
        """How many papers the library holds."""
        with self.db.reading() as session:
            return session.scalar(select(func.count(Paper.id))) or 0

    def paper_ids(self, *, starred: bool = False, sort: str = "relevance") -> list[int]:
        """Every paper id (or every starred one), in import order or the sort's (sorting.SORTS)."""
        with self.db.reading() as session:
            ids = sorting.ordered_ids(session, sort)
            if starred:
                flagged = set(session.scalars(select(Paper.id).where(Paper.starred.is_(True))))
                ids = [i for i in ids if i in flagged]
            return ids

    def summaries(self, ids: Sequence[int]) -> dict[int, PaperSummary]:
        """Row records for the given ids (ids that do not exist are left out).

        Read with plain SQL on the session's own connection, inside its transaction: every
        search's page of 50 rows goes through here, and building ORM objects for them cost
        a sixth of a search at 10k (the records are the same; tests/core/library/test_quick.py).
        """
        with self.db.reading() as session:
            rows = QuickLibrary(raw_connection(session)).summaries(ids)
        counts = self.duplicates.copies().count
        return with_copies(rows, counts) if counts else rows

    def list_papers(self, *, starred: bool = False, sort: str = "relevance") -> list[PaperSummary]:
        """Every paper (or every starred one), in import order or the sort's (sorting.SORTS)."""
        with self.db.reading() as session:
            papers = QuickLibrary(raw_connection(session)).list_papers(starred=starred)
            if sort != "relevance":
                place = {i: n for n, i in enumerate(sorting.ordered_ids(session, sort))}
                papers.sort(key=lambda p: place.get(p.id, len(place)))
            return papers

    def paper(self, paper_id: int) -> PaperDetail:
        """One paper in full; raises PaperNotFound."""
        return self.papers([paper_id])[0]

    def papers(self, ids: Sequence[int]) -> list[PaperDetail]:
        """Several papers in full, in the order asked; raises PaperNotFound for a missing id."""
        with self.db.reading() as session:
            papers = QuickLibrary(raw_connection(session)).papers(ids)
        counts = self.duplicates.copies().count
        return [replace(p, copies=counts[p.id]) if p.id in counts else p for p in papers]

    def stats(self) -> Stats:
        """Counts over the whole library."""
        with self.db.reading() as session:
            return QuickLibrary(raw_connection(session)).stats()

    # -- writing -----------------------------------------------------------------------------
    def import_paths(
        self,
        paths: Iterable[Path],
        progress: importer.ImportProgress | None = None,
        cancelled: Callable[[], bool] | None = None,
        dedup_progress: DedupProgress | None = None,
        merge_progress: Callable[[int, int], None] | None = None,
        workers: WorkerPool | None = None,
    ) -> ImportReport:
        """Import files and folders; each file is one transaction, indexed once stored.

        A big file is analysed and indexed on worker processes (both cores). ``dedup_progress``
        hears how finding the new papers' near-duplicates goes, after the last file;
        ``merge_progress`` how merging the index's segments goes, after that. ``workers``: a
        pool the caller started (and closes) before this library was opened, so that its
        workers start up meanwhile; None: one of this import's own.
        """
        from desk.core.importing import importer
        from desk.core.importing.indexing import ImportIndexing
        from desk.core.search.staging import write_segment

        own = WorkerPool(tuning=self.tuning) if workers is None else contextlib.nullcontext(workers)
        with own as pool:
            follow_up = ImportIndexing(self._sync, self.duplicates.finder, pool)
            try:
                report = importer.import_paths(
                    self.db,
                    paths,
                    progress=progress,
                    cancelled=cancelled,
                    before_store=follow_up.analysed,
                    after_file=follow_up,
                    pool=pool,
                    preload=(write_segment.__module__,),
                )
                follow_up.write_waiting()
                follow_up.add_hashes()
                found = 0  # near-duplicates checked here while the workers write the last segments
                if report.new_ids:
                    found = self.duplicates.finder.offered(
                        report.new_ids, self.duplicates.distinct_pairs(), pool, dedup_progress
                    )
                follow_up.finish(merge_progress, cancelled)
            finally:
                follow_up.abandon()  # after an error: the papers stay queued for the next flush
        return replace(report, near_duplicates=found)

    def _edit(self, ids: Sequence[int], field: str, value: object, group: str | None = None) -> list[int]:
        """Set a field on papers in one transaction, as one undo step; re-index those that changed.

        Saves with the same ``group`` (a note's editing session) extend the newest step while it
        is that session's, so one session of typing is one step.
        """
        self._edits_rehearsed = True  # a rehearsal after a real edit would compile nothing new
        with self.db.writing() as session:
            changes = edits.record(session, ids, field, value, group)
        if changes:
            self._sync.flush()
        return [c[0] for c in changes]

    def rehearse_edits(self) -> bool:
        """Ready the edit path before a user's first edit, for a quiet moment after the window
        shows its first results (on its worker thread, never the UI's).

        The first edit of a process paid for SQLAlchemy compiling its statements and for the
        index writer's first use (its modules, each segment's id column): it was the slowest
        note → searchable. Here a note save, a star and a read mark are made and rolled back
        (``Database.rehearsing``: nothing is written, no other process waited for) with the
        statements of the flush that follows them, and the writer's path is read, not written.
        Once per library, and not after an edit (which did it). Returns whether it ran.
        """
        if self._edits_rehearsed:
            return False
        self._edits_rehearsed = True
        try:
            with self.db.rehearsing() as session:
                queued = edits.rehearse(session)
                self._sync.rehearse_flush(session, queued)
        except DeskError:  # busy, read-only, damaged: the first edit compiles them itself
            log.debug("could not rehearse an edit", exc_info=True)
            return False
        except Exception:  # a speed-up only: never a failure the window shows
            log.warning("could not rehearse an edit", exc_info=True)
            return False
        self.index.ready_writer()
        return True

    def set_starred(self, ids: Sequence[int], starred: bool) -> list[int]:
        """Star or unstar papers (one undo step); returns the ids that changed."""
        return self._edit(ids, "starred", starred)

    def set_read(self, ids: Sequence[int], read: bool) -> list[int]:
        """Mark papers read or unread (one undo step); returns the ids that changed."""
        return self._edit(ids, "read", read)

    def set_note(self, paper_id: int, note: str, session: str | None = None) -> bool:
        """Replace a paper's note ("" clears it); True when it changed.

        ``session`` (from begin_note_session) makes every save of one editing session one undo
        step; without it each call is a step of its own.
        """
        return bool(self._edit([paper_id], "note", note, session))

    def set_title(self, paper_id: int, title: str | None) -> bool:
        """Set the title a user prefers (one undo step); empty or None goes back to the derived title.

        The title is one line with no control character (``control_chars.one_line``): it is
        printed on every line of ``desk list`` and on the window's rows."""
        clean = one_line(title or "") or None
        return bool(self._edit([paper_id], "user_title", clean))

    def mark_opened(self, paper_id: int) -> bool:
        """Opening a paper (the window, after a moment) marks it read; True when it was unread.

        Not a step of the undo history: it is no decision of the user's (mail clients do not
        undo it either), and Ctrl+Z right after a star must take back the star, not this.
        Undoing an earlier `r` leaves it alone (it holds no longer what that change left).
        """
        with self.db.writing() as session:
            return bool(edits.set_value(session, [paper_id], "read", True))

    def begin_note_session(self, paper_id: int) -> str:
        """A token for one editing session of a note: pass it to every set_note of the session.

        All the saves of a session are one undo step (while no other change comes between).
        """
        return f"note:{paper_id}:{os.urandom(6).hex()}"

    def end_note_session(self, token: str) -> None:
        """Close a note's editing session: the next save, even with this token, is a new step."""
        with self.db.writing() as session:
            step = history.newest_in_group(session, token)
            if step is not None:
                step.group_key = None

    # -- search ------------------------------------------------------------------------------
    def _page(self, result: SearchResult) -> ResultPage:
        return page_of(result, self.summaries([h.id for h in result.hits]))

    def search(
        self, query: str, limit: int = 50, offset: int = 0, sort: str = "relevance", *, typing: bool = False
    ) -> ResultPage:
        """Ranked hits for a query in desk's query language; never raises on a bad query.

        ``typing=True`` for search as you type: the last word is unfinished and never corrected.
        A query whose complete part is empty ("title:", an open quote) gives ``no_new_query``.
        ``sort`` is one of sorting.SORTS (relevance, collection, recent, starred, title);
        ``tag:`` filters are answered by the database, so a tag is searchable once committed.
        """
        return self._page(self.search_ids(query, limit, offset, sort, typing=typing))

    def search_ids(
        self,
        query: str,
        limit: int = 50,
        offset: int = 0,
        sort: str = "relevance",
        *,
        typing: bool = False,
        recommend_for: str | None = None,
    ) -> SearchResult:
        """The raw hits (ids, snippets) in the sort's order without loading the papers: for lazy lists.

        ``sort`` may also be ``"recommended"``: the unread papers ``recommend`` would offer first,
        best first (for the tag ``recommend_for`` when given), then the others by relevance.
        """
        if sort == sorting.RECOMMENDED:
            scores, _why = self.discovery.recommend_scores(recommend_for)
            order: Callable[[np.ndarray], Sequence[int]] | None = partial(sorting.by_score, scores=scores)
        else:
            order = None if sorting.check(sort) == "relevance" else self._order(sort)
        return self.index.search(
            query,
            limit=limit,
            offset=offset,
            typing=typing,
            tags=self.live_filters,
            order=order,
            hidden=self.duplicates.copies().hidden_for,
        )

    def _order(self, sort: str) -> Callable[[np.ndarray], Sequence[int]]:
        def order(ranked_ids: np.ndarray) -> Sequence[int]:
            with self.db.reading() as session:
                return sorting.positions(session, sort, ranked_ids)

        return order

    def marks_in(self, marks: Marks, texts: Sequence[str]) -> list[tuple[tuple[int, int], ...]]:
        """Where a search's words (and phrases) stand in each text, as (start, end) code points.

        For the titles, short names and abstracts the window shows beside a result's snippet.
        """
        from desk.core.search.snippets import Highlighter

        highlighter = Highlighter.of(marks)
        return [highlighter.spans(text) if text else () for text in texts]

    # -- export ------------------------------------------------------------------------------
    def export_markdown(self, ids: Sequence[int], *, what: str) -> str:
        """Markdown for the given papers, headed by what was exported and when."""
        from desk.core import export

        return export.to_markdown(self.papers(ids), what=what, when=datetime.now(UTC))

    def export_as(self, ids: Sequence[int], *, fmt: str, what: str) -> str:
        """The given papers in ``fmt``: markdown, bibtex, csv or json (desk.core.export.FORMATS)."""
        from desk.core import export

        if fmt == "markdown":
            return self.export_markdown(ids, what=what)
        papers = self.papers(ids)
        writers = {"bibtex": export.to_bibtex, "csv": export.to_csv, "json": export.to_json}
        return writers[fmt](papers)

    def export_obsidian(self, ids: Sequence[int], folder: Path) -> VaultReport:
        """One Obsidian note per paper in ``folder`` (desk.core.obsidian): a re-export rewrites desk's
        part of each and keeps what the user wrote below its marker line."""
        from desk.core.obsidian import export_vault

        return export_vault(self.papers(ids), folder)

    # -- maintenance -------------------------------------------------------------------------
    def reindex(self, progress: Progress | None = None, cancelled: Callable[[], bool] | None = None) -> None:
        """Rebuild the search index from the database (on worker processes when it is big)."""
        with WorkerPool(tuning=self.tuning) as pool:
            self._sync.rebuild(progress, cancelled, pool)

    def complete_index_elsewhere(self, cancel: threading.Event | None = None) -> int:
        """Give the index's segments an older desk wrote their flat postings (searches read those
        several times faster), in a process of its own; how many segments gained them.

        For the window, off its UI thread, after it opened; ``cancel`` stops it."""
        return self.index.complete_flat_postings(cancel)

    def check(self) -> list[str]:
        """Problems in the database, between it and the index, or in the vectors (empty: all is well).

        The vectors are brought up to date first (rebuilt when damaged: see ``vectors_repaired``),
        and so are the papers' kept `desk list --json` objects (``listing_mended``: how many
        disagreed with their rows and were written again).
        """
        problems = self.db.integrity_problems()
        self.listing_mended = 0 if problems else self.db.mend_listing()
        return problems + self._sync.differences() + self.discovery.check_vectors()

    def backup(self, dest: Path | None = None, *, force: bool = False) -> Path:
        """An online copy of the database (the index is rebuilt from it on restore).

        A damaged database is refused unless ``force`` (its copy would be damaged too).
        """
        if dest is None:
            stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
            dest = self.directory / BACKUP_DIR_NAME / f"desk-backup-{stamp}.sqlite3"
        self.db.backup_to(dest, force=force)
        return dest
