"""Import list files into the database: one transaction per file, exact duplicates merged."""

from __future__ import annotations

import contextlib
import logging
import sqlite3
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Future
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy.orm import Session

from desk.core.reader import ParsedList, ReadError, find_list_files, read_list_file
from desk.core.records.detail import ImportFileError, ImportReport
from desk.core.runtime import failures
from desk.core.runtime.errors import DiskFull, LibraryBusy, LibraryDamaged, LibraryReadOnly
from desk.core.runtime.paths import shown_name
from desk.core.runtime.processes import WorkerPool
from desk.core.store import Database, Paper, listing
from desk.core.store.models import utcnow
from desk.core.text.analysis import Analysed, analyse_many

# progress(done_files, total_files, current_file_name)
ImportProgress = Callable[[int, int, str], None]


class PendingAnalysis:
    """The analysis of one file's abstracts, started on the pool's workers (or done here, when small)."""

    def __init__(self, abstracts: Sequence[str], pool: WorkerPool | None = None) -> None:
        self._abstracts = abstracts
        if pool is None or not pool.parallel or len(abstracts) < pool.tuning.analyse_on_workers_from:
            self._done: list[Analysed] | None = analyse_many(abstracts)
            self._jobs: list[Future[list[Analysed]]] = []
        else:
            self._done = None
            size = pool.tuning.analyse_part
            parts = [abstracts[i : i + size] for i in range(0, len(abstracts), size)]
            self._jobs = [pool.submit(analyse_many, part) for part in parts]

    def result(self) -> list[Analysed]:
        """Every abstract's analysis, in order (waits for the workers)."""
        if self._done is None:
            try:
                self._done = [item for job in self._jobs for item in job.result()]
            except BrokenProcessPool:  # a worker died (killed, out of memory): do it here
                self._done = analyse_many(self._abstracts)
        return self._done

    def cancel(self) -> None:
        """Drop the jobs not started yet."""
        for job in self._jobs:
            job.cancel()


def _skipped_paragraphs(parsed: ParsedList) -> list[ImportFileError]:
    """The paragraphs the reader left out of a file that was imported (too long to be an abstract)."""
    return [
        ImportFileError(parsed.name, f"{why}; it was skipped, the file's other abstracts imported", number)
        for number, why in parsed.skipped
    ]


@dataclass
class FileOutcome:
    """What importing one parsed file did."""

    paragraphs: int
    added_ids: list[int] = field(default_factory=list)
    added_rows: list[int] = field(default_factory=list)  # positions in the file of added_ids' abstracts
    merged: int = 0
    already_imported: bool = False


def _existing_ids(cur: sqlite3.Cursor, keys: Sequence[str]) -> dict[str, int]:
    found: dict[str, int] = {}
    unique = list(dict.fromkeys(keys))
    for start in range(0, len(unique), 500):
        chunk = unique[start : start + 500]
        marks = ", ".join("?" * len(chunk))
        found.update(cur.execute(f"SELECT key, id FROM paper WHERE key IN ({marks})", chunk))
        # Text of a paper merged into another lands on the kept paper.
        found.update(cur.execute(f"SELECT key, paper_id FROM key_alias WHERE key IN ({marks})", chunk))
    return found


_PAPER_COLUMNS = (
    "key", "abstract_raw", "abstract", "derived_title", "short_name", "starred", "read", "note", "rev",
    "created_at", "updated_at",
)  # fmt: skip
_SOURCE_COLUMNS = ("paper_id", "file", "index", "collection", "import_id")
_RECORD_COLUMNS = (
    "sha256", "file", "path", "collection", "encoding", "paragraphs", "added", "merged", "imported_at",
)  # fmt: skip


def _as_stored(session: Session, column: Any, value: object) -> object:
    """``value`` as the column's type hands it to the driver (a datetime as SQLite's text)."""
    dialect = session.get_bind().dialect
    process = column.type.dialect_impl(dialect).bind_processor(dialect)
    return process(value) if process else value


def _insert_sql(table: str, columns: Sequence[str], prefix: str = "") -> str:
    names = ", ".join(f'"{c}"' for c in columns)
    return f"INSERT {prefix} INTO {table} ({names}) VALUES ({', '.join('?' * len(columns))})"


def _driver_cursor(session: Session) -> sqlite3.Cursor:
    """A cursor on the session's own connection, inside its transaction (BEGIN IMMEDIATE is issued)."""
    driver = session.connection().connection.driver_connection
    assert isinstance(driver, sqlite3.Connection)
    return driver.cursor()


def store_parsed(db: Database, parsed: ParsedList, analysed: Sequence[Analysed]) -> FileOutcome:
    """Write one parsed file in a single transaction; a file already imported adds nothing.

    Every statement goes straight to the driver (plain SQL on the session's connection): the
    ORM's per-statement work was most of a one-abstract file's import (a folder of 200).
    """
    outcome = FileOutcome(paragraphs=len(parsed.abstracts))
    with db.writing() as session:
        cur = _driver_cursor(session)
        if cur.execute("SELECT id FROM import_record WHERE sha256 = ?", (parsed.sha256,)).fetchone():
            outcome.already_imported = True
            return outcome
        now = _as_stored(session, Paper.__table__.c.created_at, utcnow())
        record = (parsed.sha256, parsed.name, shown_name(str(parsed.path)), parsed.collection)
        cur.execute(
            _insert_sql("import_record", _RECORD_COLUMNS),
            (*record, parsed.encoding, len(parsed.abstracts), 0, 0, now),
        )
        record_id = cur.lastrowid
        ids = _existing_ids(cur, [a.key for a in analysed])
        existing_sources = set(
            cur.execute('SELECT paper_id, "index" FROM source WHERE file = ?', (parsed.name,))
        )
        # New papers first, in one executemany (a flush per paper is 3× slower).
        fresh: dict[str, Analysed] = {}
        first_row: dict[str, int] = {}
        for row, item in enumerate(analysed):
            if item.key not in ids and item.key not in fresh:
                fresh[item.key] = item
                first_row[item.key] = row
        listing.defer(cur)  # the listing's objects of what this file adds: written once, below
        if fresh:
            rows = [
                (i.key, i.raw, i.readable, i.title, i.short_name, False, False, "", 1, now, now)
                for i in fresh.values()
            ]
            # A plain executemany, then the new ids read back: INSERT … RETURNING for thousands
            # of rows spent more time splicing result batches than inserting (1.7 of 4 s at 5k).
            # The write transaction is exclusive, so every id above the old maximum is ours.
            before = cur.execute("SELECT max(id) FROM paper").fetchone()[0] or 0
            cur.executemany(_insert_sql("paper", _PAPER_COLUMNS), rows)
            for paper_id, key in cur.execute("SELECT id, key FROM paper WHERE id > ? ORDER BY id", (before,)):
                ids[key] = paper_id
                outcome.added_ids.append(paper_id)
                outcome.added_rows.append(first_row[key])
        sources: list[tuple[object, ...]] = []
        touched: set[int] = set()
        for index, item in enumerate(analysed):
            paper_id = ids[item.key]
            if item.key in fresh:
                del fresh[item.key]  # its first occurrence; a repeat in the file is a merge
            else:
                outcome.merged += 1
                touched.add(paper_id)
            if (paper_id, index) in existing_sources:
                continue
            existing_sources.add((paper_id, index))
            sources.append((paper_id, parsed.name, index, parsed.collection, record_id))
        if sources:
            cur.executemany(_insert_sql("source", _SOURCE_COLUMNS), sources)
        touched -= set(outcome.added_ids)
        # A new source changes what the index holds for the paper: its revision goes up (Paper.touch).
        cur.executemany(
            "UPDATE paper SET rev = coalesce(rev, 0) + 1, updated_at = ? WHERE id = ?",
            [(now, paper_id) for paper_id in sorted(touched)],
        )
        queued = [*outcome.added_ids, *touched]
        listing.write_deferred(cur, queued)
        if queued:
            cur.executemany(_insert_sql("index_queue", ("paper_id",), "OR IGNORE"), [(i,) for i in queued])
        cur.execute(
            "UPDATE import_record SET added = ?, merged = ? WHERE id = ?",
            (len(outcome.added_ids), outcome.merged, record_id),
        )
    return outcome


log = logging.getLogger(__name__)
STOPS_AN_IMPORT = (DiskFull, LibraryReadOnly, LibraryDamaged, LibraryBusy)


def _total_size(files: Sequence[Path]) -> int:
    total = 0
    for path in files:
        with contextlib.suppress(OSError):  # reported when it is read
            total += path.stat().st_size
    return total


def _imported_before(db: Database, sha256: str) -> bool:
    with db.reading() as session:
        cur = _driver_cursor(session)
        return cur.execute("SELECT 1 FROM import_record WHERE sha256 = ?", (sha256,)).fetchone() is not None


def import_paths(
    db: Database,
    paths: Iterable[Path],
    *,
    progress: ImportProgress | None = None,
    cancelled: Callable[[], bool] | None = None,
    before_store: Callable[[Sequence[Analysed]], None] | None = None,
    after_file: Callable[[FileOutcome], None] | None = None,
    pool: WorkerPool | None = None,
    preload: Sequence[str] = (),
) -> ImportReport:
    """Import files and folders of `.txt` lists; bad files are reported and skipped.

    Big files are analysed on ``pool``'s worker processes when one is given. ``before_store``
    gets each file's analysis before it is stored, ``after_file`` what storing it did; the
    workers load the modules ``preload`` names once the first file is analysed.
    """
    files = list(find_list_files(paths))
    if pool is not None and _total_size(files) >= pool.tuning.start_workers_from_bytes:
        pool.start()  # they start up (≈0.5 s) while the first file is read
    errors: list[ImportFileError] = []
    paragraphs = added = merged = already = 0
    new_ids: list[int] = []
    collections: dict[str, None] = {}  # an ordered set
    was_cancelled = False

    def start(path: Path) -> tuple[ParsedList, PendingAnalysis | None] | ImportFileError:
        """Read a file and start analysing it (None: imported before)."""
        try:
            parsed = read_list_file(path)
        except ReadError as exc:
            return ImportFileError(shown_name(path.name), exc.reason)
        if _imported_before(db, parsed.sha256):
            return parsed, None
        return parsed, PendingAnalysis(parsed.abstracts, pool)

    ahead: tuple[ParsedList, PendingAnalysis | None] | ImportFileError | None = None
    read_ahead = pool is not None and pool.parallel
    for done, path in enumerate(files):
        if cancelled is not None and cancelled():
            was_cancelled = True
            break
        if progress is not None:
            progress(done, len(files), shown_name(path.name))
        current = ahead if ahead is not None else start(path)
        if done == 0 and pool is not None and pool.started:
            # While the first file is stored, not when its index is due; not for small files
            # (a folder of one-abstract files): they are indexed here, without workers.
            pool.preload(preload)
        # The next file is read and its analysis queued now, so the workers analyse it while
        # this one is stored (this process) — and then indexed, behind it in their queue.
        ahead = start(files[done + 1]) if read_ahead and done + 1 < len(files) else None
        if isinstance(current, ImportFileError):
            errors.append(current)
            continue
        parsed, analysis = current
        if analysis is None:
            collections.setdefault(parsed.collection)
            paragraphs += len(parsed.abstracts)
            already += 1
            errors += _skipped_paragraphs(parsed)
            continue
        try:
            analysed = analysis.result()
            if before_store is not None:
                before_store(analysed)
            outcome = store_parsed(db, parsed, analysed)
        except Exception as exc:
            plain = failures.translate(exc, db.path)
            if isinstance(plain, STOPS_AN_IMPORT):
                # Every later file would fail the same way: the files before stay imported.
                errors.append(ImportFileError(parsed.name, str(plain)))
                errors += [
                    ImportFileError(shown_name(p.name), "not imported: the import stopped at the error above")
                    for p in files[done + 1 :]
                ]
                break
            if plain is None:
                log.warning("importing %s failed", parsed.name, exc_info=True)
            why = str(plain) if plain is not None else f"could not be imported ({type(exc).__name__}: {exc})"
            errors.append(ImportFileError(parsed.name, why))
            continue
        collections.setdefault(parsed.collection)
        errors += _skipped_paragraphs(parsed)
        paragraphs += outcome.paragraphs
        added += len(outcome.added_ids)
        merged += outcome.merged
        already += outcome.already_imported
        new_ids += outcome.added_ids
        if after_file is not None:
            after_file(outcome)
    if isinstance(ahead, tuple) and ahead[1] is not None:
        ahead[1].cancel()  # cancelled before its turn
    if progress is not None and not was_cancelled:
        progress(len(files), len(files), "")
    return ImportReport(
        files=len(files),
        paragraphs=paragraphs,
        added=added,
        merged=merged,
        already_imported=already,
        errors=tuple(errors),
        cancelled=was_cancelled,
        new_ids=tuple(new_ids),
        collections=tuple(collections),
    )
