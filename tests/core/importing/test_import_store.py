"""store_parsed writes a file's rows with plain SQL on the session's connection (the
ORM's per-statement work was most of a one-abstract file's import). The rows must be exactly
what the ORM version wrote — kept here as the reference — on dev-corpus text: new papers,
repeats inside a file and across files, text of a merged-away paper (its key alias), a file
imported again, and a file whose name was imported before with other text."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from dev_texts import dev_abstracts, needs_dev_corpus
from sqlalchemy import event, func, select
from sqlalchemy.orm import Session

from desk.core.importing.importer import FileOutcome, _as_stored, store_parsed
from desk.core.reader import ParsedList, read_list_file
from desk.core.runtime.paths import shown_name
from desk.core.store import Database, ImportRecord, IndexQueue, KeyAlias, Paper, Source
from desk.core.store.models import MergeRecord, utcnow
from desk.core.text.analysis import Analysed, analyse_many

# --- the ORM version this replaces (main at afb923a), verbatim but for names ---------------------


def _orm_existing_ids(session: Session, keys: Sequence[str]) -> dict[str, int]:
    found: dict[str, int] = {}
    unique = list(dict.fromkeys(keys))
    for start in range(0, len(unique), 500):
        chunk = unique[start : start + 500]
        found.update(
            (k, i) for k, i in session.execute(select(Paper.key, Paper.id).where(Paper.key.in_(chunk)))
        )
        found.update(
            (k, i)
            for k, i in session.execute(
                select(KeyAlias.key, KeyAlias.paper_id).where(KeyAlias.key.in_(chunk))
            )
        )
    return found


_PAPER_COLUMNS = (
    "key", "abstract_raw", "abstract", "derived_title", "short_name", "starred", "read", "note", "rev",
    "created_at", "updated_at",
)  # fmt: skip


def _orm_insert(
    session: Session, table: Any, columns: Sequence[str], rows: Sequence[tuple], prefix: str = ""
) -> None:
    quote = session.get_bind().dialect.identifier_preparer.quote
    sql = f"INSERT {prefix} INTO {quote(table.name)} ({', '.join(quote(c) for c in columns)}) "
    session.connection().exec_driver_sql(sql + f"VALUES ({', '.join('?' * len(columns))})", rows)


def orm_store_parsed(db: Database, parsed: ParsedList, analysed: Sequence[Analysed]) -> FileOutcome:
    outcome = FileOutcome(paragraphs=len(parsed.abstracts))
    with db.writing() as session:
        if session.scalar(select(ImportRecord.id).where(ImportRecord.sha256 == parsed.sha256)):
            outcome.already_imported = True
            return outcome
        record = ImportRecord(
            sha256=parsed.sha256,
            file=parsed.name,
            path=shown_name(str(parsed.path)),
            collection=parsed.collection,
            encoding=parsed.encoding,
            paragraphs=len(parsed.abstracts),
        )
        session.add(record)
        session.flush()
        ids = _orm_existing_ids(session, [a.key for a in analysed])
        existing_sources = {
            (pid, idx)
            for pid, idx in session.execute(
                select(Source.paper_id, Source.index).where(Source.file == parsed.name)
            )
        }
        fresh: dict[str, Analysed] = {}
        first_row: dict[str, int] = {}
        for row, item in enumerate(analysed):
            if item.key not in ids and item.key not in fresh:
                fresh[item.key] = item
                first_row[item.key] = row
        if fresh:
            now = _as_stored(session, Paper.__table__.c.created_at, utcnow())
            rows = [
                (i.key, i.raw, i.readable, i.title, i.short_name, False, False, "", 1, now, now)
                for i in fresh.values()
            ]
            before = session.scalar(select(func.max(Paper.id))) or 0
            _orm_insert(session, Paper.__table__, _PAPER_COLUMNS, rows)
            for paper_id, key in session.execute(
                select(Paper.id, Paper.key).where(Paper.id > before).order_by(Paper.id)
            ):
                ids[key] = paper_id
                outcome.added_ids.append(paper_id)
                outcome.added_rows.append(first_row[key])
        sources: list[tuple[object, ...]] = []
        touched: set[int] = set()
        for index, item in enumerate(analysed):
            paper_id = ids[item.key]
            if item.key in fresh:
                del fresh[item.key]
            else:
                outcome.merged += 1
                touched.add(paper_id)
            if (paper_id, index) in existing_sources:
                continue
            existing_sources.add((paper_id, index))
            sources.append((paper_id, parsed.name, index, parsed.collection, record.id))
        if sources:
            _orm_insert(
                session, Source.__table__, ("paper_id", "file", "index", "collection", "import_id"), sources
            )
        touched -= set(outcome.added_ids)
        for paper in session.scalars(select(Paper).where(Paper.id.in_(touched))):
            paper.touch()
        queued = [*outcome.added_ids, *touched]
        if queued:
            _orm_insert(session, IndexQueue.__table__, ("paper_id",), [(i,) for i in queued], "OR IGNORE")
        record.added = len(outcome.added_ids)
        record.merged = outcome.merged
    return outcome


# --- the scenario, run through both ----------------------------------------------------------------

TIMES = {"created_at", "updated_at", "imported_at"}  # compared by their format


def _lists(folder: Path) -> list[Path]:
    """List files of dev-corpus abstracts that repeat inside a file and across files."""
    texts = dev_abstracts()
    folder.mkdir()
    a, b, c = texts[:40], texts[30:90], texts[85:100]
    files = {
        "one.txt": ("ICCV 2021 Papers", [*a, a[3], a[7]]),  # two repeats inside the file
        "two.txt": ("NeurIPS 2022 Papers", b),  # 10 of one.txt's again
        "three.txt": ("", [*c, texts[5]]),  # no header; ends with a paper merged away (below)
        "sub/one.txt": ("Workshop Papers", [texts[2], texts[200], texts[201]]),  # one.txt's name again
    }
    paths = []
    for name, (header, abstracts) in files.items():
        path = folder / name
        path.parent.mkdir(exist_ok=True)
        path.write_text((f"{header}\n\n" if header else "") + "\n\n".join(abstracts) + "\n", encoding="utf-8")
        paths.append(path)
    return [*paths, paths[0]]  # one.txt again: adds nothing


def _alias(db: Database, key_of: int, onto: int) -> None:
    """Paper ``key_of``'s key becomes an alias of paper ``onto`` (what a merge leaves)."""
    with db.writing() as session:
        merge = MergeRecord(keep_id=onto, merged_ids=str(key_of), snapshot="{}")
        session.add(merge)
        session.flush()
        gone = session.get(Paper, key_of)
        assert gone is not None
        session.add(KeyAlias(key=gone.key, paper_id=onto, merge_id=merge.id))
        session.delete(gone)


def _shape(stamp: object) -> object:
    """A time's format, its digits blanked (two runs are not at the same moment)."""
    return re.sub(r"\d", "0", stamp) if isinstance(stamp, str) else stamp


def _dump(db: Database) -> dict[str, list[tuple]]:
    out: dict[str, list[tuple]] = {}
    with db.reading() as session:
        conn = session.connection()
        for table in ("paper", "source", "import_record", "index_queue", "key_alias"):
            cursor = conn.exec_driver_sql(f"SELECT * FROM {table} ORDER BY 1")
            names = [d[0] for d in cursor.cursor.description]
            out[table] = [
                tuple(_shape(v) if n in TIMES else v for n, v in zip(names, row, strict=True))
                for row in cursor
            ]
    return out


def _run(tmp: Path, store: Any, files: list[Path]) -> tuple[list[FileOutcome], dict[str, list[tuple]]]:
    tmp.mkdir()
    db = Database(tmp / "desk.sqlite3")
    outcomes = []
    for k, path in enumerate(files):
        if k == 2:
            _alias(db, key_of=6, onto=1)  # texts[5] is paper 6 of one.txt
        parsed = read_list_file(path)
        outcomes.append(store(db, parsed, analyse_many(parsed.abstracts)))
    return outcomes, _dump(db)


@needs_dev_corpus
def test_plain_sql_store_writes_what_the_orm_wrote(tmp_path: Path) -> None:
    files = _lists(tmp_path / "lists")
    want_outcomes, want = _run(tmp_path / "orm", orm_store_parsed, files)
    got_outcomes, got = _run(tmp_path / "sql", store_parsed, files)
    assert got_outcomes == want_outcomes
    assert got == want
    assert want_outcomes[-1].already_imported and want_outcomes[2].merged >= 1
    assert sum(o.merged for o in want_outcomes) >= 12 and len(want["key_alias"]) == 1


@contextmanager
def _orm_statements() -> Iterator[list[object]]:
    seen: list[object] = []

    def saw(state: Any) -> None:
        seen.append(state.statement)

    def flushed(session: Session, *_: Any) -> None:
        seen.append("flush")

    event.listen(Session, "do_orm_execute", saw)
    event.listen(Session, "before_flush", flushed)
    try:
        yield seen
    finally:
        event.remove(Session, "do_orm_execute", saw)
        event.remove(Session, "before_flush", flushed)


@needs_dev_corpus
def test_storing_a_file_issues_no_orm_statement(tmp_path: Path) -> None:
    files = _lists(tmp_path / "lists")
    db = Database(tmp_path / "desk.sqlite3")
    parsed = [read_list_file(p) for p in files]
    analysed = [analyse_many(p.abstracts) for p in parsed]
    with _orm_statements() as seen:
        for p, a in zip(parsed, analysed, strict=True):
            store_parsed(db, p, a)
    assert seen == []
