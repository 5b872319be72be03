"""Import list files into the database: one transaction per file, exact duplicates merged."""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Callable, Generator, Iterable, Sequence
from concurrent.futures import Future
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy.orm import Session

from desk.core.importing.metadata import exact_ids, with_metadata, write_metadata
from desk.core.reader import Metadata, ParsedList, ReadError, find_list_files, read_list_parts, total_size
from desk.core.reader.entries import NO_METADATA
from desk.core.records.detail import ImportFileError, ImportReport
from desk.core.runtime import failures
from desk.core.runtime.errors import DiskFull, LibraryBusy, LibraryDamaged, LibraryReadOnly
from desk.core.runtime.paths import shown_name
from desk.core.runtime.processes import WorkerPool
from desk.core.store import Database, Paper, listing
from desk.core.store.models import utcnow
from desk.core.text.analysis import Analysed, analyse_many
from desk.core.text.short_names import short_name_of_title

# progress(done_files, total_files, current_file_name)
ImportProgress = Callable[[int, int, str], None]


class PendingAnalysis:
    """The analysis of one file's abstracts, started on the pool's workers (or done here, when small)."""

    def __init__(
        self,
        abstracts: Sequence[str],
        pool: WorkerPool | None = None,
        titles: Sequence[str | None] | None = None,
    ) -> None:
        self._abstracts = abstracts
        self._titles = titles  # a rich list's real titles: none is derived where the list gave one
        if pool is None or not pool.parallel or len(abstracts) < pool.tuning.analyse_on_workers_from:
            self._done: list[Analysed] | None = analyse_many(abstracts, titles)
            self._jobs: list[Future[list[Analysed]]] = []
        else:
            self._done = None
            size = pool.tuning.analyse_part
            self._jobs = [
                pool.submit(analyse_many, abstracts[i : i + size], titles and titles[i : i + size])
                for i in range(0, len(abstracts), size)
            ]

    def result(self) -> list[Analysed]:
        """Every abstract's analysis, in order (waits for the workers)."""
        if self._done is None:
            try:
                self._done = [item for job in self._jobs for item in job.result()]
            except BrokenProcessPool:  # a worker died (killed, out of memory): do it here
                self._done = analyse_many(self._abstracts, self._titles)
        return self._done

    def cancel(self) -> None:
        """Drop the jobs not started yet."""
        for job in self._jobs:
            job.cancel()


def _skipped_paragraphs(parsed: ParsedList) -> list[ImportFileError]:
    """The paragraphs (or a rich file's entries) the reader left out of a file that was imported."""
    if parsed.format != "text":  # each says where and why ("entry x (line 3) … was skipped")
        return [
            ImportFileError(parsed.name, f"{why}; the file's other entries were imported", number)
            for number, why in parsed.skipped
        ]
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
        metadata = parsed.metadata or (NO_METADATA,) * len(analysed)
        same_as = _same_paper(cur, analysed, metadata, ids)
        existing_sources = set(
            cur.execute('SELECT paper_id, "index" FROM source WHERE file = ?', (parsed.name,))
        )
        # New papers first, in one executemany (a flush per paper is 3× slower).
        fresh: dict[str, Analysed] = {}
        first_row: dict[str, int] = {}
        for row, item in enumerate(analysed):
            if item.key not in ids and item.key not in fresh and item.key not in same_as:
                fresh[item.key] = item
                first_row[item.key] = row
        listing.defer(cur)  # the listing's objects of what this file adds: written once, below
        if fresh:
            rows = [
                (i.key, i.raw, i.readable, *_title_and_name(i, metadata[first_row[i.key]]), False, False, "",
                 1, now, now)
                for i in fresh.values()
            ]  # fmt: skip
            # A plain executemany, then the new ids read back: INSERT … RETURNING for thousands
            # of rows spent more time splicing result batches than inserting (1.7 of 4 s at 5k).
            # The write transaction is exclusive, so every id above the old maximum is ours.
            before = cur.execute("SELECT max(id) FROM paper").fetchone()[0] or 0
            cur.executemany(_insert_sql("paper", _PAPER_COLUMNS), rows)
            for paper_id, key in cur.execute("SELECT id, key FROM paper WHERE id > ? ORDER BY id", (before,)):
                ids[key] = paper_id
                outcome.added_ids.append(paper_id)
                outcome.added_rows.append(first_row[key])
        for key, other in same_as.items():
            if key not in ids:
                ids[key] = ids[other]  # an equal DOI or arXiv id earlier in this file
        _store_metadata(cur, analysed, metadata, ids, set(outcome.added_ids))
        sources: list[tuple[object, ...]] = []
        touched: set[int] = set()
        for index, item in enumerate(analysed):
            paper_id = ids[item.key]
            if item.key in fresh:
                del fresh[item.key]  # its first occurrence; a repeat in the file is a merge
            else:
                outcome.merged += 1
                touched.add(paper_id)
            position = parsed.first_index + index  # among the file's abstracts (a part starts later)
            if (paper_id, position) in existing_sources:
                continue
            existing_sources.add((paper_id, position))
            sources.append((paper_id, parsed.name, position, parsed.collection, record_id))
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


def _titles(parsed: ParsedList) -> list[str | None] | None:
    """The real titles of a rich list's entries (None for a bare list, or one without titles)."""
    if not parsed.metadata or not any(m.title for m in parsed.metadata):
        return None
    return [m.title for m in parsed.metadata]


def _title_and_name(item: Analysed, meta: Metadata) -> tuple[str, str | None]:
    """A new paper's title (the list's real one, else derived) and short name (from a real
    title's "Name:" first; the analysis, given the list's titles, did the same)."""
    return meta.title or item.title, short_name_of_title(meta.title, item.readable) or item.short_name


def _same_paper(
    cur: sqlite3.Cursor, analysed: Sequence[Analysed], metadata: Sequence[Metadata], ids: dict[str, int]
) -> dict[str, str]:
    """Papers that are one by an equal DOI or arXiv id though their abstracts differ: those in the
    library are put in ``ids`` under the new abstract's key; returns key -> the key of an earlier
    entry of this file that is the same paper."""
    if not any(m.doi or m.arxiv_id for m in metadata):
        return {}
    by_doi, by_arxiv = exact_ids(cur, metadata)
    first_doi: dict[str, str] = {}
    first_arxiv: dict[str, str] = {}
    same_as: dict[str, str] = {}
    for item, meta in zip(analysed, metadata, strict=True):
        if item.key in ids:
            continue
        known = (by_doi.get(meta.doi) if meta.doi else None) or (
            by_arxiv.get(meta.arxiv_id) if meta.arxiv_id else None
        )
        if known is not None:
            ids[item.key] = known
            continue
        earlier = (first_doi.get(meta.doi) if meta.doi else None) or (
            first_arxiv.get(meta.arxiv_id) if meta.arxiv_id else None
        )
        if earlier is not None and earlier != item.key:
            same_as[item.key] = earlier
            continue
        if meta.doi:
            first_doi.setdefault(meta.doi, item.key)
        if meta.arxiv_id:
            first_arxiv.setdefault(meta.arxiv_id, item.key)
    return same_as


def _store_metadata(
    cur: sqlite3.Cursor,
    analysed: Sequence[Analysed],
    metadata: Sequence[Metadata],
    ids: dict[str, int],
    added: set[int],
) -> None:
    """The metadata of each paper of this file that has none yet; a paper that was already in the
    library (from a bare list) takes the real title, and the short name it gives."""
    wanted: dict[int, tuple[Analysed, Metadata]] = {}
    for item, meta in zip(analysed, metadata, strict=True):
        if not meta.empty:
            wanted.setdefault(ids[item.key], (item, meta))
    if not wanted:
        return
    have = with_metadata(cur, [pid for pid in wanted if pid not in added])
    rows = [(pid, meta) for pid, (_, meta) in wanted.items() if pid not in have]
    write_metadata(cur, rows)
    retitled = [
        (*_title_and_name(item, meta), pid)
        for pid, (item, meta) in wanted.items()
        if pid not in have and pid not in added and meta.title
    ]
    cur.executemany("UPDATE paper SET derived_title = ?, short_name = ? WHERE id = ?", retitled)


log = logging.getLogger(__name__)
STOPS_AN_IMPORT = (DiskFull, LibraryReadOnly, LibraryDamaged, LibraryBusy)


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
    if pool is not None and total_size(files) >= pool.tuning.start_workers_from_bytes:
        pool.start()  # they start up (≈0.5 s) while the first file is read
    errors: list[ImportFileError] = []
    paragraphs = added = merged = already = 0
    new_ids: list[int] = []
    collections: dict[str, None] = {}  # an ordered set
    was_cancelled = False
    Started = tuple[int, ParsedList, PendingAnalysis | None] | tuple[int, ImportFileError]

    def parts() -> Generator[Started, None, None]:
        """Each file's parts (one, but for a JSON-lines file), read and their analysis started
        (None: imported before), or the file's error; with the file's place in ``files``."""
        for number, path in enumerate(files):
            try:
                for parsed in read_list_parts(path):
                    if not parsed.abstracts or _imported_before(db, parsed.sha256):
                        yield number, parsed, None
                    else:
                        yield number, parsed, PendingAnalysis(parsed.abstracts, pool, _titles(parsed))
            except ReadError as exc:
                yield number, ImportFileError(shown_name(path.name), exc.reason)

    read_ahead = pool is not None and pool.parallel
    stream = parts()
    ahead: Started | None = None
    shown = -1
    preloaded = False
    while True:
        if cancelled is not None and cancelled():
            was_cancelled = True
            break
        current = ahead if ahead is not None else next(stream, None)
        if current is None:
            break
        done = current[0]
        if progress is not None and done != shown:
            shown = done
            progress(done, len(files), shown_name(files[done].name))
        if not preloaded and pool is not None and pool.started:
            # While the first file is stored, not when its index is due; not for small files
            # (a folder of one-abstract files): they are indexed here, without workers.
            preloaded = True
            pool.preload(preload)
        # The next part is read and its analysis queued now, so the workers analyse it while
        # this one is stored (this process) — and then indexed, behind it in their queue.
        ahead = next(stream, None) if read_ahead else None
        if len(current) == 2:
            errors.append(current[1])
            continue
        _, parsed, analysis = current
        if analysis is None:
            collections.setdefault(parsed.collection)
            paragraphs += len(parsed.abstracts)
            already += bool(parsed.abstracts) and parsed.first_index == 0  # a file, not each part
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
    if ahead is not None and len(ahead) == 3 and ahead[2] is not None:
        ahead[2].cancel()  # cancelled before its turn
    stream.close()
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
