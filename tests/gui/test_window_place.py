"""Where a library's window opens: its own last place, or beside the last window of another."""

from __future__ import annotations

import shutil
from pathlib import Path

from PySide6.QtCore import QPoint

from desk.gui.main.placement import CASCADE_STEP


def test_a_second_library_opens_beside_the_first_window_not_over_it(
    open_window, library_dir: Path, tmp_path: Path, qtbot
) -> None:
    first = open_window(library_dir)
    area = first.screen().availableGeometry()
    first.setGeometry(area.x() + 5, area.y() + 30, first.minimumWidth(), area.height() // 3)
    qtbot.waitUntil(lambda: first.geometry().topLeft().x() == area.x() + 5)
    placed = first.geometry()
    first.close()  # its place is saved: the last window's, where a new library's starts

    other = tmp_path / "lib2"
    shutil.copytree(library_dir, other)  # `desk --library lib2`: a library never opened in a window
    second = open_window(other)
    assert second.geometry().size() == placed.size()
    assert second.geometry().topLeft() == placed.topLeft() + QPoint(CASCADE_STEP, CASCADE_STEP)
    second.close()

    again = open_window(library_dir)  # the first library's own place is its own
    assert again.geometry().topLeft() == placed.topLeft()
