"""Render desk/data/desk.svg to the PNG sizes of desk/data/icons/hicolor/<size>/apps/desk.png.

Run from the repository: `python scripts/make_icons.py` (needs PySide6 with QtSvg).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication, QImage, QPainter
from PySide6.QtSvg import QSvgRenderer

SIZES = (16, 22, 24, 32, 48, 64, 128, 256, 512)
RESOURCES = Path(__file__).resolve().parents[1] / "desk" / "data"  # package data: the wheel ships them


def render(svg: Path, size: int, dest: Path) -> None:
    renderer = QSvgRenderer(str(svg))
    if not renderer.isValid():
        raise SystemExit(f"{svg} is not a valid SVG")
    image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
    renderer.render(painter)
    painter.end()
    dest.parent.mkdir(parents=True, exist_ok=True)
    if not image.save(str(dest), "PNG"):
        raise SystemExit(f"could not write {dest}")


def main() -> int:
    _app = QGuiApplication(sys.argv[:1])
    svg = RESOURCES / "desk.svg"
    for size in SIZES:
        dest = RESOURCES / "icons" / "hicolor" / f"{size}x{size}" / "apps" / "desk.png"
        render(svg, size, dest)
        print(dest.relative_to(RESOURCES.parents[1]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
