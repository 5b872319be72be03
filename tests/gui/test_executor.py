"""The window's library executor: jobs get the open Library, and a plain error when there is none."""

from __future__ import annotations

from pathlib import Path

from pytestqt.qtbot import QtBot

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
