"""Shared fixtures: the seeds, and a template library built from them once per session."""

from __future__ import annotations

import atexit
import os
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

# The test folders mirror desk's packages; their shared helpers (dev_texts, semantic_corpus, one
# test module's writers used by another) are imported by name from wherever a test sits.
for _folder in sorted({p.parent for p in Path(__file__).parent.rglob("*.py")}):
    if str(_folder) not in sys.path:
        sys.path.append(str(_folder))

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# The sentence encoder costs ~40 ms a paper to build: off for the suite, on where its own tests
# (tests/core/semantic/test_semantic_encoder.py) turn it on.
os.environ.setdefault("DESK_SENTENCE_ENCODER", "0")
# The key desk signs its index with lives outside every library: one for the whole test run
# (the command-line processes the tests start inherit it), never the user's own.
if "DESK_KEY_DIR" not in os.environ:
    os.environ["DESK_KEY_DIR"] = tempfile.mkdtemp(prefix="desk-test-key-")
    atexit.register(shutil.rmtree, os.environ["DESK_KEY_DIR"], True)  # made here, removed here

ROOT = Path(__file__).resolve().parents[1]
SEEDS = ROOT / "seeds"


@pytest.fixture(scope="session")
def seeds_dir() -> Path:
    """The bundled sample lists."""
    return SEEDS


@pytest.fixture(scope="session")
def seeded_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A library folder with the seeds imported, built once; copy it (copy_library), never change it."""
    from desk.core.library.facade import Library

    path = tmp_path_factory.mktemp("template") / "library"
    with Library(path) as lib:
        report = lib.import_paths([SEEDS])
        assert report.added > 0 and not report.errors
    return path


@pytest.fixture
def copy_library(tmp_path: Path) -> Callable[..., Path]:
    """copy(template, name="library"): a fresh copy of a template library in this test's folder.

    Templates (``seeded_template``, and others built from it) are built once per session.
    """

    def copy(template: Path, name: str = "library") -> Path:
        dest = tmp_path / name
        shutil.copytree(template, dest)
        return dest

    return copy


@pytest.fixture
def seeded_dir(seeded_template: Path, copy_library: Callable[..., Path]) -> Path:
    """A fresh copy of the seeded library for one test."""
    return copy_library(seeded_template)


@pytest.fixture
def seeded(seeded_dir: Path) -> Iterator[object]:
    """An open Library on a fresh copy of the seeded library."""
    from desk.core.library.facade import Library

    with Library(seeded_dir) as lib:
        yield lib


@pytest.fixture
def empty_lib(tmp_path: Path) -> Iterator[object]:
    """An open, empty Library."""
    from desk.core.library.facade import Library

    with Library(tmp_path / "empty") as lib:
        yield lib


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The slow tests first (otherwise in their order), so that the workers start on them and the
    run's end is short tests that even out between the cores. With ``DESK_WHOOSH_INTERNALS=0``
    (the CI job of Whoosh's public API), the tests of the fast paths themselves (marked
    ``fast_paths``) have nothing to test and are skipped."""
    items.sort(key=lambda item: "slow" not in item.keywords)
    if os.environ.get("DESK_WHOOSH_INTERNALS") != "0":
        return
    skip = pytest.mark.skip(reason="tests desk's fast paths, turned off by DESK_WHOOSH_INTERNALS=0")
    for item in items:
        if "fast_paths" in item.keywords:
            item.add_marker(skip)
