"""The window builds the semantic vectors off the UI thread once the library is open."""

from __future__ import annotations

from pathlib import Path

from desk.core.semantic import store
from desk.core.semantic.store import StoreState


def test_the_window_builds_the_vectors_in_the_background(qtbot, open_window, library_dir: Path) -> None:
    assert store.state(library_dir / store.DIR_NAME) is StoreState.MISSING  # the import did not build them
    window = open_window(library_dir)
    assert window.ready  # usable before the vectors exist
    qtbot.waitUntil(lambda: store.state(library_dir / store.DIR_NAME) is StoreState.OK, timeout=60_000)
    assert window.ready and window.search_bar is not None  # the window went on meanwhile
