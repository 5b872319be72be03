"""Where desk finds what it ships: the sample lists of a first run, the icons of the desktop entry."""

from __future__ import annotations

from pathlib import Path

import pytest

from desk.core.runtime.paths import bundled_seeds_dir, shipped_dir

ROOT = Path(__file__).resolve().parents[3]


def test_the_first_run_finds_the_samples_desk_ships(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DESK_SEEDS", raising=False)
    found = bundled_seeds_dir()
    assert found == ROOT / "desk" / "data" / "samples"
    # One copy: the repository's seeds/ is those very files.
    assert found is not None and (ROOT / "seeds").resolve() == found.resolve()
    assert len(list(found.glob("*.txt"))) == 5


def test_desk_seeds_names_other_sample_lists(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "mine.txt").write_text("A paper about things. It is long enough.\n", encoding="utf-8")
    monkeypatch.setenv("DESK_SEEDS", str(tmp_path))
    assert bundled_seeds_dir() == tmp_path
    monkeypatch.setenv("DESK_SEEDS", str(tmp_path / "missing"))
    assert bundled_seeds_dir() is None  # not the shipped ones behind the user's back


def test_the_desktop_entry_and_its_icons_are_shipped_with_the_code() -> None:
    shipped = shipped_dir()
    assert shipped == ROOT / "desk" / "data"
    assert (shipped / "desk.desktop").is_file() and (shipped / "desk.svg").is_file()
    sizes = {p.parts[-3] for p in (shipped / "icons" / "hicolor").glob("*/apps/desk.png")}
    assert {"16x16", "22x22", "24x24", "32x32", "48x48", "64x64", "128x128", "256x256"} <= sizes
