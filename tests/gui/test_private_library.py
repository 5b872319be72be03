"""A library made before desk made libraries private, readable by others: the window says so in
its status line, once, and leaves the folder as it is."""

from __future__ import annotations

import os
import stat
from pathlib import Path


def test_the_window_says_once_that_its_library_can_be_read_by_others(
    qtbot, open_window, library_dir: Path
) -> None:
    os.chmod(library_dir, 0o755)
    window = open_window(library_dir)
    said = window.statusBar().currentMessage
    qtbot.waitUntil(lambda: "can be read by other users" in said(), timeout=10_000)
    assert "permissions 0755" in window.statusBar().currentMessage()
    window.close()
    again = open_window(library_dir)
    assert "other users" not in again.statusBar().currentMessage()
    assert stat.S_IMODE(library_dir.stat().st_mode) == 0o755
