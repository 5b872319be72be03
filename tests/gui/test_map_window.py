"""View → Map: the map window driven by keys, as a user does; the database read back after."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest
from gui_helpers import press, type_text, wait_search
from paper_helpers import wait_idle
from PySide6.QtCore import QPoint, QRect, Qt
from PySide6.QtWidgets import QApplication

from desk.core.library.atlas import NEAR_COUNT
from desk.core.library.facade import Library
from desk.gui.map.view import inside_polygon, nearest_towards

Key = Qt.Key


def opened_map(qtbot, window):
    window.map_action.trigger()
    shown = window.map.map_window
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


def test_a_point_is_inside_a_polygon_by_the_even_odd_rule_concave_or_crossed() -> None:
    points = np.array([[1, 1], [3, 1], [1, 3], [3, 3], [5, 5], [2, 0.5]], np.float64)
    ell = np.array([[0, 0], [4, 0], [4, 2], [2, 2], [2, 4], [0, 4]], np.float64)  # an L: (3, 3) is outside
    assert inside_polygon(points, ell).tolist() == [True, True, True, False, False, True]
    bow = np.array([[0, 0], [4, 4], [4, 0], [0, 4]], np.float64)  # a bow tie: its two triangles
    assert inside_polygon(np.array([[2, 1], [1, 2], [3, 2], [2, 3]], np.float64), bow).tolist() == [
        False, True, True, False,
    ]  # fmt: skip
    assert not inside_polygon(points, ell[:2]).any()
    assert inside_polygon(np.zeros((0, 2)), ell).shape == (0,)


@pytest.mark.slow
def test_a_ctrl_drag_draws_a_lasso_whose_papers_a_bulk_key_acts_on(
    open_window, library_dir: Path, qtbot
) -> None:
    window = open_window(library_dir)
    shown = opened_map(qtbot, window)
    view = shown.view
    width, height = view.width(), view.height()
    at = view.view.to_screen(view.scene.xy, width, height)
    # a triangle: the top edge, down the diagonal, back up the left edge (closed by the release)
    corners = [(2, 2), (width - 2, 2), (2, height - 2)]
    # where a paper lies against the diagonal, in its units (< 1: this side); the lasso's corners
    # are whole pixels, so papers within a pixel or two of its edges are left out of the check
    side = (at[:, 0] - 2) / (width - 4) + (at[:, 1] - 2) / (height - 4)
    edge = 3.0 / min(width, height)
    surely_in = (at[:, 0] > 4) & (at[:, 1] > 4) & (side < 1 - edge)
    surely_out = side > 1 + edge
    assert surely_in.any() and surely_out.any()
    with Library(library_dir) as lib:
        read_before = {p.id for p in lib.list_papers() if p.read}
    ctrl = Qt.KeyboardModifier.ControlModifier
    qtbot.mousePress(view, Qt.MouseButton.LeftButton, ctrl, QPoint(*corners[0]))
    for (x1, y1), (x2, y2) in itertools.pairwise(corners):
        for step in range(1, 21):
            x, y = round(x1 + (x2 - x1) * step / 20), round(y1 + (y2 - y1) * step / 20)
            qtbot.mouseMove(view, QPoint(x, y))
    qtbot.mouseRelease(view, Qt.MouseButton.LeftButton, ctrl, QPoint(2, height // 2))
    selected = set(view.selected_ids())
    assert {int(i) for i in view.ids[surely_in]} <= selected
    assert not {int(i) for i in view.ids[surely_out]} & selected
    assert "selected" in shown.status.text()
    assert not selected & read_before
    press(qtbot, "r")
    wait_idle(qtbot, window)
    with Library(library_dir) as lib:
        read_after = {p.id for p in lib.list_papers() if p.read}
    assert read_after == read_before | selected


@pytest.mark.slow
def test_the_map_opens_by_ctrl_m_and_arrows_s_t_n_enter_and_a_label_act_as_in_the_list(
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
    # `n`: the papers nearest the highlighted one on the map
    press(qtbot, "n")
    wait_search(qtbot, window, f"near:{second}")
    assert window.model.total == NEAR_COUNT
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
