"""Fixtures for driving the window: an offscreen Qt, a seeds library copied per test, isolated settings."""

from __future__ import annotations

import os

os.environ["QT_QPA_PLATFORM"] = "offscreen"  # before Qt loads
os.environ.pop("DESK_COLOR_SCHEME", None)

import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from gui_helpers import wait_ready
from PySide6.QtCore import QSettings

SEEDS = Path(__file__).resolve().parents[2] / "seeds"


@pytest.fixture(scope="session")
def template_library(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The seeds imported once per session; tests get a copy."""
    from desk.core.library import Library

    directory = tmp_path_factory.mktemp("template") / "library"
    with Library(directory) as lib:
        report = lib.import_paths([SEEDS])
        assert report.added > 0 and not report.errors
    return directory


@pytest.fixture
def library_dir(template_library: Path, tmp_path: Path) -> Path:
    directory = tmp_path / "library"
    shutil.copytree(template_library, directory)
    return directory


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
