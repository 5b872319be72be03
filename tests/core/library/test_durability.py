"""Never lose data: kill -9 at random moments, damaged indexes, two writers at once."""

from __future__ import annotations

import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from desk.core.library.facade import Library
from desk.core.runtime.paths import DATABASE_NAME, INDEX_DIR_NAME

WORDS = [
    "learning",
    "model",
    "policy",
    "gradient",
    "diffusion",
    "graph",
    "neural",
    "network",
    "robust",
    "sparse",
    "attention",
    "kernel",
    "bayesian",
    "inference",
    "causal",
    "reward",
    "agent",
    "transformer",
    "token",
    "language",
    "vision",
    "contrastive",
    "latent",
    "optimal",
    "transport",
    "convex",
    "bound",
    "regret",
    "bandit",
    "federated",
    "privacy",
    "adversarial",
    "calibration",
]


def write_lists(folder: Path, files: int, per_file: int, seed: int = 7) -> int:
    """Synthetic list files; returns how many distinct abstracts they hold."""
    rng = random.Random(seed)
    folder.mkdir(parents=True, exist_ok=True)
    for f in range(files):
        paras = []
        for i in range(per_file):
            body = " ".join(rng.choice(WORDS) for _ in range(60))
            paras.append(f"We study problem {f}-{i} in depth. {body.capitalize()}.")
        (folder / f"list_{f:02d}.txt").write_text(f"Conf {f} Papers\n\n" + "\n\n".join(paras) + "\n")
    return files * per_file


def desk_cmd(lib: Path, *args: str) -> list[str]:
    return [sys.executable, "-m", "desk", "--library", str(lib), *args]


@pytest.mark.slow
def test_kill_during_import_leaves_a_sound_library(tmp_path: Path) -> None:
    lists = tmp_path / "lists"
    expected = write_lists(lists, files=8, per_file=150)
    lib = tmp_path / "L"
    rng = random.Random(1)
    for _ in range(4):
        proc = subprocess.Popen(
            desk_cmd(lib, "import", str(lists)), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        time.sleep(rng.uniform(0.8, 3.0))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        with Library(lib) as opened:
            assert opened.check() == []
    done = subprocess.run(desk_cmd(lib, "import", str(lists)), capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    with Library(lib) as opened:
        assert opened.count() == expected
        assert opened.check() == []


def _children(pid: int) -> set[int]:
    """Processes whose parent is ``pid`` (Linux /proc)."""
    found = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.add(int(stat.parent.name))
    return found


def _gone(pids: set[int], within: float) -> bool:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if not any(Path(f"/proc/{p}").exists() and "Z" not in _state(p) for p in pids):
            return True
        time.sleep(0.1)
    return False


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return "Z"


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_kill_during_an_import_on_worker_processes_leaves_a_sound_library_and_no_workers(
    tmp_path: Path,
) -> None:
    lib = tmp_path / "L"
    expected = 0
    for k, delay in enumerate((0.3, 2.0)):
        lists = tmp_path / f"lists{k}"  # new lists each time, so the import has work to do
        expected += write_lists(lists, files=3, per_file=2500, seed=k)  # big enough for the workers
        proc = subprocess.Popen(
            desk_cmd(lib, "import", str(lists)), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        deadline = time.monotonic() + 60
        while len(_children(proc.pid)) < 2 and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.05)
        time.sleep(delay)  # then into the import: analysing, or writing segments
        workers = _children(proc.pid)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        assert workers, "the import had started its worker processes"
        assert _gone(workers, within=15), "worker processes outlived the killed import"
        with Library(lib) as opened:
            assert opened.check() == []
        assert not [p for p in (lib / INDEX_DIR_NAME).iterdir() if p.is_dir()]  # staging swept
    folders = [str(tmp_path / f"lists{k}") for k in range(2)]
    done = subprocess.run(desk_cmd(lib, "import", *folders), capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    with Library(lib) as opened:
        assert opened.count() == expected
        assert opened.check() == []


STORM = """
import sys
from pathlib import Path
from desk.core.library.facade import Library
lib = Library(Path(sys.argv[1]))
ids = lib.paper_ids()
k = 0
while True:
    pid = ids[k % len(ids)]
    lib.set_note(pid, f"note {k}")
    lib.set_starred([pid], k % 2 == 0)
    print(k, pid, flush=True)
    k += 1
"""


@pytest.mark.slow
def test_kill_during_note_and_star_storm_keeps_every_committed_write(tmp_path: Path) -> None:
    lists = tmp_path / "lists"
    write_lists(lists, files=1, per_file=30)
    lib = tmp_path / "L"
    with Library(lib) as opened:
        opened.import_paths([lists])
    proc = subprocess.Popen([sys.executable, "-c", STORM, str(lib)], stdout=subprocess.PIPE, text=True)
    lines: list[str] = []
    deadline = time.monotonic() + 60
    assert proc.stdout is not None
    while len(lines) < 40 and time.monotonic() < deadline:
        lines.append(proc.stdout.readline().strip())
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    lines += [ln.strip() for ln in proc.stdout.read().splitlines()]
    committed: dict[int, int] = {}
    for line in filter(None, lines):
        k, pid = map(int, line.split())
        committed[pid] = k
    assert len(committed) >= 20
    with Library(lib) as opened:
        assert opened.check() == []
        for pid, k in committed.items():
            paper = opened.paper(pid)
            # the write after the last one printed may also have landed: never an older one
            assert int(paper.note.split()[1]) >= k
        hits = opened.search_ids(f'note:"note {max(committed.values())}"').hits
        assert hits


def _seeded(seeded_dir: Path) -> Path:
    return seeded_dir / INDEX_DIR_NAME


@pytest.mark.parametrize("damage", ["delete", "garbage", "truncate", "empty_dir"])
def test_damaged_index_is_rebuilt_on_open(seeded_dir: Path, damage: str) -> None:
    index = _seeded(seeded_dir)
    with Library(seeded_dir) as lib:
        pid = lib.paper_ids()[4]
        lib.set_note(pid, "zebrafish annotation")
    files = [p for p in index.rglob("*") if p.is_file()]
    if damage == "delete":
        import shutil

        shutil.rmtree(index)
    elif damage == "garbage":
        for p in files:
            p.write_bytes(os.urandom(max(p.stat().st_size, 64)))
    elif damage == "truncate":
        for p in files:
            with p.open("r+b") as fh:
                fh.truncate(p.stat().st_size // 3)
    else:
        for p in files:
            p.unlink()
    with Library(seeded_dir) as lib:
        assert lib.repaired
        assert lib.check() == []
        assert [h.id for h in lib.search_ids("zebrafish").hits] == [pid]
        assert lib.count() == 94


def test_index_behind_the_database_is_caught_up(seeded_dir: Path) -> None:
    """As if killed between the database commit and the index commit."""
    with Library(seeded_dir) as lib:
        pid = lib.paper_ids()[0]
    conn = sqlite3.connect(seeded_dir / DATABASE_NAME)
    conn.execute("UPDATE paper SET note = 'axolotl', rev = rev + 1 WHERE id = ?", (pid,))
    conn.execute("INSERT INTO index_queue (paper_id) VALUES (?)", (pid,))
    conn.commit()
    conn.close()
    with Library(seeded_dir) as lib:
        assert lib.check() == []
        assert [h.id for h in lib.search_ids("axolotl").hits] == [pid]


@pytest.mark.slow
def test_check_reports_an_index_that_disagrees(seeded_dir: Path) -> None:
    with Library(seeded_dir) as lib:
        pid = lib.paper_ids()[0]
        conn = sqlite3.connect(seeded_dir / DATABASE_NAME)
        conn.execute("UPDATE paper SET rev = rev + 5 WHERE id = ?", (pid,))
        conn.commit()
        conn.close()
        assert any("out of date" in p for p in lib.check())
    # Opening finds it too (the revisions differ, not the count) and rebuilds the index.
    proc = subprocess.run(desk_cmd(seeded_dir, "check"), capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "holds other revisions" in proc.stderr and "Traceback" not in proc.stderr
    assert subprocess.run(desk_cmd(seeded_dir, "check"), capture_output=True, timeout=120).returncode == 0


@pytest.mark.slow
def test_two_writers_at_once(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    n = write_lists(a, files=3, per_file=120, seed=1) + write_lists(b, files=3, per_file=120, seed=2)
    lib = tmp_path / "L"
    with Library(lib):
        pass
    procs = [
        subprocess.Popen(desk_cmd(lib, "import", str(p)), stderr=subprocess.PIPE, text=True) for p in (a, b)
    ]
    errs = [p.communicate(timeout=300)[1] for p in procs]
    assert [p.returncode for p in procs] == [0, 0], errs
    assert all("Traceback" not in e for e in errs)
    with Library(lib) as opened:
        assert opened.count() == n
        assert opened.check() == []
