"""Shared fixtures: the seeds, and a template library built from them once per session."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

ROOT = Path(__file__).resolve().parents[1]
SEEDS = ROOT / "seeds"


@pytest.fixture(scope="session")
def seeds_dir() -> Path:
    """The bundled sample lists."""
    return SEEDS


@pytest.fixture(scope="session")
def seeded_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A library folder with the seeds imported, built once; copy it, never change it."""
    from desk.core.library import Library

    path = tmp_path_factory.mktemp("template") / "library"
    with Library(path) as lib:
        lib.import_paths([SEEDS])
    return path


@pytest.fixture
def seeded_dir(seeded_template: Path, tmp_path: Path) -> Path:
    """A fresh copy of the seeded library for one test."""
    dest = tmp_path / "library"
    shutil.copytree(seeded_template, dest)
    return dest


@pytest.fixture
def seeded(seeded_dir: Path) -> Iterator[object]:
    """An open Library on a fresh copy of the seeded library."""
    from desk.core.library import Library

    with Library(seeded_dir) as lib:
        yield lib


@pytest.fixture
def empty_lib(tmp_path: Path) -> Iterator[object]:
    """An open, empty Library."""
    from desk.core.library import Library

    with Library(tmp_path / "empty") as lib:
        yield lib
