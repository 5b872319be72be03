"""The window builds the semantic vectors off the UI thread once the library is open."""

from __future__ import annotations

from pathlib import Path

import pytest

from desk.core.semantic import store
from desk.core.semantic.store import StoreState


@pytest.mark.slow
def test_the_window_builds_the_vectors_in_the_background(qtbot, open_window, library_dir: Path) -> None:
    assert store.state(library_dir / store.DIR_NAME) is StoreState.MISSING  # the import did not build them
    window = open_window(library_dir)
    assert window.ready  # usable before the vectors exist
    qtbot.waitUntil(lambda: store.state(library_dir / store.DIR_NAME) is StoreState.OK, timeout=60_000)
    assert window.ready and window.search_bar is not None  # the window went on meanwhile


def test_when_the_vectors_land_the_list_on_screen_keeps_its_order_until_the_next_search(
    qtbot, open_window, library_dir: Path, monkeypatch
) -> None:
    from gui_helpers import press, type_text, wait_search
    from PySide6.QtCore import Qt

    import desk.gui.main.meaning as meaning_module
    from desk.core.library.facade import Library

    monkeypatch.setattr(meaning_module, "VECTORS_DELAY_MS", 600_000)  # built when this test says
    window = open_window(library_dir)
    type_text(qtbot, "policy")
    wait_search(qtbot, window, "policy")
    before = list(window.model.ids())
    for _ in range(2):
        press(qtbot, Qt.Key.Key_Down)  # a hit below the best highlighted, the keys in the list
    wait_search(qtbot, window)
    chosen = window.current_id
    row = window.results_view.currentIndex().row()
    assert chosen is not None and before[row] == chosen
    with qtbot.waitSignal(window.vectors.finished, timeout=60_000, check_params_cb=bool):
        window.executor.submit(window.vectors.start)
    wait_search(qtbot, window)
    assert list(window.model.ids()) == before  # nothing moved under the user
    assert window.results_view.currentIndex().row() == row and window.current_id == chosen
    assert "next search" in window.statusBar().currentMessage()  # a quiet note says why
    press(qtbot, Qt.Key.Key_Down)
    press(qtbot, Qt.Key.Key_Down)
    press(qtbot, "s")  # ↓↓s stars the hit two rows down on the list as the user saw it
    qtbot.waitUntil(lambda: window.model.summary(before[row + 2]) is not None)
    qtbot.waitUntil(lambda: window.model.summary(before[row + 2]).starred)
    with Library(library_dir) as lib:
        assert [p.id for p in lib.list_papers(starred=True)] == [before[row + 2]]
    press(qtbot, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)  # the undo searches again...
    qtbot.waitUntil(lambda: not window.model.summary(before[row + 2]).starred)
    wait_search(qtbot, window)
    assert list(window.model.ids())[: len(before)] == before  # ...in the order on screen (papers
    # that join by meaning come after the ones shown)
    press(qtbot, "k", Qt.KeyboardModifier.ControlModifier)
    type_text(qtbot, "policy learning")  # the next change of query ranks by meaning too
    wait_search(qtbot, window, "policy learning")
    assert window.model.total > 0


def test_closing_the_window_during_a_build_ends_the_build_process(
    qtbot, open_window, library_dir: Path, monkeypatch
) -> None:
    import multiprocessing

    import desk.gui.main.meaning as meaning_module

    monkeypatch.setattr(meaning_module, "VECTORS_DELAY_MS", 600_000)  # built when this test says
    window = open_window(library_dir)
    window.executor.submit(window.vectors.start)
    qtbot.waitUntil(lambda: bool(multiprocessing.active_children()), timeout=30_000)  # under way
    window.close()
    assert not multiprocessing.active_children()  # killed, not left running after the window
    assert store.state(library_dir / store.DIR_NAME) is not StoreState.OK  # redone next time


@pytest.mark.slow
def test_meaning_joining_while_the_user_types_re_ranks_only_while_they_are_in_the_search_box(
    qtbot, open_window, library_dir: Path, monkeypatch
) -> None:
    """The search's best papers encoded on the spot (``spotted``) re-rank the list while the
    keys are in the search box; once the user is in the list, its rows never move."""
    from gui_helpers import press, type_text, wait_search
    from PySide6.QtCore import Qt

    import desk.gui.main.meaning as meaning_module
    from desk.core.library.facade import Library

    monkeypatch.setattr(meaning_module, "VECTORS_DELAY_MS", 600_000)  # built when this test says
    window = open_window(library_dir)
    type_text(qtbot, "policy")
    wait_search(qtbot, window, "policy")
    before = list(window.model.ids())
    with qtbot.waitSignal(window.vectors.finished, timeout=60_000, check_params_cb=bool):
        window.executor.submit(window.vectors.start)  # meaning joins: the ranking changes
    with Library(library_dir) as lib:
        assert lib.vectors.load()  # the store the window built
        ranked = [h.id for h in lib.search_ids("policy", limit=len(before), typing=True).hits]
    assert ranked != before  # else this test would show nothing

    press(qtbot, Qt.Key.Key_Down)  # into the list
    assert not window.search_box.hasFocus()
    window.vectors.spotted.emit(window.controller.shown_query)
    window.controller.run_now()  # a search again (as another process's change makes one)
    wait_search(qtbot, window)
    assert list(window.model.ids())[: len(before)] == before  # the user is in the list: nothing moved

    window.search_box.setFocus()
    qtbot.waitUntil(window.search_box.hasFocus)
    window.vectors.spotted.emit(window.controller.shown_query)
    qtbot.waitUntil(lambda: list(window.model.ids())[: len(ranked)] == ranked)  # still typing: re-ranked


def test_the_status_bar_says_how_far_the_encoders_build_is(qtbot, open_window, library_dir: Path) -> None:
    window = open_window(library_dir)
    label = window.encoding_label
    assert not label.isVisible()
    window.vectors.progress.emit(1234, 10000)  # the watched builder's checkpoint
    assert label.isVisible() and label.text() == "Meaning: 1,234 of 10,000 papers"
    window.vectors.progress.emit(10000, 10000)  # done: nothing more to say
    assert not label.isVisible()
    window.vectors.progress.emit(5, 10)
    window.vectors.progress.emit(-1, -1)  # the build ended (or stopped)
    assert not label.isVisible()
