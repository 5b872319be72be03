"""View → Map: the map window driven by keys, as a user does; the database read back after."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from gui_helpers import press, type_text, wait_search
from paper_helpers import wait_idle
from PySide6.QtCore import QPoint, QRect, Qt
from PySide6.QtWidgets import QApplication

from desk.core.library.facade import Library
from desk.gui.map.view import nearest_towards

Key = Qt.Key


def opened_map(qtbot, window):
    window.map_action.trigger()
    shown = window._map
    qtbot.waitUntil(lambda: shown.map is not None and shown.view.scene is not None, timeout=30_000)
    qtbot.waitUntil(lambda: shown.view.scene.starred is not None, timeout=10_000)
    shown.activateWindow()
    shown.view.setFocus()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is shown.view)
    return shown


def test_nearest_towards_picks_the_closest_paper_within_45_degrees_of_the_arrow() -> None:
    xy = np.array([[0.5, 0.5], [0.6, 0.52], [0.9, 0.5], [0.5, 0.2], [0.45, 0.9], [0.4, 0.5]])
    assert nearest_towards(xy, 0, (1.0, 0.0)) == 1
    assert nearest_towards(xy, 0, (0.0, -1.0)) == 3
    assert nearest_towards(xy, 0, (0.0, 1.0)) == 4
    assert nearest_towards(xy, 0, (-1.0, 0.0)) == 5
    assert nearest_towards(xy, 2, (1.0, 0.0)) is None


@pytest.mark.slow
def test_the_map_opens_by_ctrl_m_and_arrows_s_t_enter_and_a_label_act_as_in_the_list(
    open_window, library_dir: Path, qtbot
) -> None:
    window = open_window(library_dir)
    shown = opened_map(qtbot, window)
    view = shown.view
    assert len(view.ids) == 94
    press(qtbot, Key.Key_Right)  # from nothing: the paper nearest the centre
    first = view.current_id
    assert first is not None
    qtbot.waitUntil(lambda: window.current_id == first)  # the reading pane follows
    press(qtbot, Key.Key_Right)
    second = view.current_id
    assert second is not None and second != first
    xy = view.scene.xy
    assert xy[view.row_of(second), 0] > xy[view.row_of(first), 0]
    press(qtbot, "s")
    wait_idle(qtbot, window)
    with Library(library_dir) as lib:
        assert lib.paper(second).starred
    qtbot.waitUntil(lambda: bool(view.scene.starred[view.row_of(second)]))
    zoom = view.view.zoom
    press(qtbot, "+")
    assert view.view.zoom > zoom
    press(qtbot, "-")
    assert view.view.zoom == pytest.approx(zoom)
    # a rectangle over the whole map selects every paper; `r` marks them all read
    view.select_rect(QRect(QPoint(0, 0), QPoint(view.width(), view.height())))
    assert len(view.selected_ids()) == 94
    press(qtbot, "r")
    wait_idle(qtbot, window)
    with Library(library_dir) as lib:
        assert all(p.read for p in lib.list_papers())
    press(qtbot, Key.Key_Escape)
    assert view.selected_ids() == []
    # `c`: the highlighted paper's cluster in the list
    press(qtbot, "c")
    cluster = int(view.scene.clusters[view.row_of(second)])
    wait_search(qtbot, window, f"cluster:{cluster}")
    assert window.search_box.text() == f"cluster:{cluster}"
    assert window.model.total == int(np.sum(view.scene.clusters == cluster))
    # Enter: the paper in the main window's reading pane
    press(qtbot, Key.Key_Return)
    qtbot.waitUntil(lambda: window.current_id == second and window.isActiveWindow())


@pytest.mark.slow
def test_the_search_lights_its_hits_on_the_map_and_dims_the_rest(
    open_window, library_dir: Path, qtbot
) -> None:
    window = open_window(library_dir)
    shown = opened_map(qtbot, window)
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    window.search_box.setFocus()
    type_text(qtbot, "policy")
    wait_search(qtbot, window, "policy")
    qtbot.waitUntil(lambda: shown.view.scene.lit is not None, timeout=10_000)
    lit = {int(i) for i in shown.view.ids[shown.view.scene.lit]}
    listed = {window.model.id_at(r) for r in range(window.model.rowCount())}
    assert len(lit) == window.model.total and listed <= lit and 0 < len(lit) < 94
    image = shown.view.grab().toImage()
    assert not image.isNull()
