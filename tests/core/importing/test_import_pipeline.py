"""Importing on worker processes: the next file analysed while one is stored, then indexed by workers.

A library given ``Tuning.eager()`` sends the seeds down the path a 5,000-abstract file takes;
the result must be what importing them in this process gives.
"""

from __future__ import annotations

import multiprocessing
import shutil
from pathlib import Path

import pytest

from desk.core.library.facade import Library
from desk.core.runtime.processes import WorkerPool
from desk.core.runtime.tuning import Tuning

EAGER = Tuning.eager(5)  # analysis, index segments and near-duplicate hashing on the workers, by file


def _state(lib: Library) -> list[tuple]:
    return [
        (p.title, p.short_name, tuple((s.file, s.index) for s in p.sources))
        for p in sorted(lib.list_papers(), key=lambda p: p.id)
    ]


@pytest.mark.slow
def test_a_parallel_import_is_the_same_as_a_serial_one(tmp_path: Path, seeds_dir: Path) -> None:
    lists = tmp_path / "lists"
    shutil.copytree(seeds_dir, lists)
    first = next(p for p in sorted(lists.glob("*.txt")))
    words = first.read_text(encoding="utf-8").split("\n\n")[3].split()
    truncated = " ".join(words[: len(words) * 3 // 4])  # a near-duplicate of one seed paper
    (lists / "v2.txt").write_text(f"Preprints\n\n{truncated}\n", encoding="utf-8")
    with Library(tmp_path / "serial") as lib:
        serial_report = lib.import_paths([lists])
        serial = _state(lib)
        serial_hits = [r.paper.id for r in lib.search("conformal risk control").rows]
        serial_groups = [g.ids for g in lib.duplicates.groups()]
    assert serial_report.near_duplicates >= 1
    with Library(tmp_path / "parallel", tuning=EAGER) as lib:
        report = lib.import_paths([lists])
        assert (report.added, report.merged, report.near_duplicates) == (
            serial_report.added,
            serial_report.merged,
            serial_report.near_duplicates,
        )
        assert _state(lib) == serial
        assert [r.paper.id for r in lib.search("conformal risk control").rows] == serial_hits
        assert [g.ids for g in lib.duplicates.groups()] == serial_groups
        assert lib.check() == []
    assert not multiprocessing.active_children()  # the workers stop with the import


@pytest.mark.slow
def test_an_import_given_a_started_pool_works_on_it_and_leaves_it_to_its_owner(
    tmp_path: Path, seeds_dir: Path
) -> None:
    """`desk import` starts the workers before it opens the library: the import uses that pool
    (no second one) and leaves it open; the owner closes it."""
    with Library(tmp_path / "serial") as lib:
        lib.import_paths([seeds_dir])
        serial = _state(lib)
    with WorkerPool(2, EAGER) as pool:
        pool.start()
        with Library(tmp_path / "lib", tuning=EAGER) as lib:
            before = {p.pid for p in multiprocessing.active_children()}
            report = lib.import_paths([seeds_dir], workers=pool)
            assert report.added == len(serial)
            assert _state(lib) == serial
            assert lib.check() == []
        assert pool.started  # not closed by the import
        assert {p.pid for p in multiprocessing.active_children()} == before  # its workers, no others
        assert pool.submit(sum, [1, 2]).result() == 3
    assert not multiprocessing.active_children()


@pytest.mark.slow
def test_a_bad_file_between_good_ones_is_reported_and_the_rest_imported(
    tmp_path: Path, seeds_dir: Path
) -> None:
    folder = tmp_path / "lists"
    shutil.copytree(seeds_dir, folder)
    (folder / "001_b_broken.txt").write_bytes(b"\x00\x01\x02" * 400)
    with Library(tmp_path / "lib", tuning=EAGER) as lib:
        report = lib.import_paths([folder])
        assert [e.file for e in report.errors] == ["001_b_broken.txt"]
        assert report.added == 94
        assert lib.check() == []


def test_cancelling_after_a_file_stores_nothing_of_the_next(tmp_path: Path, seeds_dir: Path) -> None:
    files = sorted(seeds_dir.glob("*.txt"))
    asked: list[int] = []

    def cancelled() -> bool:
        asked.append(1)
        return len(asked) > 1  # after the first file

    with Library(tmp_path / "lib", tuning=EAGER) as lib:
        report = lib.import_paths(files, cancelled=cancelled)
        assert report.cancelled
        assert {s.file for p in lib.list_papers() for s in p.sources} == {files[0].name}
        assert lib.check() == []
    assert not multiprocessing.active_children()


@pytest.mark.slow
def test_segments_of_papers_changed_while_they_were_written_are_dropped(
    tmp_path: Path, seeds_dir: Path
) -> None:
    from desk.core.store import IndexQueue

    with Library(tmp_path / "lib", tuning=EAGER) as lib:
        lib.import_paths([seeds_dir])
        ids = lib.paper_ids()[:20]
        with lib.db.writing() as session:  # queue them again, as an import leaves them
            session.add_all(IndexQueue(paper_id=i) for i in ids)
        with WorkerPool(2, EAGER) as pool:
            pending = lib._sync.start_flush(pool)
            assert pending is not None
            lib.set_starred([ids[3]], True)  # a change (and its own flush) while the workers write
            pending.finish()  # the staged versions are older than the database: not committed
            lib._sync.flush(pool)
        assert lib.check() == []
        assert lib.index.doc_count() == lib.count()  # no paper indexed twice
        assert ids[3] in [r.paper.id for r in lib.search("is:starred").rows]


def test_imported_rows_are_stored_as_the_orm_stores_them(tmp_path: Path, seeds_dir: Path) -> None:
    """The import writes its rows straight to the driver; the columns must read as if the ORM wrote them."""
    import sqlite3

    from desk.core.store import Paper

    with Library(tmp_path / "lib") as lib:
        lib.import_paths([seeds_dir])
        with lib.db.writing() as session:
            session.add(Paper(key="by the orm", abstract_raw="r", abstract="a", derived_title="t"))
    with sqlite3.connect(tmp_path / "lib" / "library.sqlite3") as con:
        rows = con.execute(
            "SELECT key = 'by the orm', created_at, updated_at, typeof(starred), typeof(read), note, rev,"
            " typeof(short_name) FROM paper ORDER BY id"
        ).fetchall()
        types = 'SELECT typeof(paper_id), typeof("index"), typeof(import_id) FROM source'
        sources = con.execute(types).fetchall()
        queued = con.execute("SELECT count(*) FROM index_queue").fetchone()
    by_orm, imported = rows[-1], rows[:-1]
    assert len(imported) == 94
    shape = lambda row: (len(row[1]), len(row[2]), *row[3:6])  # noqa: E731 - same widths, types and defaults
    assert {shape(row) for row in imported} == {shape(by_orm)}
    assert sorted({row[6] for row in imported}) == [1, 2]  # the paper found in two files was touched once
    assert {row[7] for row in imported} == {"text", "null"}  # a short name, or none
    assert set(sources) == {("integer", "integer", "integer")} and len(sources) == 95
    assert queued == (0,)  # indexed by the import


def test_the_tuning_object_decides_what_goes_to_the_workers(tmp_path: Path) -> None:
    from desk.core.importing.importer import PendingAnalysis
    from desk.core.runtime import tuning
    from desk.core.runtime.processes import WorkerPool
    from desk.core.text.analysis import analyse_many

    abstracts = [f"We study problem {i} with a new method. It works well." for i in range(12)]
    with WorkerPool(2) as pool:
        assert pool.tuning is tuning.DEFAULT
        assert not PendingAnalysis(abstracts, pool)._jobs  # 12 abstracts: analysed here
    with WorkerPool(2, EAGER) as pool:
        eager = PendingAnalysis(abstracts, pool)
        assert len(eager._jobs) == 2  # parts of 7 on the workers
        assert eager.result() == analyse_many(abstracts)
    with Library(tmp_path / "lib", tuning=EAGER) as lib:
        assert lib.tuning is EAGER and lib._sync.tuning is EAGER
