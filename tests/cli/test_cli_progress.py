"""Progress of long commands: a bar on stderr when it is a terminal (a pty here), nothing on a pipe,
and never anything but the JSON object on stdout."""

from __future__ import annotations

import contextlib
import io
import json
import os
import pty
import select
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from desk.cli import progress
from desk.cli.main import main


def _drain(fd: int) -> str:
    """What the other end of a pty or pipe has written so far."""
    chunks: list[bytes] = []
    while select.select([fd], [], [], 0.2)[0]:
        try:
            data = os.read(fd, 65536)
        except OSError:  # the pty's other end is closed
            break
        if not data:
            break
        chunks.append(data)
    return b"".join(chunks).decode("utf-8", "replace")


@pytest.fixture
def terminal(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[int, io.TextIOWrapper]]:
    """stderr made a terminal (the slave end of a pty); bars shown at once, not after a second."""
    master, slave = pty.openpty()
    stream = os.fdopen(slave, "w", encoding="utf-8", buffering=1)
    monkeypatch.setattr(progress, "SHOW_AFTER", 0.0)
    yield master, stream
    stream.close()
    os.close(master)


def test_import_on_a_terminal_shows_a_bar_and_json_stays_clean(
    monkeypatch: pytest.MonkeyPatch,
    terminal: tuple[int, io.TextIOWrapper],
    seeds_dir: Path,
    tmp_path: Path,
) -> None:
    master, stream = terminal
    monkeypatch.setattr(sys, "stderr", stream)  # here: pytest sets its own after the fixtures
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["--library", str(tmp_path / "lib"), "import", str(seeds_dir), "--json"]) == 0
    stream.flush()
    shown = _drain(master)
    assert "Importing" in shown and "files" in shown and "5/5" in shown, shown
    assert json.loads(out.getvalue())["added"] > 0  # stdout is the one JSON object, no bar in it
    assert "Importing" not in out.getvalue()


def test_dupes_on_a_terminal_shows_the_near_duplicate_search_and_json_stays_clean(
    monkeypatch: pytest.MonkeyPatch, terminal: tuple[int, io.TextIOWrapper], seeded_dir: Path
) -> None:
    from desk.core.runtime.paths import CACHE_DIR_NAME, DUPLICATES_CACHE_NAME

    (seeded_dir / CACHE_DIR_NAME / DUPLICATES_CACHE_NAME).unlink()  # every paper is hashed again
    master, stream = terminal
    monkeypatch.setattr(sys, "stderr", stream)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["--library", str(seeded_dir), "dupes", "--json"]) == 0
    stream.flush()
    shown = _drain(master)
    assert "Near-duplicates" in shown and "94/94" in shown and "hashing" in shown, shown
    assert "groups" in json.loads(out.getvalue())


def test_the_near_duplicate_check_reports_the_pairs_it_verifies() -> None:
    from dedup_texts import PAPER, SECOND, head, tail

    from desk.core.dedup import NearDuplicateIndex

    index = NearDuplicateIndex()
    texts = [PAPER, head(PAPER, 0.6), tail(PAPER, 0.6), SECOND, head(SECOND, 0.5)]
    index.add_many(list(enumerate(texts, 1)))
    heard: list[tuple[int, int, str]] = []
    groups = index.groups(progress=lambda done, total, step: heard.append((done, total, step)))
    assert groups and heard and heard[-1][0] == heard[-1][1] >= 3 and heard[-1][2] == "checking pairs"


def test_import_on_a_terminal_shows_the_near_duplicate_search_after_the_files(
    monkeypatch: pytest.MonkeyPatch, terminal: tuple[int, io.TextIOWrapper], seeds_dir: Path, tmp_path: Path
) -> None:
    master, stream = terminal
    monkeypatch.setattr(sys, "stderr", stream)
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["--library", str(tmp_path / "lib"), "import", str(seeds_dir)]) == 0
    stream.flush()
    shown = _drain(master)
    assert shown.index("Importing") < shown.index("Near-duplicates"), shown


def test_reindex_on_a_terminal_shows_a_bar(
    monkeypatch: pytest.MonkeyPatch, terminal: tuple[int, io.TextIOWrapper], seeded_dir: Path
) -> None:
    master, stream = terminal
    monkeypatch.setattr(sys, "stderr", stream)  # here: pytest sets its own after the fixtures
    assert main(["--library", str(seeded_dir), "reindex"]) == 0
    stream.flush()
    assert "Rebuilding the search index" in _drain(master)


def test_a_pipe_gets_no_bar(monkeypatch: pytest.MonkeyPatch, seeds_dir: Path, tmp_path: Path) -> None:
    read_end, write_end = os.pipe()
    stream = os.fdopen(write_end, "w", encoding="utf-8")
    monkeypatch.setattr(sys, "stderr", stream)
    monkeypatch.setattr(progress, "SHOW_AFTER", 0.0)
    try:
        assert main(["--library", str(tmp_path / "lib"), "import", str(seeds_dir), "--json"]) == 0
        assert main(["--library", str(tmp_path / "lib"), "reindex"]) == 0
        stream.flush()
        assert _drain(read_end) == ""
    finally:
        stream.close()
        os.close(read_end)


def test_a_terminal_that_says_no_size_still_gets_a_visible_bar(monkeypatch: pytest.MonkeyPatch) -> None:
    master, slave = pty.openpty()  # never sized: 0 columns, 0 rows (tqdm alone draws nothing)
    stream = os.fdopen(slave, "w", encoding="utf-8", buffering=1)
    monkeypatch.setattr(progress, "SHOW_AFTER", 0.0)
    try:
        assert progress.terminal_size(stream) == (80, 24)
        bar = progress.Bar("Rebuilding", "papers", stream)
        for done in range(0, 1001, 100):
            bar(done, 1000)
        stream.flush()
        assert "1000/1000" in _drain(master)
    finally:
        stream.close()
        os.close(master)


def test_quick_work_shows_no_bar(monkeypatch: pytest.MonkeyPatch) -> None:
    master, slave = pty.openpty()
    stream = os.fdopen(slave, "w", encoding="utf-8", buffering=1)
    try:
        bar = progress.Bar("Importing", "files", stream)  # shown only after SHOW_AFTER (1 s)
        for done in range(6):
            bar(done, 5)
        stream.flush()
        assert "Importing" not in _drain(master)
    finally:
        stream.close()
        os.close(master)
