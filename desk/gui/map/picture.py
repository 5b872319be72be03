"""The map as a picture file (``desk map --png/--svg``), drawn offscreen by the window's painter."""

from __future__ import annotations

import os
from pathlib import Path

from PySide6.QtCore import QRect, QSize
from PySide6.QtGui import QColor, QGuiApplication, QImage, QPainter
from PySide6.QtWidgets import QApplication

from desk.gui.map.painting import Look, Scene, View, paint

WIDTH, HEIGHT = 1600, 1200
LOOK = Look(QColor("#ffffff"), QColor("#202124"), QColor("#1a73e8"))


def _application() -> QGuiApplication:
    """The running Qt application, else an offscreen one (no window is shown, no display needed).

    A QApplication, not the QGuiApplication a picture alone needs: in a process that later
    opens a window (a script, a test run), a QGuiApplication left behind makes Qt abort on the
    first widget."""
    found = QGuiApplication.instance()
    if isinstance(found, QGuiApplication):
        return found
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    return QApplication([])


def save(scene: Scene, path: Path, width: int = WIDTH, height: int = HEIGHT) -> None:
    """Draw ``scene`` into ``path``: SVG when its name ends in .svg, else PNG. OSError when the
    file cannot be written."""
    _application()
    if path.suffix.lower() == ".svg":
        from PySide6.QtSvg import QSvgGenerator

        generator = QSvgGenerator()
        generator.setFileName(str(path))
        generator.setSize(QSize(width, height))
        generator.setViewBox(QRect(0, 0, width, height))
        generator.setTitle("desk: a map of the library")
        painter = QPainter(generator)
        paint(painter, scene, View(), width, height, LOOK, vector=True)
        ok = painter.end()
        if not ok or not path.is_file():
            raise OSError(f"could not write {path}")
        return
    image = QImage(width, height, QImage.Format.Format_RGB32)
    painter = QPainter(image)
    paint(painter, scene, View(), width, height, LOOK, vector=True)
    painter.end()
    if not image.save(str(path), "PNG"):  # type: ignore[call-overload]  # a str at run time, bytes in the stubs
        raise OSError(f"could not write {path}")
