"""The worker pool: results in order, and this process doing the work when workers cannot start."""

from __future__ import annotations

import multiprocessing
import operator
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import desk.core.runtime.processes as workers
from desk.core.runtime.processes import WorkerPool, split


def test_jobs_run_on_worker_processes_in_order() -> None:
    with WorkerPool(2) as pool:
        assert pool.map(abs, list(range(-50, 0))) == list(range(50, 0, -1))
        assert [f.result() for f in [pool.submit(operator.mul, k, 3) for k in range(5)]] == [0, 3, 6, 9, 12]
        assert pool._pool is not None
    assert not multiprocessing.active_children()


def test_when_workers_cannot_start_the_work_is_done_here(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise OSError(38, "Function not implemented")  # no semaphores, as in some sandboxes

    monkeypatch.setattr(workers, "ProcessPoolExecutor", refuse)
    with WorkerPool(2) as pool:
        assert pool.map(abs, [-1, -2, -3]) == [1, 2, 3]
        assert not pool.parallel
        assert pool.submit(operator.add, 2, 3).result() == 5
    with WorkerPool(2) as pool:
        assert pool.submit(operator.add, 1, 1).result() == 2


def test_an_error_in_a_job_reaches_the_caller() -> None:
    with WorkerPool(1) as pool, pytest.raises(ZeroDivisionError):
        pool.submit(operator.truediv, 1, 0).result()


@given(st.lists(st.integers(), max_size=50), st.integers(min_value=1, max_value=8))
def test_split_keeps_every_item_in_order_in_nearly_equal_parts(items: list[int], parts: int) -> None:
    pieces = split(items, parts)
    assert [x for piece in pieces for x in piece] == items
    assert len(pieces) <= parts and all(pieces)
    if pieces:
        assert max(map(len, pieces)) - min(map(len, pieces)) <= 1


def test_starting_early_brings_every_worker_up() -> None:
    with WorkerPool(2) as pool:
        pool.start()
        assert len(multiprocessing.active_children()) == 2
        assert pool.map(abs, [-4, -5]) == [4, 5]
    assert not multiprocessing.active_children()


def test_a_worker_loads_only_what_its_jobs_need() -> None:
    """A worker starts cold: the analysis and segment jobs must not load the searcher, the query
    language, numpy or the database (measured: 0.35 s of a small import's wall time)."""
    import subprocess
    import sys

    code = (
        "import sys, desk.core.text.analysis, desk.core.search.staging\n"
        "heavy = ['numpy', 'sqlalchemy', 'whoosh.searching', 'desk.core.search.index',"
        " 'desk.core.search.query']\n"
        "print([m for m in heavy if m in sys.modules])\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_the_search_package_still_gives_its_names() -> None:
    import desk.core.search as search

    for name in search.__all__:
        assert getattr(search, name) is not None
    with pytest.raises(AttributeError):
        search.not_there  # noqa: B018


def test_preloading_asks_every_worker_to_load_the_modules(monkeypatch: pytest.MonkeyPatch) -> None:
    import subprocess
    import sys

    asked: list[tuple] = []
    with WorkerPool(2) as pool:
        monkeypatch.setattr(pool, "submit", lambda fn, *args: asked.append((fn, *args)))
        pool.preload(["desk.core.search.staging"])
        pool.preload([])  # nothing to load: no job
    assert asked == [(workers.load_modules, ("desk.core.search.staging",))] * 2
    code = "import sys, desk.core.runtime.processes as w; w.load_modules(['desk.core.search.staging']);"
    code += "print('desk.core.search.staging' in sys.modules)"
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert loaded.stdout.strip() == "True"


def _run_in_plain_process(path: str) -> None:
    from worker_jobs import keep_mark

    keep_mark(path)


def test_a_worker_shut_down_skips_the_interpreters_teardown(tmp_path: Path) -> None:
    """The pool's shutdown waited for each worker to free, one by one, everything an import made
    (≈ 0.25 s at 10k papers): a worker now ends at once (exit_without_teardown). A plain
    process frees what its modules hold as it ends; a worker of the pool does not."""
    from worker_jobs import keep_mark

    plain = tmp_path / "plain"
    process = multiprocessing.get_context("spawn").Process(target=_run_in_plain_process, args=(str(plain),))
    process.start()
    process.join(60)
    assert process.exitcode == 0 and plain.read_text(encoding="utf-8") == "torn down"
    worker = tmp_path / "worker"
    with WorkerPool(2) as pool:
        assert pool.submit(keep_mark, str(worker)).result() > 0
    assert not multiprocessing.active_children()
    assert not worker.exists()
