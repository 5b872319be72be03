"""Drawing the map: every paper a dot coloured by its cluster, the labels at the clusters' centres.

One pass, whatever the number of papers: on screen the dots are written into an image with numpy
(a few milliseconds for 100k: Qt is called once, for the image, not once a dot) and the marks,
labels and selection drawn over it; into a file (PNG or SVG) every dot is drawn as a circle, so
an SVG stays vectors. The window's map widget and ``desk map --png/--svg`` share this code.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QImage, QPainter, QPen

#: Twenty hues that stay apart (Tableau 20's order: a strong then a pale of each).
PALETTE = (
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
    "#bcbd22", "#17becf", "#aec7e8", "#ffbb78", "#98df8a", "#ff9896", "#c5b0d5", "#c49c94",
    "#f7b6d2", "#c7c7c7", "#dbdb8d", "#9edae5",
)  # fmt: skip
STAR = QColor("#e6a700")
MARGIN = 0.04  # of the shorter side, around the map at zoom 1
MIN_ZOOM, MAX_ZOOM = 0.5, 64.0
LABEL_PX = 12.0  # a label's pixel size at zoom 1 (it grows with the square root of the zoom)


@dataclass
class Scene:
    """What is drawn: the map's arrays (one row a paper) and the state of the window around it."""

    xy: np.ndarray  # float, n x 2, within [0, 1]
    clusters: np.ndarray  # int, n
    labels: tuple[str, ...]
    lit: np.ndarray | None = None  # bool: the current search's hits (None: no search; all bright)
    starred: np.ndarray | None = None
    read: np.ndarray | None = None
    tagged: np.ndarray | None = None
    noted: np.ndarray | None = None
    selected: np.ndarray | None = None
    current: int | None = None  # the row of the highlighted paper
    sizes: np.ndarray = field(init=False)
    centres: np.ndarray = field(init=False)

    def __post_init__(self) -> None:
        k = len(self.labels)
        self.sizes = np.bincount(np.asarray(self.clusters, np.int64), minlength=k)[:k]
        self.centres = np.full((k, 2), np.nan)
        for c in range(k):
            members = self.xy[self.clusters == c]
            if len(members):
                mean = members.mean(axis=0)
                self.centres[c] = members[np.argmin(((members - mean) ** 2).sum(axis=1))]


@dataclass
class View:
    """Which part of the map is on screen: the map point at the centre and the zoom."""

    zoom: float = 1.0
    centre: tuple[float, float] = (0.5, 0.5)

    def scale(self, width: int, height: int) -> float:
        """Pixels per map unit."""
        return min(width, height) * (1 - 2 * MARGIN) * self.zoom

    def to_screen(self, xy: np.ndarray, width: int, height: int) -> np.ndarray:
        """Map points (n x 2) as pixel positions."""
        s = self.scale(width, height)
        return (np.asarray(xy, np.float64) - np.array(self.centre)) * s + np.array([width / 2, height / 2])

    def to_map(self, x: float, y: float, width: int, height: int) -> tuple[float, float]:
        """The map point under a pixel."""
        s = self.scale(width, height)
        return (x - width / 2) / s + self.centre[0], (y - height / 2) / s + self.centre[1]


@dataclass(frozen=True)
class Look:
    """The colours around the dots."""

    background: QColor
    text: QColor
    highlight: QColor


def colours(scene: Scene, look: Look) -> np.ndarray:
    """Each dot's RGBA (uint8, n x 4): its cluster's hue, paler when read, faded into the
    background when a search is on and it is not a hit."""
    table = np.array([QColor(c).getRgb() for c in PALETTE], np.float64)
    rgba = table[np.asarray(scene.clusters, np.int64) % len(PALETTE)]
    back = np.array(look.background.getRgb(), np.float64)
    if scene.read is not None:
        rgba[scene.read] = rgba[scene.read] * 0.55 + back * 0.45
    if scene.lit is not None:
        dim = ~scene.lit
        rgba[dim] = rgba[dim] * 0.18 + back * 0.82
    rgba[:, 3] = 255
    return rgba.astype(np.uint8)


def _order(scene: Scene) -> np.ndarray:
    """The dots' drawing order: the search's misses first, hits over them."""
    n = len(scene.xy)
    if scene.lit is None:
        return np.arange(n)
    return np.concatenate([np.flatnonzero(~scene.lit), np.flatnonzero(scene.lit)])


def dot_radius(view: View, n: int) -> int:
    """A dot's radius in pixels: larger when zoomed in or when the papers are few."""
    base = 1 if n > 20_000 else 2
    return int(min(6, base + np.log2(max(view.zoom, 1.0)) * 0.8))


def raster(scene: Scene, view: View, width: int, height: int, look: Look) -> QImage:
    """Every dot written into an image at once (numpy, not a Qt call a dot)."""
    width, height = max(1, width), max(1, height)
    buffer = np.empty((height, width, 4), np.uint8)
    buffer[:, :] = np.array(look.background.getRgb(), np.uint8)
    if len(scene.xy):
        at = np.rint(view.to_screen(scene.xy, width, height)).astype(np.int64)
        rgba = colours(scene, look)
        order = _order(scene)
        at, rgba = at[order], rgba[order]
        r = dot_radius(view, len(scene.xy))
        big = scene.lit[order] if scene.lit is not None else np.ones(len(order), bool)
        for dx in range(-r, r + 1):
            for dy in range(-r, r + 1):
                if dx * dx + dy * dy > r * r + r * 0.5:
                    continue
                use = big if max(abs(dx), abs(dy)) > max(1, r - 1) else slice(None)
                x, y = at[use, 0] + dx, at[use, 1] + dy
                inside = (x >= 0) & (x < width) & (y >= 0) & (y < height)
                buffer[y[inside], x[inside]] = rgba[use][inside]
    image = QImage(buffer.data, width, height, 4 * width, QImage.Format.Format_RGBA8888)
    return image.copy()  # owns its pixels (the numpy buffer goes away)


def paint(
    painter: QPainter, scene: Scene, view: View, width: int, height: int, look: Look, vector: bool = False
) -> None:
    """Draw the map into ``painter``'s device of ``width`` x ``height`` pixels."""
    painter.fillRect(0, 0, width, height, look.background)
    if vector:
        _vector_dots(painter, scene, view, width, height, look)
    else:
        painter.drawImage(0, 0, raster(scene, view, width, height, look))
    painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
    _marks(painter, scene, view, width, height, look)
    _labels(painter, scene, view, width, height, look)


def _vector_dots(painter: QPainter, scene: Scene, view: View, width: int, height: int, look: Look) -> None:
    painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
    painter.setPen(Qt.PenStyle.NoPen)
    at = view.to_screen(scene.xy, width, height)
    rgba = colours(scene, look)
    r = max(1.5, dot_radius(view, len(scene.xy)) + 0.5)
    for i in _order(scene):
        painter.setBrush(QColor(*(int(v) for v in rgba[i])))
        painter.drawEllipse(QPointF(at[i, 0], at[i, 1]), r, r)


def _visible(at: np.ndarray, width: int, height: int) -> np.ndarray:
    return (at[:, 0] > -10) & (at[:, 0] < width + 10) & (at[:, 1] > -10) & (at[:, 1] < height + 10)


def _rings(painter: QPainter, at: np.ndarray, rows: np.ndarray, radius: float, pen: QPen) -> None:
    painter.setPen(pen)
    painter.setBrush(Qt.BrushStyle.NoBrush)
    for i in rows[:5000]:  # marks past a few thousand on screen at once say nothing more
        painter.drawEllipse(QPointF(at[i, 0], at[i, 1]), radius, radius)


def _marks(painter: QPainter, scene: Scene, view: View, width: int, height: int, look: Look) -> None:
    """Starred papers ringed in gold, tagged ones in the text colour, a note as a centre dot;
    the selection and the highlighted paper over them."""
    at = view.to_screen(scene.xy, width, height)
    seen = _visible(at, width, height)
    r = dot_radius(view, len(scene.xy)) + 2.5
    if scene.tagged is not None:
        _rings(painter, at, np.flatnonzero(scene.tagged & seen), r + 2, QPen(look.text, 1.0))
    if scene.starred is not None:
        _rings(painter, at, np.flatnonzero(scene.starred & seen), r, QPen(STAR, 2.0))
    if scene.noted is not None:
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(look.text)
        for i in np.flatnonzero(scene.noted & seen)[:5000]:
            painter.drawEllipse(QPointF(at[i, 0], at[i, 1]), 1.2, 1.2)
    if scene.selected is not None:
        _rings(painter, at, np.flatnonzero(scene.selected & seen), r + 1, QPen(look.highlight, 2.0))
    if scene.current is not None and 0 <= scene.current < len(at):
        x, y = at[scene.current]
        painter.setPen(QPen(look.text, 2.5))
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawEllipse(QPointF(x, y), r + 5, r + 5)
        painter.drawLine(QPointF(x - r - 11, y), QPointF(x - r - 6, y))
        painter.drawLine(QPointF(x + r + 6, y), QPointF(x + r + 11, y))


def label_font(view: View) -> QFont:
    """The labels' font: larger as the map is zoomed in (the square root of the zoom)."""
    font = QFont()
    font.setPixelSize(int(max(9.0, min(34.0, LABEL_PX * np.sqrt(view.zoom)))))
    font.setBold(True)
    return font


def label_rects(scene: Scene, view: View, width: int, height: int) -> list[tuple[int, QRectF]]:
    """Each shown label's cluster and its box on screen (the window finds a click in them). The
    larger clusters' labels are placed first; a label that would cover one is moved a line up or
    down, or left out until the map is zoomed in enough for it to fit."""
    from PySide6.QtGui import QFontMetricsF

    metrics = QFontMetricsF(label_font(view))
    at = view.to_screen(np.nan_to_num(scene.centres), width, height)
    out: list[tuple[int, QRectF]] = []
    for c in np.argsort(-scene.sizes, kind="stable"):
        c = int(c)
        if not scene.sizes[c] or np.isnan(scene.centres[c, 0]):
            continue
        box = metrics.boundingRect(label_text(scene.labels[c], int(scene.sizes[c])))
        w, h = box.width() + 6, box.height() + 2
        for shift in (0.0, 1.0, -1.0, 2.0, -2.0):
            rect = QRectF(at[c, 0] - w / 2, at[c, 1] - h / 2 + shift * h, w, h)
            if not any(rect.intersects(placed) for _, placed in out):
                out.append((c, rect))
                break
    return out


def label_text(label: str, size: int) -> str:
    """A cluster's label as drawn, with its count."""
    return f"{label} ({size:,})"


def _labels(painter: QPainter, scene: Scene, view: View, width: int, height: int, look: Look) -> None:
    painter.setFont(label_font(view))
    halo = QColor(look.background)
    halo.setAlpha(200)
    for c, rect in label_rects(scene, view, width, height):
        if not rect.intersects(QRectF(0, 0, width, height)):
            continue
        text = label_text(scene.labels[c], int(scene.sizes[c]))
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(halo)
        painter.drawRoundedRect(rect, 4, 4)
        painter.setPen(look.text)
        painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, text)
