"""A damaged database, a full disk, a read-only folder, odd bytes and odd targets: plain words,
a way out, nothing lost."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from desk.core.library.facade import Library
from desk.core.runtime.paths import DATABASE_NAME


def desk(library: Path, *args: str | bytes, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-m", "desk.cli.main", "--library", str(library), *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, errors="replace")


def damage_pages(db: Path, seed: int = 3) -> None:
    """Random bytes over the middle of several pages (not the header nor the schema's own pages:
    SQLite still opens it; schema step 7's index moved a page of the schema under this pattern)."""
    import random
    import sqlite3

    conn = sqlite3.connect(db)
    schema = {n for (n,) in conn.execute("SELECT pageno FROM dbstat WHERE name = 'sqlite_schema'")}
    conn.close()
    rng = random.Random(seed)
    size = db.stat().st_size
    with db.open("r+b") as fh:
        for page in range(3, size // 4096, 2):
            if page + 1 in schema:  # page numbers count from 1
                continue
            fh.seek(page * 4096 + 100)
            fh.write(bytes(rng.randrange(256) for _ in range(300)))


@pytest.mark.slow
def test_a_damaged_database_is_reported_in_plain_words_with_a_way_out(
    seeded_dir: Path, tmp_path: Path
) -> None:
    with Library(seeded_dir) as lib:
        lib.set_starred(lib.paper_ids()[:3], True)
        good = lib.backup(tmp_path / "good.sqlite3")
    good_bytes = good.read_bytes()
    damage_pages(seeded_dir / DATABASE_NAME)
    check = desk(seeded_dir, "check")
    assert check.returncode == 1 and "Traceback" not in check.stderr
    assert "is damaged" in check.stderr and "desk salvage" in check.stderr and "desk restore" in check.stderr
    for args in (["stats"], ["list"], ["show", "1"]):
        proc = desk(seeded_dir, *args)
        assert "Traceback" not in proc.stderr and "[SQL" not in proc.stderr
        assert proc.returncode == 0 or "is damaged" in proc.stderr, (args, proc.stderr)
    # A backup refuses to put a damaged copy over a good one, unless told to.
    refused = desk(seeded_dir, "backup", str(good))
    assert refused.returncode == 1 and "damaged" in refused.stderr and "--force" in refused.stderr
    assert good.read_bytes() == good_bytes
    forced = desk(seeded_dir, "backup", str(tmp_path / "damaged.sqlite3"), "--force")
    assert forced.returncode == 0, forced.stderr
    # Salvage copies what can be read into a new library that opens and passes check.
    saved = desk(seeded_dir, "salvage", str(tmp_path / "saved"))
    assert saved.returncode == 0, saved.stderr
    assert "Salvaged" in saved.stdout
    with Library(tmp_path / "saved") as lib:
        assert lib.count() > 0 and lib.check() == []
    # And restore puts the good backup back.
    restored = desk(seeded_dir, "restore", str(good))
    assert restored.returncode == 0, restored.stderr
    assert desk(seeded_dir, "check").returncode == 0
    stats = json.loads(desk(seeded_dir, "stats", "--json").stdout)
    assert stats["papers"] == 94 and stats["starred"] == 3


@pytest.mark.slow
def test_salvage_keeps_every_readable_paper_note_and_star(seeded_dir: Path, tmp_path: Path) -> None:
    with Library(seeded_dir) as lib:
        ids = lib.paper_ids()
        lib.set_note(ids[7], "my note")
        lib.set_starred(ids[:5], True)
    saved = desk(seeded_dir, "salvage", str(tmp_path / "copy"))
    assert saved.returncode == 0, saved.stderr
    with Library(tmp_path / "copy") as lib:
        assert lib.paper_ids() == ids
        assert lib.paper(ids[7]).note == "my note" and lib.paper_ids(starred=True) == ids[:5]
        assert lib.check() == []
    refused = desk(seeded_dir, "salvage", str(tmp_path / "copy"))
    assert refused.returncode == 1 and "not empty" in refused.stderr


@pytest.mark.slow
def test_an_emptied_database_is_not_silently_a_new_library(seeded_dir: Path) -> None:
    (seeded_dir / DATABASE_NAME).write_bytes(b"")
    for name in ("library.sqlite3-wal", "library.sqlite3-shm"):
        (seeded_dir / name).unlink(missing_ok=True)
    proc = desk(seeded_dir, "stats")
    assert proc.returncode == 1 and "empty file (0 bytes)" in proc.stderr and "Traceback" not in proc.stderr
    assert (seeded_dir / DATABASE_NAME).stat().st_size == 0  # left as it was
    fresh = desk(seeded_dir.parent / "new-library", "stats")
    assert fresh.returncode == 0  # a library that never was is still simply new


@contextmanager
def tiny_disk(where: Path, size: str = "700k") -> Iterator[Path]:
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("a tmpfs needs root")
    where.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)]).returncode:
        pytest.skip("mount -t tmpfs is not allowed here")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], capture_output=True)


@pytest.mark.slow
def test_a_full_disk_is_said_as_such_and_keeps_what_was_imported(tmp_path: Path, seeds_dir: Path) -> None:
    corpus = Path(__file__).resolve().parents[3] / ".." / "shared" / "dev-corpus" / "cvpr2023.txt"
    lists = tmp_path / "lists"
    lists.mkdir()
    for f in sorted(seeds_dir.glob("*.txt")):
        shutil.copy(f, lists / f.name)
    big = "Big 2026 Papers\n\n" + "\n\n".join(
        f"Paper {k} studies {'learning ' * 40}with result {k} and much more text on models."
        for k in range(3000)
    )
    (lists / "zz-big.txt").write_text(corpus.read_text() if corpus.is_file() else big, encoding="utf-8")
    with tiny_disk(tmp_path / "disk") as disk:
        proc = desk(disk / "L", "import", str(lists))
        assert proc.returncode == 1
        assert "the disk is full" in proc.stderr and str(disk / "L") in proc.stderr
        assert "Traceback" not in proc.stderr and "[SQL" not in proc.stderr and len(proc.stderr) < 3000
        stats = desk(disk / "L", "stats", "--json")
        assert stats.returncode == 0 and "Traceback" not in stats.stderr
        check = desk(disk / "L", "check")
        assert "Traceback" not in check.stderr
        kept = json.loads(stats.stdout)["papers"]
    assert kept >= 0


@pytest.mark.slow
def test_a_read_only_library_is_said_as_such_and_still_reads(seeded_dir: Path) -> None:
    if os.geteuid() != 0:
        pytest.skip("a read-only bind mount needs root")
    if subprocess.run(["mount", "--bind", str(seeded_dir), str(seeded_dir)], capture_output=True).returncode:
        pytest.skip("mount --bind is not allowed here")
    try:
        subprocess.run(["mount", "-o", "remount,ro,bind", str(seeded_dir)], check=True)
        star = desk(seeded_dir, "star", "1")
        assert star.returncode == 1 and "Traceback" not in star.stderr
        assert f"the library folder is read-only: {seeded_dir}" in star.stderr
        assert "cannot be opened as a desk library" not in star.stderr
        # The truth stays readable: reading never needs the folder to be writable.
        stats = desk(seeded_dir, "stats", "--json")
        assert stats.returncode == 0 and json.loads(stats.stdout)["papers"] == 94, stats.stderr
        found = desk(seeded_dir, "search", "policy", "--json")
        assert found.returncode == 0 and json.loads(found.stdout)["total"] > 0
        check = desk(seeded_dir, "check")
        # The database and the index are sound: check passes. Vectors that were never built cannot
        # be built here; that is said as a note (one line, plain words), not as a failure.
        assert check.returncode == 0 and check.stdout.startswith("OK:"), check.stdout + check.stderr
        assert check.stderr == (
            "desk: note: the semantic vectors cannot be written here (its folder is read-only): there are"
            " no semantic vectors; ranked searches use words alone until desk opens the library where it"
            " can write\n"
        )
    finally:
        subprocess.run(["umount", str(seeded_dir)], capture_output=True)


@pytest.mark.slow
def test_bytes_that_are_not_utf8_in_names_and_arguments(tmp_path: Path) -> None:
    folder = tmp_path / "in"
    folder.mkdir()
    text = (
        "Conf 2026 Papers\n\nWe study {} names in file systems and show that this works well for all of us.\n"
    )
    (folder / os.fsdecode(b"bad\xff.txt")).write_text(text.format("odd"), encoding="utf-8")
    (folder / "good.txt").write_text(text.format("good"), encoding="utf-8")
    lib = tmp_path / "L"
    proc = desk(lib, "import", str(folder))
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    listed = json.loads(desk(lib, "list", "--json").stdout)["papers"]
    assert sorted(s["file"] for p in listed for s in p["sources"]) == ["bad\\xff.txt", "good.txt"]
    cmd = [sys.executable, "-m", "desk.cli.main", "--library", str(lib), "note", "1", "--set", b"x\xffy"]
    note = subprocess.run(cmd, capture_output=True, timeout=120)
    assert note.returncode == 0 and b"Traceback" not in note.stderr
    assert json.loads(desk(lib, "show", "1", "--json").stdout)["note"] == "x\ufffdy"


@pytest.mark.slow
def test_odd_ids_and_a_query_starting_with_a_dash(seeded_dir: Path) -> None:
    proc = desk(seeded_dir, "show", "99999999999999999999")
    assert proc.returncode == 2 and "is not a paper id" in proc.stderr and "Traceback" not in proc.stderr
    found = desk(seeded_dir, "search", "-policy", "--json")
    assert found.returncode == 0, found.stderr
    assert json.loads(found.stdout)["query"] == "-policy"
    dashed = desk(seeded_dir, "search", "--json", "--", "-policy")
    assert dashed.returncode == 0 and json.loads(dashed.stdout)["query"] == "-policy"
    note = desk(seeded_dir, "note", "1", "--set", "-a note that starts with a dash")
    assert note.returncode == 0, note.stderr
    assert json.loads(desk(seeded_dir, "show", "1", "--json").stdout)["note"].startswith("-a note")


@pytest.mark.slow
def test_export_and_backup_never_replace_a_link_a_fifo_or_a_device(seeded_dir: Path, tmp_path: Path) -> None:
    desk(seeded_dir, "star", "1")
    real = tmp_path / "real.md"
    real.write_text("old")
    link = tmp_path / "link.md"
    link.symlink_to(real)
    assert desk(seeded_dir, "export", "-o", str(link)).returncode == 0
    assert link.is_symlink() and real.read_text().startswith("# desk export")
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    reader = subprocess.Popen(["cat", str(fifo)], stdout=subprocess.PIPE)
    assert desk(seeded_dir, "export", "-o", str(fifo)).returncode == 0
    assert reader.communicate(timeout=60)[0].startswith(b"# desk export")
    assert fifo.exists() and not fifo.is_file()
    refused = desk(seeded_dir, "backup", str(fifo))
    assert refused.returncode == 1 and "a FIFO" in refused.stderr and not fifo.is_file()
    assert desk(seeded_dir, "backup", "/dev/null").returncode == 1
    assert Path("/dev/null").is_char_device()
    backup_link = tmp_path / "b.sqlite3"
    target = tmp_path / "target.sqlite3"
    backup_link.symlink_to(target)
    assert desk(seeded_dir, "backup", str(backup_link)).returncode == 0
    assert (
        backup_link.is_symlink()
        and sqlite3.connect(target).execute("select count(*) from paper").fetchone()[0] == 94
    )


@settings(max_examples=300, deadline=None)
@given(
    st.one_of(
        st.text(min_size=1, max_size=30), st.sampled_from(["-1e5", "-inf", "-5", "-policy", "-is:read"])
    ),
    st.booleans(),
)
@pytest.mark.slow
def test_any_query_that_names_no_option_reaches_search_as_typed(query: str, json_first: bool) -> None:
    from desk.cli.main import _parsers, _words_starting_with_a_dash

    assume(not query.startswith("--") and query not in ("-h",) and "\x00" not in query)
    parser, commands = _parsers()
    argv = ["--library", "L", "search", *(["--json"] if json_first else []), query, "--limit", "5"]
    args = parser.parse_args(_words_starting_with_a_dash(argv, commands))
    assert args.query == query and args.limit == 5 and args.json == json_first
