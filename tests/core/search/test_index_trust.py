"""An index folder desk did not write runs no code: never opened, rebuilt.

Whoosh reads its table of contents and segments with pickle. desk signs what it writes
(``manifest.py``, under a key outside the library) and checks the signature before Whoosh
reads anything; behind that, Whoosh's pickles are read as data only (``unpickling.py``).
"""

from __future__ import annotations

import os
import pickle
import shutil
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from whoosh import index as windex

from desk.core.library.facade import Library
from desk.core.runtime.paths import INDEX_DIR_NAME
from desk.core.search import IndexState, manifest, unpickling
from desk.core.search.schema import INDEX_NAME, build_schema
from desk.core.search.whoosh_internals import check


class _Boom:
    """Pickles as a call of os.system: what a planted index would hold."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (os.system, (f"touch {self.marker}",))


def _plant(library: Path, marker: Path, *, signed: bool) -> None:
    """Replace the library's index by one whose table of contents runs code when unpickled,
    beside desk's own marker, lexicon and acronyms (as copied from a real index)."""
    index = library / INDEX_DIR_NAME
    keep = {n: (index / n).read_bytes() for n in ("desk-search.json", "words.tsv", "acronyms.json")}
    shutil.rmtree(index)
    index.mkdir()
    schema = build_schema()
    schema["title"].payload = _Boom(marker)  # pickled with the schema, in the table of contents
    windex.create_in(str(index), schema, indexname=INDEX_NAME)
    for name, data in keep.items():
        (index / name).write_bytes(data)
    if signed:  # as if the signature were forged: the second wall must hold alone
        manifest.record(index)
    else:
        (index / manifest.MANIFEST_NAME).write_text('{"version": 2, "files": {}, "mac": "00"}')


def desk(library: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-m", "desk.cli.main", "--library", str(library), *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300, cwd=cwd)


@pytest.mark.slow
@pytest.mark.parametrize("command", [("stats",), ("check",), ("search", "policy")])
def test_a_planted_index_whose_table_of_contents_runs_code_is_never_opened(
    seeded_dir: Path, tmp_path: Path, command: tuple[str, ...]
) -> None:
    marker = tmp_path / "PWNED"
    _plant(seeded_dir, marker, signed=False)
    proc = desk(seeded_dir, tmp_path, *command)
    assert not marker.exists(), "the planted index ran code"
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "could not be verified as written by desk for this user" in proc.stderr
    assert "rebuilt it from the database" in proc.stderr
    assert proc.stdout.strip()
    again = desk(seeded_dir, tmp_path, "check")
    assert again.returncode == 0 and again.stderr == "", again.stderr


def test_the_window_and_the_library_never_open_a_planted_index(seeded_dir: Path, tmp_path: Path) -> None:
    marker = tmp_path / "PWNED"
    _plant(seeded_dir, marker, signed=False)
    with Library(seeded_dir) as lib:  # what the window opens
        assert lib.repaired is not None and "could not be verified" in lib.repaired
        assert lib.search_ids("policy").total > 0
        assert lib.check() == []
    assert not marker.exists()
    with Library(seeded_dir) as lib:  # signed by this user now: read as it is, not rebuilt again
        assert lib.repaired is None


def test_a_planted_index_with_a_signature_that_verifies_still_runs_nothing(
    seeded_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Defence in depth: were the signature forged, Whoosh's pickles are still read as data only."""
    marker = tmp_path / "PWNED"
    _plant(seeded_dir, marker, signed=True)
    monkeypatch.chdir(tmp_path)
    with Library(seeded_dir) as lib:
        assert lib.repaired == "the search index is damaged"  # the pickle was refused
        assert lib.search_ids("policy").total > 0
    assert not marker.exists()
    proc = desk(seeded_dir, tmp_path, "check")
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr


@pytest.mark.slow
def test_an_index_signed_under_another_key_rebuilds_once(seeded_dir: Path, tmp_path: Path) -> None:
    """A library moved to another machine or user: its index is rebuilt once, then trusted."""
    env = {**os.environ, "DESK_KEY_DIR": str(tmp_path / "other-user" / "desk")}
    cmd = [sys.executable, "-m", "desk.cli.main", "--library", str(seeded_dir), "stats"]
    first = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300)
    assert first.returncode == 0 and "could not be verified" in first.stderr, first.stderr
    second = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300)
    assert second.returncode == 0 and second.stderr == "", second.stderr
    key = tmp_path / "other-user" / "desk" / "secret.key"
    assert stat.S_IMODE(key.stat().st_mode) == 0o600 and len(key.read_bytes()) == 32
    assert stat.S_IMODE(key.parent.stat().st_mode) == 0o700
    assert not any(p.name == "secret.key" for p in seeded_dir.rglob("*"))  # never inside the library


def test_a_changed_table_of_contents_is_damage_and_is_rebuilt(seeded_dir: Path) -> None:
    index = seeded_dir / INDEX_DIR_NAME
    toc = next(index.glob("*.toc"))
    info = toc.stat()
    data = bytearray(toc.read_bytes())
    data[-5] ^= 0xFF
    toc.write_bytes(bytes(data))
    os.utime(toc, ns=(info.st_atime_ns, info.st_mtime_ns))  # same size, same time: only the hash tells
    from desk.core.search import SearchIndex

    assert SearchIndex(index).state() is IndexState.CORRUPT
    with Library(seeded_dir) as lib:
        assert lib.repaired == "the search index is damaged"
        assert lib.check() == []


def test_whoosh_reads_no_pickle_unrestricted_once_checked() -> None:
    check()
    assert unpickling.raw_readers() == []
    from whoosh.codec import whoosh3
    from whoosh.filedb import fileindex, structfile

    assert whoosh3.loads is unpickling.loads
    assert structfile.load_pickle is unpickling.load
    assert fileindex.pickle.loads is unpickling.loads


def test_the_data_only_reader_refuses_every_name_it_does_not_know(tmp_path: Path) -> None:
    marker = tmp_path / "PWNED"
    for protocol in (2, 4, 5):
        with pytest.raises(pickle.UnpicklingError):
            unpickling.loads(pickle.dumps(_Boom(marker), protocol))
    # A dotted name inside an allowed module is no way round the list.
    module, name = b"whoosh.fields", b"Schema.__init__.__globals__"
    sneaky = b"\x80\x04\x8c" + bytes([len(module)]) + module + b"\x8c" + bytes([len(name)]) + name + b"\x93."
    with pytest.raises(pickle.UnpicklingError):
        unpickling.loads(sneaky)
    assert not marker.exists()
    schema = build_schema()
    assert set(unpickling.loads(pickle.dumps(schema, 2)).names()) == set(schema.names())


INT32 = st.integers(min_value=-(2**31), max_value=2**31 - 1)


@given(st.lists(INT32, max_size=2500), st.sampled_from([2, 3, 4, 5]))
def test_plain_int_lists_read_the_same_on_the_fast_path(values: list[int], protocol: int) -> None:
    data = pickle.dumps(values, protocol)
    assert unpickling.loads(data) == values
    assert unpickling.loads(pickle.dumps(tuple(values), protocol)) == tuple(values)


@given(
    st.lists(st.one_of(st.integers(), st.text(max_size=5), st.binary(max_size=5), st.floats(allow_nan=False)))
)
def test_data_pickles_read_as_pickle_reads_them(values: list[object]) -> None:
    for protocol in (2, 4):
        data = pickle.dumps({"v": values, "s": frozenset({1, 2})}, protocol)
        assert unpickling.loads(data) == pickle.loads(data)


@pytest.mark.slow
def test_check_says_in_plain_words_an_index_it_cannot_verify_nor_rebuild(
    seeded_dir: Path, tmp_path: Path
) -> None:
    """A read-only library from another user: its index is not read, and check says why."""
    if os.geteuid() != 0:
        pytest.skip("a read-only bind mount needs root")
    if subprocess.run(["mount", "--bind", str(seeded_dir), str(seeded_dir)], capture_output=True).returncode:
        pytest.skip("mount --bind is not allowed here")
    env = {**os.environ, "DESK_KEY_DIR": str(tmp_path / "someone-else")}
    try:
        subprocess.run(["mount", "-o", "remount,ro,bind", str(seeded_dir)], check=True)
        cmd = [sys.executable, "-m", "desk.cli.main", "--library", str(seeded_dir)]
        check = subprocess.run([*cmd, "check"], capture_output=True, text=True, env=env, timeout=300)
        assert check.returncode == 1 and "Traceback" not in check.stderr
        unverified = "could not be verified as written by desk for this user and library, so it was not read"
        assert unverified in check.stderr
        listed = subprocess.run(
            [*cmd, "list", "--json"], capture_output=True, text=True, env=env, timeout=300
        )
        assert listed.returncode == 0  # the database is read as ever
    finally:
        subprocess.run(["umount", str(seeded_dir)], capture_output=True)


_SLOW_SIGNER = """
import sys, time
from pathlib import Path
import desk.core.search.writer as writer

signed = writer.record


def slow_record(directory):
    # Between writing its table of contents and signing it: as when hashing a big new segment.
    Path(sys.argv[2]).touch()
    time.sleep(2.0)
    signed(directory)


writer.record = slow_record
from desk.core.library.facade import Library

with Library(Path(sys.argv[1])) as lib:
    lib.set_note(3, "written beside a reader")
"""


@pytest.mark.slow
def test_a_reader_beside_a_writer_between_commit_and_signature_waits(
    seeded_dir: Path, tmp_path: Path
) -> None:
    """Another process committing (the window saving a note) holds Whoosh's lock until it has
    signed what it wrote: a reader that sees the unsigned table of contents meanwhile waits for
    the signature, instead of failing (CI saw `Untrusted` from a `Library` opened beside the
    window) or rebuilding a good index."""
    from desk.core.search import SearchIndex

    marker = tmp_path / "between"
    script = tmp_path / "slow_signer.py"
    script.write_text(_SLOW_SIGNER, encoding="utf-8")
    child = subprocess.Popen([sys.executable, str(script), str(seeded_dir), str(marker)])
    try:
        deadline = time.monotonic() + 60
        while not marker.exists() and time.monotonic() < deadline and child.poll() is None:
            time.sleep(0.02)
        assert marker.exists(), "the writer never reached its signature"
        index_dir = seeded_dir / INDEX_DIR_NAME
        assert manifest.writer_busy(index_dir)
        index = SearchIndex(index_dir)
        ids, _ = index.live_revisions()  # before: Untrusted ("not one desk recorded")
        index.close()
        assert 3 in set(ids.tolist())
        assert child.wait(60) == 0
        with Library(seeded_dir) as lib:
            assert lib.repaired is None  # the good index was not rebuilt
            assert [row.paper.id for row in lib.search("note:beside").rows] == [3]
    finally:
        if child.poll() is None:
            child.kill()


def _two_libraries_of_the_same_revisions(tmp_path: Path, seeds_dir: Path) -> tuple[Path, Path]:
    """Two libraries built from different lists of as many papers: the same (id, rev) pairs,
    other texts."""
    first, second = sorted(seeds_dir.glob("*.txt"))[:2]
    made = []
    for name, seed in (("one", first), ("two", second)):
        with Library(tmp_path / name) as lib:
            assert lib.import_paths([seed]).added > 0
            made.append(lib.index.revisions())
    assert made[0] == made[1]  # the stamp's (id, rev) digest cannot tell them apart
    return tmp_path / "one", tmp_path / "two"


@pytest.mark.slow
def test_an_index_copied_from_another_library_of_the_same_revisions_is_rebuilt(
    tmp_path: Path, seeds_dir: Path
) -> None:
    """Its signature, and the stamp beside it, are under the other library's key: the index is
    not read, the searches show this library's abstracts, and check vouches for the new index."""
    one, two = _two_libraries_of_the_same_revisions(tmp_path, seeds_dir)
    with Library(one) as lib:
        theirs = {row.paper.id: row.snippet for row in lib.search("policy").rows}
    shutil.rmtree(two / INDEX_DIR_NAME)
    shutil.copytree(one / INDEX_DIR_NAME, two / INDEX_DIR_NAME)  # times kept: signed record intact
    with Library(two) as lib:
        assert lib.repaired is not None and "could not be verified" in lib.repaired
        ours = {row.paper.id: row.snippet for row in lib.search("policy").rows}
        abstracts = {pid: lib.paper(pid).abstract for pid in ours}
        assert lib.check() == []
    assert ours != theirs
    for pid, snippet in ours.items():  # every snippet is of this library's own abstract
        words = [w for w in snippet.replace("…", " ").split() if w.isalpha() and len(w) > 3]
        assert all(w in abstracts[pid] for w in words), (pid, snippet)
    proc = desk(two, tmp_path, "check")
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr


@pytest.mark.slow
def test_a_library_copied_with_cp_r_opens_without_rebuilding_its_index(
    seeded_dir: Path, tmp_path: Path
) -> None:
    """``cp -r`` keeps no times: the signed record's files are hashed again, found as recorded,
    and recorded with their new times (the next open trusts the stamp and hashes nothing)."""
    copy = tmp_path / "copy"
    subprocess.run(["cp", "-r", str(seeded_dir), str(copy)], check=True)
    index = copy / INDEX_DIR_NAME
    times = {p.name: p.stat().st_mtime_ns for p in index.iterdir()}
    assert times != {p.name: p.stat().st_mtime_ns for p in (seeded_dir / INDEX_DIR_NAME).iterdir()}
    with Library(copy) as lib:
        assert lib.repaired is None  # before: "the search index is damaged"
        assert lib.search_ids("policy").total > 0
        assert lib.check() == []
        assert lib._sync.is_current()
    files = manifest.signed_files(index)
    assert files is not None
    assert all(entry["mtime_ns"] == (index / name).stat().st_mtime_ns for name, entry in files.items())
    proc = desk(copy, tmp_path, "check")
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr


@pytest.mark.slow
def test_a_key_file_of_the_wrong_length_is_replaced_once(seeded_dir: Path, tmp_path: Path) -> None:
    """A short key is replaced by a whole one: the first command rebuilds the index it cannot
    verify, the next ones trust it (before, every command signed for itself alone and rebuilt)."""
    keys = tmp_path / "keys"
    keys.mkdir(mode=0o700)
    key = keys / "secret.key"
    key.write_bytes(b"0123456789abcdef")
    key.chmod(0o600)
    env = {**os.environ, "DESK_KEY_DIR": str(keys)}
    cmd = [sys.executable, "-m", "desk.cli.main", "--library", str(seeded_dir), "stats"]
    first = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300)
    assert first.returncode == 0, first.stderr
    assert "did not hold a whole key" in first.stderr and "could not be verified" in first.stderr
    assert len(key.read_bytes()) == 32 and stat.S_IMODE(key.stat().st_mode) == 0o600
    made = key.read_bytes()
    for _ in range(2):
        again = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300)
        assert again.returncode == 0 and again.stderr == "", again.stderr
    assert key.read_bytes() == made
