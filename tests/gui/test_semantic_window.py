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


def test_when_the_vectors_land_the_list_is_searched_again_and_the_highlighted_paper_stays(
    qtbot, open_window, library_dir: Path, monkeypatch
) -> None:
    from gui_helpers import press, type_text, wait_search
    from PySide6.QtCore import Qt

    import desk.gui.main.window as window_module

    monkeypatch.setattr(window_module, "VECTORS_DELAY_MS", 600_000)  # built when this test says
    window = open_window(library_dir)
    type_text(qtbot, "policy")
    wait_search(qtbot, window, "policy")
    before = list(window.model.ids())
    for _ in range(2):
        press(qtbot, Qt.Key.Key_Down)  # a hit below the best highlighted, the keys in the list
    wait_search(qtbot, window)
    chosen = window.current_id
    assert chosen is not None
    row = before.index(chosen)
    window.executor.submit(window.vectors.start)
    qtbot.waitUntil(lambda: list(window.model.ids()) != before, timeout=60_000)  # meaning joined
    wait_search(qtbot, window)
    after = list(window.model.ids())
    assert after[row] != chosen  # the hits moved under the highlight...
    assert window.current_id == chosen  # ...and it followed its paper
    assert window.model.id_at(window.results_view.currentIndex().row()) == chosen
    press(qtbot, "s")  # the key acts on the paper highlighted, not on whatever took its row
    qtbot.waitUntil(lambda: window.model.summary(chosen) is not None and window.model.summary(chosen).starred)


def test_closing_the_window_during_a_build_ends_the_build_process(
    qtbot, open_window, library_dir: Path, monkeypatch
) -> None:
    import multiprocessing

    import desk.gui.main.window as window_module

    monkeypatch.setattr(window_module, "VECTORS_DELAY_MS", 600_000)  # built when this test says
    window = open_window(library_dir)
    window.executor.submit(window.vectors.start)
    qtbot.waitUntil(lambda: bool(multiprocessing.active_children()), timeout=30_000)  # under way
    window.close()
    assert not multiprocessing.active_children()  # killed, not left running after the window
    assert store.state(library_dir / store.DIR_NAME) is not StoreState.OK  # redone next time
