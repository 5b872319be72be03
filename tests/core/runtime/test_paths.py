"""Where desk finds what it ships: the sample lists of a first run, the icons of the desktop entry."""

from __future__ import annotations

from pathlib import Path

from desk.core import desktop
from desk.core.runtime.paths import bundled_seeds_dir

ROOT = Path(__file__).resolve().parents[3]


def test_the_first_run_finds_the_bundled_sample_lists(monkeypatch) -> None:
    monkeypatch.delenv("DESK_SEEDS", raising=False)
    assert bundled_seeds_dir() == ROOT / "seeds"


def test_the_desktop_entry_finds_the_icons() -> None:
    assert desktop.RESOURCES == ROOT / "resources" and desktop.RESOURCES.is_dir()
