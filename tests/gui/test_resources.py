"""The window finds its icon wherever its modules sit (the package data desk ships)."""

from __future__ import annotations

from desk.gui import app


def test_the_window_finds_its_icon(qapp) -> None:
    assert not app.app_icon().isNull()
