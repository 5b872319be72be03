"""The window's library executor: jobs get the open Library, and a plain error when there is none."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from desk.core.library.facade import Library
from desk.core.runtime.paths import INDEX_DIR_NAME
from desk.gui import workers
from desk.gui.workers import LibraryExecutor, LibraryNotOpen


def test_a_job_gets_the_open_library_and_its_result_comes_back(qtbot: QtBot, tmp_path: Path) -> None:
    executor = LibraryExecutor()
    opened: list[object] = []
    counts: list[int] = []
    executor.open_library(tmp_path / "library", success=opened.append)
    executor.submit(lambda lib: lib.count(), counts.append)
    qtbot.waitUntil(lambda: bool(counts), timeout=20_000)
    assert counts == [0] and opened == [executor.library]
    assert executor.shutdown()
    assert executor.library is None


def test_a_job_without_an_open_library_fails_in_plain_words(qtbot: QtBot, tmp_path: Path) -> None:
    executor = LibraryExecutor()
    broken = tmp_path / "not-a-folder"
    broken.write_text("a file where the library folder should be")
    errors: list[Exception] = []
    results: list[int] = []
    executor.open_library(broken, failure=errors.append)
    executor.submit(lambda lib: lib.count(), results.append, errors.append)
    qtbot.waitUntil(lambda: len(errors) == 2, timeout=20_000)
    assert not results
    assert isinstance(errors[1], LibraryNotOpen)
    assert str(errors[1]) == "the library is still opening; try again in a moment"
    assert executor.shutdown()


@pytest.mark.slow
def test_edits_are_folded_in_the_pause_after_them(
    qtbot: QtBot, seeded_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The window's Library commits a note without folding earlier edits' segments; the executor
    folds them once no job has come for IDLE_FOLD_MS, and not while jobs keep coming."""
    monkeypatch.setattr(workers, "IDLE_FOLD_MS", 300)
    executor = LibraryExecutor()
    executor.open_library(seeded_dir)
    segments: list[int] = []

    def note_all(lib: Library) -> int:
        for k, pid in enumerate(lib.paper_ids()[:6]):
            lib.set_note(pid, f"typed in the window zqidle{k}")
        return len(lib.index._index()._segments())

    executor.submit(note_all, segments.append)
    qtbot.waitUntil(lambda: bool(segments), timeout=20_000)
    assert segments == [1 + 6]  # the seeds' segment and one per note: nothing folded yet
    counted: list[int] = []

    def count_segments() -> None:
        executor.submit(lambda lib: len(lib.index._index()._segments()), counted.append)

    for _ in range(8):  # jobs every 100 ms, over twice the pause: no fold meanwhile
        count_segments()
        qtbot.wait(100)
    executor.submit(lambda lib: time.sleep(0.7))  # a job running longer than the pause: none either
    count_segments()
    qtbot.waitUntil(lambda: len(counted) == 9, timeout=20_000)
    assert set(counted) == {7}
    segment_files = seeded_dir / INDEX_DIR_NAME
    # A pause (no job submitted meanwhile): the fold runs, and the folded segments' files go.
    qtbot.waitUntil(lambda: len(list(segment_files.glob("*.seg"))) <= 2, timeout=20_000)
    count_segments()
    qtbot.waitUntil(lambda: len(counted) == 10, timeout=20_000)
    assert counted[-1] <= 2
    found: list[int] = []
    executor.submit(lambda lib: lib.search_ids("note:window", limit=50).total, found.append)
    qtbot.waitUntil(lambda: bool(found), timeout=20_000)
    assert found == [6]
    assert executor.shutdown()
