"""The window finds its icons wherever its modules sit."""

from __future__ import annotations

from pathlib import Path

from desk.gui import app


def test_the_window_finds_its_resources() -> None:
    assert Path(__file__).resolve().parents[2] / "resources" == app.RESOURCES and app.RESOURCES.is_dir()
