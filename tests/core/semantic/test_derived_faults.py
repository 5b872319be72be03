"""Fault injection on the derived vectors: kill -9 at random moments of `desk restore` and of a
vector build (the LSA build of a search, the sentence encoder's detached builder while papers go
to the trash and come back), then the library's vectors must be those a fresh library built from
the same files has. ``DESK_FAULT_SEED`` and ``DESK_FAULT_TRIALS`` as in test_faults.py.
"""

from __future__ import annotations

import random
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from semantic_corpus import ALL, write_list

from desk.core.library.facade import Library
from desk.core.semantic import background, lsa

sys.path.insert(
    0,
    str(
        Path(__file__).resolve().parents[1] if Path(__file__).parent.name != "core" else Path(__file__).parent
    ),
)
from dev_texts import dev_abstracts
from test_derived_keys import assert_true_rows, by_text, cosine, desk, needs_builder, wait_encoded
from test_faults import SEED, TRIALS, cli, kill_at

pytestmark = [pytest.mark.faults, pytest.mark.slow]


def assert_rows_are_their_papers(library: Path) -> dict[str, np.ndarray | None]:
    """After a search (which builds what is missing), the library is sound and each paper's LSA
    vector is the one the store's model gives its text now; the vectors, by text."""
    assert desk(library, "search", "learning").returncode == 0
    with Library(library) as lib:
        assert lib.check() == [], SEED
        lib.vectors.load()
        data = lib.vectors.current
        assert data is not None
        vectors = {}
        for text, pid in by_text(lib).items():
            expected = data.model.encode_terms([lsa.terms(text)])[0]
            vectors[text] = got = lib.vectors.vector_of(pid)
            if float(np.dot(expected, expected)) > 0:
                assert cosine(got, expected) > 0.999, (SEED, pid)
        assert len(data.ids) == lib.count(), SEED
        return vectors


def assert_like_a_fresh_library(ours: dict[str, np.ndarray | None], lists: list[Path], tmp: Path) -> None:
    """The vectors ``ours`` are those of a fresh library of ``lists`` imported at once."""
    with Library(tmp / f"fresh-{len(list(tmp.iterdir()))}") as fresh:
        fresh.import_paths(lists)
        fresh.discovery.ensure_vectors()
        theirs = by_text(fresh)
        assert set(theirs) == set(ours), SEED
        for text, pid in theirs.items():
            assert cosine(ours[text], fresh.vectors.vector_of(pid)) > 0.999, SEED


def test_kill_9_at_random_moments_of_restore_then_vectors_follow_the_papers(tmp_path: Path) -> None:
    rng = random.Random(f"{SEED}-derived-restore")
    texts = dev_abstracts()
    first, more, others = texts[:15], texts[15:55], texts[55:95]
    for trial in range(TRIALS):
        root = tmp_path / f"trial-{trial}"
        root.mkdir()
        lists = [write_list(root / f"{n}.txt", t) for n, t in (("a", first), ("b", more), ("c", others))]
        library = root / "lib"
        assert desk(library, "import", str(lists[0])).returncode == 0
        with Library(library) as lib:
            backed_up = lib.count()
        assert desk(library, "backup", str(root / "backup.sqlite3")).returncode == 0
        assert desk(library, "import", str(lists[1])).returncode == 0
        assert desk(library, "search", "learning").returncode == 0  # the 40's vectors built
        rc = kill_at(cli(library, "restore", str(root / "backup.sqlite3")), rng.uniform(0.2, 2.5))
        assert rc in (None, 0), (SEED, rc)
        ours = assert_rows_are_their_papers(library)
        restored = len(ours) == backed_up  # else the kill came before the restore's commit
        if restored:
            assert_like_a_fresh_library(ours, lists[:1], root)
        assert desk(library, "import", str(lists[2])).returncode == 0  # 40 others, ids given back
        ours = assert_rows_are_their_papers(library)
        if restored:  # the case: their vectors are those a fresh library gives them
            assert_like_a_fresh_library(ours, [lists[0], lists[2]], root)


def test_kill_9_at_random_moments_of_the_lsa_build(tmp_path: Path, seeds_dir: Path) -> None:
    rng = random.Random(f"{SEED}-derived-lsa")
    lists = sorted(seeds_dir.glob("*.txt"))
    library = tmp_path / "lib"
    for path in lists:
        assert desk(library, "import", str(path)).returncode == 0
    for _ in range(TRIALS):
        with Library(library) as lib:  # a paper to the trash and back: its vector must follow
            pid = rng.choice(lib.paper_ids())
            lib.trash.delete([pid])
        rc = kill_at(cli(library, "search", "learning"), rng.uniform(0.2, 3.0))
        assert rc in (None, 0), (SEED, rc)
        with Library(library) as lib:
            lib.trash.restore([pid])
        rc = kill_at(cli(library, "search", "learning"), rng.uniform(0.2, 3.0))
        assert rc in (None, 0), (SEED, rc)
        assert_rows_are_their_papers(library)


@needs_builder
def test_kill_9_at_random_moments_of_a_builder_while_papers_go_and_come_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DESK_SENTENCE_ENCODER", "1")
    monkeypatch.setenv(background.INLINE_MAX_VARIABLE, "0")
    rng = random.Random(f"{SEED}-derived-builder")
    library = tmp_path / "lib"
    assert desk(library, "import", str(write_list(tmp_path / "a.txt", ALL))).returncode == 0
    for _ in range(TRIALS):
        with Library(library) as lib:
            pid = rng.choice(lib.paper_ids())
        builder = subprocess.Popen(
            [sys.executable, "-m", "desk.core.semantic.builder", str(library)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        time.sleep(rng.uniform(0.5, 3.0))
        assert desk(library, "delete", str(pid)).returncode == 0
        time.sleep(rng.uniform(0.0, 1.0))
        assert desk(library, "restore-paper", str(pid)).returncode == 0
        time.sleep(rng.uniform(0.0, 1.0))
        builder.kill()
        builder.wait(timeout=60)
    assert background.start(library) is not None
    assert_true_rows(library, wait_encoded(library))
