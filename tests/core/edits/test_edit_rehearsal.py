"""The edit path readied before a user's first edit (Library.rehearse_edits), and the search caches
an edit replaces freed when the window is idle (SearchIndex.release_retired).

The first note of a process was its slowest note → searchable: SQLAlchemy compiled the edit's
statements then, and the index writer was used for the first time. The window rehearses an edit
once its first results are shown: the statements run in a transaction that is rolled back, the
writer's path is read, and nothing is written to the database or the index.
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event
from sqlalchemy.engine import default

from desk.core.library.facade import Library
from desk.core.runtime.errors import LibraryBusy
from desk.core.runtime.paths import DATABASE_NAME, INDEX_DIR_NAME
from desk.core.search import index as index_module
from desk.core.store.database import BUSY_TIMEOUT_MS


def _files(directory: Path) -> dict[str, str]:
    """Every file of the database and the index, by name, with a digest of its bytes (SQLite's
    shared-memory index of the WAL left out: readers change it)."""
    paths = [p for p in (directory / DATABASE_NAME, Path(f"{directory / DATABASE_NAME}-wal")) if p.exists()]
    paths += sorted(p for p in (directory / INDEX_DIR_NAME).rglob("*") if p.is_file())
    return {str(p.relative_to(directory)): hashlib.sha256(p.read_bytes()).hexdigest() for p in paths}


@contextmanager
def compiled_afresh(lib: Library) -> Iterator[list[str]]:
    """The statements SQLAlchemy compiles (does not find in its cache) while inside."""
    missed: list[str] = []

    def seen(_conn: Any, _cursor: Any, statement: str, _params: Any, context: Any, _many: bool) -> None:
        if getattr(context, "cache_hit", None) == default.CACHE_MISS:
            missed.append(statement)

    event.listen(lib.db.engine, "before_cursor_execute", seen)
    try:
        yield missed
    finally:
        event.remove(lib.db.engine, "before_cursor_execute", seen)


def _edit_as_the_window_does(lib: Library, paper: int, word: str) -> None:
    """A note saved in an editing session, a star and a read mark, as the window's keys make them."""
    lib.set_note(paper, f"read with the group; {word}", lib.begin_note_session(paper))
    lib.set_starred([paper], True)
    lib.set_read([paper], True)


def test_a_rehearsal_writes_nothing_and_check_stays_clean(seeded_dir: Path) -> None:
    with Library(seeded_dir, defer_folds=True) as lib:
        lib.search("learning")  # the window's first results
        before = _files(seeded_dir)
        version = lib.data_version()
        papers = lib.papers(lib.paper_ids())
        history = lib.history.entries()
        assert lib.rehearse_edits()
        assert _files(seeded_dir) == before  # not a byte of the database, its WAL or the index
        assert lib.data_version() == version
        assert lib.papers(lib.paper_ids()) == papers  # the first paper's note, star and read state too
        assert lib.history.entries() == history  # no undo step
        assert lib.check() == []


def test_after_a_rehearsal_the_first_edits_compile_no_statement(seeded_dir: Path) -> None:
    with Library(seeded_dir, defer_folds=True) as lib:
        lib.search("learning")
        first, second = lib.paper_ids()[3:5]
        lib.paper(first)  # the reading pane shows the paper before its note is typed
        with compiled_afresh(lib) as missed:
            assert lib.rehearse_edits()
        assert missed  # the rehearsal compiled the edit's statements…
        with compiled_afresh(lib) as missed:
            _edit_as_the_window_does(lib, first, "zqrehearsedone")
            lib.set_note(second, "a note saved outside a session zqrehearsedtwo")
        assert missed == []  # …so that the edits themselves compile nothing
        assert [h.id for h in lib.search_ids("note:zqrehearsedone").hits] == [first]
        assert lib.check() == []


def test_the_edits_own_statements_compile_nothing_even_without_a_rehearsal(seeded_dir: Path) -> None:
    # The note, the star and their undo step are plain SQL (desk.core.edits.statements): nothing of
    # theirs is compiled by SQLAlchemy, rehearsed or not.
    with Library(seeded_dir, defer_folds=True) as lib:
        lib.search("learning")
        paper = lib.paper_ids()[3]
        lib.paper(paper)
        with compiled_afresh(lib) as missed:
            _edit_as_the_window_does(lib, paper, "zqunrehearsed")
        assert not any(s.startswith(("UPDATE paper", "INSERT INTO history_step")) for s in missed)
        assert lib.paper(paper).note == "read with the group; zqunrehearsed" and lib.paper(paper).starred


def test_a_rehearsal_runs_once_and_never_after_an_edit(seeded_dir: Path) -> None:
    with Library(seeded_dir, defer_folds=True) as lib:
        assert lib.rehearse_edits()
        assert not lib.rehearse_edits()
    with Library(seeded_dir, defer_folds=True) as lib:
        lib.set_starred([lib.paper_ids()[0]], True)  # an edit came first: it compiled them
        assert not lib.rehearse_edits()
        assert lib.check() == []


def test_an_empty_library_rehearses_without_a_paper(empty_lib: Library) -> None:
    assert empty_lib.rehearse_edits()
    assert empty_lib.history.entries() == []
    assert empty_lib.check() == []


def test_a_rehearsal_does_not_take_a_lock_another_process_holds(seeded_dir: Path) -> None:
    with Library(seeded_dir, defer_folds=True) as lib:
        other = sqlite3.connect(seeded_dir / DATABASE_NAME, isolation_level=None)
        try:
            other.execute("BEGIN IMMEDIATE")  # another desk writing
            with pytest.raises(LibraryBusy), lib.db.rehearsing():
                pass
            assert not lib.rehearse_edits()  # given up, not failed: the first edit compiles them
        finally:
            other.execute("ROLLBACK")
            other.close()
        with lib.db.reading() as session:  # the connection waits for a lock again as it did
            timeout = session.connection().exec_driver_sql("PRAGMA busy_timeout").scalar()
        assert timeout == BUSY_TIMEOUT_MS
        paper = lib.paper_ids()[0]
        lib.set_note(paper, "written after the other desk let go zqafterbusy")
        assert [h.id for h in lib.search_ids("note:zqafterbusy").hits] == [paper]
        assert lib.check() == []


def _fill_caches(lib: Library) -> None:
    for query in ("learning", "language model*", '"neural network"', "diffus*", "policy optimization"):
        lib.search_ids(query)


@pytest.fixture
def every_generation_costly(monkeypatch: pytest.MonkeyPatch) -> None:
    """The seeds are small: here every generation a commit replaces counts as costly to free."""
    monkeypatch.setattr(index_module, "RETIRE_FROM", 0)


@pytest.mark.usefixtures("every_generation_costly")
def test_the_caches_an_edit_replaces_are_freed_when_idle(seeded_dir: Path) -> None:
    with Library(seeded_dir, defer_folds=True) as lib:
        _fill_caches(lib)
        paper = lib.paper_ids()[0]
        lib.set_note(paper, "kept for the pause zqretired")
        assert [h.id for h in lib.search_ids("note:zqretired").hits] == [paper]
        lib.fold_edits()  # the window's idle moment frees what the edit replaced
        assert lib.index.release_retired() == 0
        _fill_caches(lib)
        lib.set_note(paper, "kept again zqretiredtwo")
        assert lib.index.release_retired() == 1  # held until then, not freed by the commit
        assert lib.check() == []


@pytest.mark.usefixtures("every_generation_costly")
def test_a_command_frees_the_caches_an_edit_replaces_at_once(seeded_dir: Path) -> None:
    with Library(seeded_dir) as lib:
        _fill_caches(lib)
        lib.set_note(lib.paper_ids()[0], "no pause to wait for zqcommand")
        assert lib.index.release_retired() == 0


@pytest.mark.usefixtures("every_generation_costly")
def test_edits_with_no_pause_keep_few_replaced_generations(seeded_dir: Path) -> None:
    with Library(seeded_dir, defer_folds=True) as lib:
        papers = lib.paper_ids()[:5]
        for paper in papers:
            _fill_caches(lib)
            lib.set_note(paper, "edited with no pause between")
        assert lib.index.release_retired() == index_module.RETIRED_KEPT < len(papers)
