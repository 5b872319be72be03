"""Fixtures for driving the window: an offscreen Qt, a seeds library copied per test, isolated settings."""

from __future__ import annotations

import os

os.environ["QT_QPA_PLATFORM"] = "offscreen"  # before Qt loads
os.environ.pop("DESK_COLOR_SCHEME", None)

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from gui_helpers import wait_ready
from PySide6.QtCore import QSettings


@pytest.fixture
def library_dir(seeded_dir: Path) -> Path:
    """A fresh copy of the seeds library (tests/conftest.py's seeded_template) for one test."""
    return seeded_dir


@pytest.fixture(autouse=True)
def isolated_settings(tmp_path: Path) -> Iterator[Path]:
    """QSettings write under tmp_path, never into the user's config."""
    where = tmp_path / "settings"
    QSettings.setDefaultFormat(QSettings.Format.IniFormat)
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, str(where))
    yield where


@pytest.fixture
def open_window(qtbot, request: pytest.FixtureRequest) -> Iterator[Callable[..., object]]:
    """Open a MainWindow on a library folder and wait until its first search has landed."""
    from desk.gui.main.window import MainWindow

    windows: list[MainWindow] = []

    def open_(directory: Path, *, seeds: Path | None = None, wait: bool = True) -> MainWindow:
        window = MainWindow(directory, seeds=seeds)
        qtbot.addWidget(window)
        windows.append(window)
        window.show()
        if wait:
            wait_ready(qtbot, window)
        return window

    yield open_
    for w in windows:
        w.close()
