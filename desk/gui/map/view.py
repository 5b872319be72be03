"""The map widget: all papers painted in one pass, moved through by keys and the mouse.

Arrow keys move the highlight to the nearest paper in that direction (within 45° of it), and the
view follows it; Shift+arrows pan, ``+``/``-`` (or the wheel) zoom. A drag draws a rectangle that
selects the papers in it, a drag with Ctrl (or Alt) held a free-form lasso that selects the
papers it goes round; a click picks the paper under it, or, on a cluster's label, asks for that
cluster's papers in the list. The keys that act on papers (``s``, ``r``, ``e``, ``t``, the
digits, Enter, ``c`` for the highlighted paper's cluster, ``n`` for the papers nearest it) are
said by signals: the window acts.
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QPoint, QPointF, QRect, QRectF, Qt, Signal
from PySide6.QtGui import QKeyEvent, QMouseEvent, QPainter, QPaintEvent, QPen, QPolygonF, QWheelEvent
from PySide6.QtWidgets import QWidget

from desk.gui.map.painting import MAX_ZOOM, MIN_ZOOM, Look, Scene, View, label_rects, paint

ZOOM_STEP = 1.5
PAN_STEP = 0.15  # of the visible width
PICK_PX = 10  # a click this close to a dot picks it
LASSO_STEP_PX = 3  # the lasso takes a corner each time the mouse has moved this far
LASSO_CORNERS = 2000  # corners of a lasso at most (a longer drag keeps every second one)
LASSO_KEYS = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.AltModifier
ACTION_KEYS = {Qt.Key.Key_S: "star", Qt.Key.Key_R: "read", Qt.Key.Key_E: "done", Qt.Key.Key_T: "tag"}
DIRECTIONS = {
    Qt.Key.Key_Left: (-1.0, 0.0),
    Qt.Key.Key_Right: (1.0, 0.0),
    Qt.Key.Key_Up: (0.0, -1.0),
    Qt.Key.Key_Down: (0.0, 1.0),
}


def nearest_towards(xy: np.ndarray, row: int, direction: tuple[float, float]) -> int | None:
    """The row of the paper nearest ``row``'s within 45° of ``direction`` (None: there is none)."""
    delta = xy - xy[row]
    along = delta @ np.asarray(direction)
    length = np.sqrt((delta**2).sum(axis=1))
    ahead = (along > 0) & (along >= length * np.cos(np.pi / 4))
    ahead[row] = False
    if not ahead.any():
        return None
    # nearest by distance, a step off the direction counting a little more
    cost = np.where(ahead, length * (2.0 - along / np.maximum(length, 1e-12)), np.inf)
    return int(np.argmin(cost))


def inside_polygon(points: np.ndarray, corners: np.ndarray) -> np.ndarray:
    """Which of ``points`` (n x 2) lie inside the closed polygon of ``corners`` (m x 2), by the
    even-odd rule (a lasso that crosses itself leaves out what it went round twice). One numpy
    pass per edge over the points inside the polygon's bounding box."""
    inside = np.zeros(len(points), bool)
    if len(corners) < 3 or not len(points):
        return inside
    low, high = corners.min(axis=0), corners.max(axis=0)
    near = np.flatnonzero(np.all((points >= low) & (points <= high), axis=1))
    x, y = points[near, 0], points[near, 1]
    crossed = np.zeros(len(near), bool)
    for (x1, y1), (x2, y2) in zip(corners, np.roll(corners, -1, axis=0), strict=True):
        if y1 == y2:
            continue  # a level edge: the ray along the row never crosses it
        spans = (y1 > y) != (y2 > y)
        at_x = x1 + (y - y1) * (x2 - x1) / (y2 - y1)
        crossed ^= spans & (x < at_x)
    inside[near] = crossed
    return inside


class MapView(QWidget):
    """Paints a ``Scene``; ``current`` is the highlighted paper's row."""

    currentChanged = Signal(int)  # the paper id now highlighted
    openRequested = Signal(int)  # Enter on a paper
    actionRequested = Signal(str)  # "star", "read", "done", "tag"
    tagRequested = Signal(int)  # a digit: toggle the n-th tag
    clusterRequested = Signal(int)  # a label clicked, or `c`: the cluster's papers in the list
    nearRequested = Signal(int)  # `n`: the papers nearest the highlighted one (its id) in the list
    selectionChanged = Signal(int)  # how many papers the rectangle or the lasso selected

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setMinimumSize(320, 240)
        self.scene: Scene | None = None
        self.ids = np.zeros(0, np.int64)
        self.view = View()
        self._press: QPoint | None = None
        self._drag: QRect | None = None
        self._lasso: list[QPoint] | None = None  # the corners of a lasso being drawn
        self._panning: tuple[QPoint, tuple[float, float]] | None = None

    # -- the data ----------------------------------------------------------------------------
    def set_scene(self, ids: np.ndarray, scene: Scene) -> None:
        """Show ``scene`` (row i is paper ``ids[i]``); the highlighted paper is kept when it is on it."""
        kept = self.current_id
        self.ids = np.asarray(ids, np.int64)
        self.scene = scene
        if kept is not None:
            row = self.row_of(kept)
            scene.current = row
        self.update()

    def row_of(self, paper_id: int) -> int | None:
        """The row of a paper in the scene (None: not on the map)."""
        row = int(np.searchsorted(self.ids, paper_id))
        return row if row < len(self.ids) and int(self.ids[row]) == paper_id else None

    @property
    def current_id(self) -> int | None:
        """The highlighted paper's id."""
        if self.scene is None or self.scene.current is None:
            return None
        return int(self.ids[self.scene.current])

    def selected_ids(self) -> list[int]:
        """The papers the rectangle or the lasso selected (in id order)."""
        if self.scene is None or self.scene.selected is None:
            return []
        return [int(i) for i in self.ids[self.scene.selected]]

    def target_ids(self) -> list[int]:
        """What a key acts on: the selection, else the highlighted paper."""
        chosen = self.selected_ids()
        if chosen:
            return chosen
        current = self.current_id
        return [current] if current is not None else []

    def set_current(self, row: int | None, follow: bool = True) -> None:
        """Highlight the paper of ``row`` and, with ``follow``, bring it into view."""
        if self.scene is None:
            return
        self.scene.current = row
        if row is not None:
            if follow:
                self._bring_into_view(row)
            self.currentChanged.emit(int(self.ids[row]))
        self.update()

    # -- keys ------------------------------------------------------------------------------------
    def keyPressEvent(self, event: QKeyEvent) -> None:
        key = Qt.Key(event.key())
        shift = bool(event.modifiers() & Qt.KeyboardModifier.ShiftModifier)
        text = event.text()
        if key in DIRECTIONS and shift:
            dx, dy = DIRECTIONS[key]
            self.pan(dx * PAN_STEP, dy * PAN_STEP)
        elif key in DIRECTIONS:
            self.move(DIRECTIONS[key])
        elif text in ("+", "="):
            self.zoom_by(ZOOM_STEP)
        elif text in ("-", "_"):
            self.zoom_by(1 / ZOOM_STEP)
        elif text == "0":
            self.view = View()
            self.update()
        elif key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            if self.current_id is not None:
                self.openRequested.emit(self.current_id)
        elif key in ACTION_KEYS and not event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier:
            self.actionRequested.emit(ACTION_KEYS[key])
        elif text.isdigit() and text != "0" and len(text) == 1:
            self.tagRequested.emit(int(text))
        elif key == Qt.Key.Key_C and self.scene is not None and self.scene.current is not None:
            self.clusterRequested.emit(int(self.scene.clusters[self.scene.current]))
        elif key == Qt.Key.Key_N and self.current_id is not None:
            self.nearRequested.emit(self.current_id)
        elif key == Qt.Key.Key_Escape and self.scene is not None and self.scene.selected is not None:
            self.scene.selected = None
            self.selectionChanged.emit(0)
            self.update()
        else:
            super().keyPressEvent(event)
            return
        event.accept()

    def move(self, direction: tuple[float, float]) -> None:  # type: ignore[override]
        """To the nearest paper in ``direction``; from nothing, the paper nearest the view's centre."""
        if self.scene is None or not len(self.ids):
            return
        current = self.scene.current
        if current is None:
            centre = np.asarray(self.view.centre)
            self.set_current(int(np.argmin(((self.scene.xy - centre) ** 2).sum(axis=1))))
            return
        found = nearest_towards(self.scene.xy, current, direction)
        if found is not None:
            self.set_current(found)

    def zoom_by(self, factor: float) -> None:
        """Zoom in (factor > 1) or out, around the view's centre."""
        self.view.zoom = float(min(MAX_ZOOM, max(MIN_ZOOM, self.view.zoom * factor)))
        self.update()

    def pan(self, dx: float, dy: float) -> None:
        """Move the view by a share of what is visible."""
        span = 1.0 / self.view.zoom
        self.view.centre = (self.view.centre[0] + dx * span, self.view.centre[1] + dy * span)
        self.update()

    def _bring_into_view(self, row: int) -> None:
        assert self.scene is not None
        x, y = self.view.to_screen(self.scene.xy[row : row + 1], self.width(), self.height())[0]
        margin = 0.1 * min(self.width(), self.height())
        if not (margin <= x <= self.width() - margin and margin <= y <= self.height() - margin):
            self.view.centre = (float(self.scene.xy[row, 0]), float(self.scene.xy[row, 1]))

    # -- the mouse -------------------------------------------------------------------------------
    def _row_at(self, pos: QPoint) -> int | None:
        if self.scene is None or not len(self.ids):
            return None
        at = self.view.to_screen(self.scene.xy, self.width(), self.height())
        d2 = ((at - np.array([pos.x(), pos.y()])) ** 2).sum(axis=1)
        row = int(np.argmin(d2))
        return row if d2[row] <= PICK_PX**2 else None

    def _label_at(self, pos: QPoint) -> int | None:
        if self.scene is None:
            return None
        for cluster, rect in label_rects(self.scene, self.view, self.width(), self.height()):
            if rect.contains(pos.toPointF()):
                return cluster
        return None

    def mousePressEvent(self, event: QMouseEvent) -> None:
        self.setFocus(Qt.FocusReason.MouseFocusReason)
        pos = event.position().toPoint()
        if event.button() in (Qt.MouseButton.RightButton, Qt.MouseButton.MiddleButton):
            self._panning = (pos, self.view.centre)
        elif event.button() == Qt.MouseButton.LeftButton and event.modifiers() & LASSO_KEYS:
            self._lasso = [pos]
        elif event.button() == Qt.MouseButton.LeftButton:
            self._press = pos

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        pos = event.position().toPoint()
        if self._panning is not None:
            start, centre = self._panning
            s = self.view.scale(self.width(), self.height())
            self.view.centre = (centre[0] - (pos.x() - start.x()) / s, centre[1] - (pos.y() - start.y()) / s)
            self.update()
        elif self._lasso is not None:
            if (pos - self._lasso[-1]).manhattanLength() >= LASSO_STEP_PX:
                self._lasso.append(pos)
                if len(self._lasso) > LASSO_CORNERS:
                    self._lasso = self._lasso[::2]
                self.update()
        elif self._press is not None and (pos - self._press).manhattanLength() > 4:
            self._drag = QRect(self._press, pos).normalized()
            self.update()

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        pos = event.position().toPoint()
        if self._panning is not None:
            self._panning = None
            return
        if self._lasso is not None:
            corners, self._lasso = [*self._lasso, pos], None
            self.select_polygon(corners)
            return
        press, drag = self._press, self._drag
        self._press, self._drag = None, None
        if drag is not None:
            self.select_rect(drag)
            return
        if press is None:
            return
        cluster = self._label_at(pos)
        if cluster is not None:
            self.clusterRequested.emit(cluster)
            return
        row = self._row_at(pos)
        if row is not None:
            self.set_current(row, follow=False)

    def select_rect(self, rect: QRect) -> None:
        """Select the papers inside a rectangle of the widget (an empty one clears the selection)."""
        if self.scene is None:
            return
        at = self.view.to_screen(self.scene.xy, self.width(), self.height())
        inside = (
            (at[:, 0] >= rect.left())
            & (at[:, 0] <= rect.right())
            & (at[:, 1] >= rect.top())
            & (at[:, 1] <= rect.bottom())
        )
        self.scene.selected = inside if inside.any() else None
        self.selectionChanged.emit(int(inside.sum()))
        self.update()

    def select_polygon(self, corners: list[QPoint]) -> None:
        """Select the papers inside a closed polygon of the widget's points (a lasso); one of
        fewer than three corners clears the selection, as an empty rectangle does."""
        if self.scene is None:
            return
        at = self.view.to_screen(self.scene.xy, self.width(), self.height())
        polygon = np.array([(c.x(), c.y()) for c in corners], np.float64).reshape(-1, 2)
        inside = inside_polygon(at, polygon)
        self.scene.selected = inside if inside.any() else None
        self.selectionChanged.emit(int(inside.sum()))
        self.update()

    def wheelEvent(self, event: QWheelEvent) -> None:
        steps = event.angleDelta().y() / 120
        if steps:
            self.zoom_by(ZOOM_STEP ** (steps / 2))

    # -- painting --------------------------------------------------------------------------------
    def look(self) -> Look:
        """The colours of the window's palette (light or dark)."""
        palette = self.palette()
        return Look(palette.base().color(), palette.text().color(), palette.highlight().color())

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        look = self.look()
        if self.scene is None:
            painter.fillRect(self.rect(), look.background)
            painter.setPen(look.text)
            painter.drawText(self.rect(), Qt.AlignmentFlag.AlignCenter, "Laying out the map…")
            painter.end()
            return
        paint(painter, self.scene, self.view, self.width(), self.height(), look)
        if self._drag is not None:
            pen = QPen(look.highlight, 1.5, Qt.PenStyle.DashLine)
            painter.setPen(pen)
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawRect(QRectF(self._drag))
        if self._lasso is not None and len(self._lasso) > 1:
            painter.setPen(QPen(look.highlight, 1.5, Qt.PenStyle.DashLine))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawPolygon(QPolygonF([QPointF(c) for c in self._lasso]))
        painter.end()
