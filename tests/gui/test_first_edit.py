"""The window readies the edit path once its first results are shown (Library.rehearse_edits): once,
on the library's worker thread, never on the UI thread, and nothing the user sees changes."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from gui_helpers import type_text, wait_search

from desk.core.library.facade import Library


def test_the_window_rehearses_an_edit_once_after_its_first_results_off_the_ui_thread(
    open_window, library_dir: Path, qtbot, monkeypatch: pytest.MonkeyPatch
) -> None:
    runs: list[tuple[threading.Thread, bool]] = []
    rehearse = Library.rehearse_edits

    def watched(lib: Library) -> bool:  # the real rehearsal, with where it ran written down
        ran = rehearse(lib)
        runs.append((threading.current_thread(), ran))
        return ran

    monkeypatch.setattr(Library, "rehearse_edits", watched)
    window = open_window(library_dir)
    qtbot.waitUntil(lambda: bool(runs), timeout=20_000)
    shown = window.model.rowCount()
    for text in ("policy", " learning"):  # more results: no second rehearsal
        type_text(qtbot, text)
        wait_search(qtbot, window)
    done: list[list[str]] = []
    window.executor.submit(lambda lib: lib.check(), done.append)  # after every job queued before it
    qtbot.waitUntil(lambda: bool(done), timeout=20_000)
    assert len(runs) == 1
    thread, ran = runs[0]
    assert ran  # it rehearsed: no edit had come before it
    assert thread is not threading.main_thread()
    assert shown > 0 and done == [[]]  # the list was shown first; database and index still agree
