"""A library is its owner's alone: made 0700 with every file 0600 whatever the umask; one made
before, readable by others, is left so but the user is told, once."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from desk.core.library.facade import Library
from desk.core.runtime.paths import DATABASE_NAME

#: Run under the umask of most systems (022): make a library and use every part of it, then list
#: every file's mode while the database is open (its -wal and -shm exist only then).
_USE_EVERY_PART = """
import json, os, sys
from pathlib import Path
from desk.core.library.facade import Library

folder, seeds = Path(sys.argv[1]), Path(sys.argv[2])


def modes():
    return {str(p.relative_to(folder)): os.stat(p).st_mode & 0o7777 for p in [folder, *folder.rglob("*")]}


with Library(folder) as lib:
    lib.import_paths(sorted(seeds.glob("*.txt"))[:2])
    lib.set_note(lib.paper_ids()[0], "personal")
    lib.backup()
    lib.search_ids("policy")
    lib.discovery.ensure_vectors()
    lib.discovery.related(lib.paper_ids()[0])
    lib.duplicates.groups()
    seen = modes()  # the database's -wal and -shm exist while it is open
seen.update(modes())  # the near-duplicate cache is saved as the library closes
print(json.dumps(seen))
"""


def _under_umask_022(*cmd: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        list(cmd), capture_output=True, text=True, timeout=300, preexec_fn=lambda: os.umask(0o022)
    )


@pytest.mark.slow
def test_a_new_library_is_private_under_a_umask_of_022(tmp_path: Path, seeds_dir: Path) -> None:
    folder = tmp_path / "library"
    script = tmp_path / "use_every_part.py"
    script.write_text(_USE_EVERY_PART, encoding="utf-8")
    proc = _under_umask_022(sys.executable, str(script), str(folder), str(seeds_dir))
    assert proc.returncode == 0, proc.stderr
    modes: dict[str, int] = json.loads(proc.stdout)
    assert modes["."] == 0o700
    names = set(modes)
    for name in (DATABASE_NAME, f"{DATABASE_NAME}-wal", f"{DATABASE_NAME}-shm", "library.id"):
        assert modes[name] == 0o600, (name, oct(modes[name]))
    kinds = {
        "backups/": [n for n in names if n.startswith("backups/") and n.endswith(".sqlite3")],
        "index/": [n for n in names if n.startswith("index/") and n.endswith((".seg", ".toc", ".json"))],
        "cache/": [n for n in names if n.startswith("cache/")],
        "vectors/": [n for n in names if n.startswith("vectors/")],
    }
    for kind, files in kinds.items():
        assert files, f"nothing in {kind}"
        assert all(modes[n] == 0o600 for n in files), {n: oct(modes[n]) for n in files}
    # Every folder and file: nothing at all for group and others (Whoosh's lock file is 0700).
    assert {n: oct(m) for n, m in modes.items() if m & 0o077} == {}


@pytest.mark.slow
def test_the_command_line_makes_a_library_private_and_an_export_as_the_umask_says(
    tmp_path: Path, seeds_dir: Path
) -> None:
    folder = tmp_path / "library"
    cli = [sys.executable, "-m", "desk.cli.main", "--library", str(folder)]
    seed = str(sorted(seeds_dir.glob("*.txt"))[0])
    assert _under_umask_022(*cli, "import", seed).returncode == 0
    assert _under_umask_022(*cli, "star", "1").returncode == 0  # the light writer (plain sqlite3)
    out = tmp_path / "starred.md"
    proc = _under_umask_022(*cli, "export", "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    opened = {str(p): stat.S_IMODE(p.stat().st_mode) for p in folder.rglob("*")}
    assert {p: oct(m) for p, m in opened.items() if m & 0o077} == {}
    assert stat.S_IMODE(out.stat().st_mode) == 0o644  # the user's file, not the library's
    assert proc.stderr.count("note:") == 0  # a private library: nothing to tell


def test_an_existing_readable_library_stays_readable_and_is_told_once(seeded_dir: Path) -> None:
    os.chmod(seeded_dir, 0o755)  # as a desk that did not make libraries private left it
    cli = [sys.executable, "-m", "desk.cli.main", "--library", str(seeded_dir)]
    first = subprocess.run([*cli, "stats"], capture_output=True, text=True, timeout=300)
    assert first.returncode == 0, first.stderr
    told = [line for line in first.stderr.splitlines() if line.startswith("desk: note:")]
    assert len(told) == 1 and "can be read by other users (permissions 0755)" in told[0], first.stderr
    assert f"chmod -R go= {seeded_dir}" in told[0]
    for command in ("stats", "list"):  # the light path and the whole Library alike: said once
        again = subprocess.run([*cli, command], capture_output=True, text=True, timeout=300)
        assert again.returncode == 0 and again.stderr == "", again.stderr
    with Library(seeded_dir) as lib:
        assert lib.exposure is None
    assert stat.S_IMODE(seeded_dir.stat().st_mode) == 0o755  # left as the user had it
    os.chmod(seeded_dir, 0o750)  # made readable in another way: said again, once
    with Library(seeded_dir) as lib:
        assert lib.exposure is not None and "permissions 0750" in lib.exposure
    with Library(seeded_dir) as lib:
        assert lib.exposure is None
