"""A folder of many small files: stored file by file, indexed in batches, merged once.

Each file is still its own transaction (a bad one is skipped, nothing else lost); its papers wait
in the index queue from that commit on, so a kill -9 in the middle of the folder leaves every
committed file searchable once the library opens again.
"""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

import pytest
from dev_texts import needs_dev_corpus
from whoosh import index as windex

from desk.core.importing import indexing as import_indexing
from desk.core.library.facade import Library
from desk.core.reader import read_list_file
from desk.core.runtime.paths import DATABASE_NAME, INDEX_DIR_NAME
from desk.core.search.schema import INDEX_NAME

SEEDS = Path(__file__).resolve().parents[3] / "seeds"


def seed_abstracts() -> list[str]:
    """The bundled sample's distinct abstracts (real text)."""
    out: dict[str, None] = {}
    for path in sorted(SEEDS.glob("*.txt")):
        out.update(dict.fromkeys(read_list_file(path).abstracts))
    return list(out)


def write_folder(folder: Path, count: int) -> list[str]:
    """``count`` one-abstract list files; each abstract ends with a word of its own (returned)."""
    folder.mkdir(parents=True, exist_ok=True)
    texts = seed_abstracts()
    words = []
    for k in range(count):
        word = f"zqfile{k:04d}x"
        text = f"{texts[k % len(texts)]} We release it as {word} for file {k}."
        (folder / f"paper-{k:04d}.txt").write_text(f"Folder {k} Papers\n\n{text}\n", encoding="utf-8")
        words.append(word)
    return words


def generation(library: Path) -> int:
    """The index's table-of-contents generation: one more per commit."""
    ix = windex.open_dir(str(library / INDEX_DIR_NAME), indexname=INDEX_NAME)
    try:
        return int(ix.latest_generation())
    finally:
        ix.close()


def segment_sizes(library: Path) -> list[int]:
    ix = windex.open_dir(str(library / INDEX_DIR_NAME), indexname=INDEX_NAME)
    try:
        return sorted(s.doc_count_all() for s in ix._segments())
    finally:
        ix.close()


def test_a_folder_of_small_files_is_one_index_commit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(import_indexing, "FLUSH_EVERY_SECONDS", 1e9)  # no write for the time passed
    words = write_folder(tmp_path / "folder", 40)
    library = tmp_path / "library"
    with Library(library) as lib:
        lib.import_paths([SEEDS])
        before = generation(library)
        report = lib.import_paths([tmp_path / "folder"])
        assert (report.files, report.added, report.errors) == (40, 40, ())
        assert generation(library) == before + 1  # one commit (and its merge), not one per file
        for word in words[::7]:
            assert lib.search(word).total == 1, word
        assert lib.check() == []


def test_commits_in_the_middle_of_an_import_merge_nothing_and_the_end_merges_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(import_indexing, "FLUSH_EVERY_SECONDS", 0.0)  # a write after every file
    write_folder(tmp_path / "folder", 12)
    library = tmp_path / "library"
    with Library(library) as lib:
        before = generation(library)
        lib.import_paths([tmp_path / "folder"])
        # A commit per file, none of them merging, then the one merge: no tiny segments left.
        assert generation(library) == before + 13
        assert segment_sizes(library) == [12]
        assert lib.check() == []


@pytest.mark.slow
def test_kill_9_in_the_middle_of_a_folder_leaves_every_committed_file_searchable(tmp_path: Path) -> None:
    import os
    import signal
    import subprocess
    import sys

    words = write_folder(tmp_path / "folder", 400)
    library = tmp_path / "library"
    with Library(library):
        pass
    folder = str(tmp_path / "folder")
    cmd = [sys.executable, "-m", "desk.cli.main", "--library", str(library), "import", folder]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        stored = 0
        while stored < 30 and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
            with sqlite3.connect(f"file:{library / DATABASE_NAME}?mode=ro", uri=True) as db:
                stored = db.execute("SELECT count(*) FROM import_record").fetchone()[0]
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=60)
    assert proc.returncode == -signal.SIGKILL, "the import finished before the kill"
    with Library(library) as lib:
        papers = lib.papers(lib.paper_ids())
        assert 30 <= len({s.file for p in papers for s in p.sources}) < 400
        for paper in papers:
            word = words[int(paper.sources[0].file[6:10])]
            assert [r.paper.id for r in lib.search(word).rows] == [paper.id], word
        assert lib.check() == []


@pytest.mark.slow
@needs_dev_corpus
def test_big_files_are_gathered_into_batches_of_import_batch_papers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Segments of import_batch / workers papers, not one per file and worker: the closing merge
    (which rewrites every paper it merges) then has nothing to do up to 100k papers."""
    from dataclasses import replace

    from desk.core.search import index_queue

    monkeypatch.setattr(index_queue, "IDS_PER_STATEMENT", 7)  # a batch's ids looked up in many pieces

    from dev_texts import dev_abstracts

    from desk.core.runtime.processes import WorkerPool
    from desk.core.runtime.tuning import Tuning

    workers = WorkerPool().workers
    if workers != 2:
        pytest.skip("sized for two worker processes")
    texts = dev_abstracts()[:2000]
    folder = tmp_path / "lists"
    folder.mkdir()
    for f in range(4):
        body = "\n\n".join(texts[f * 500 : (f + 1) * 500])
        (folder / f"list-{f}.txt").write_text(f"Conf {f} Papers\n\n{body}\n", encoding="utf-8")
    tuning = replace(Tuning.eager(5), import_batch=1000)
    library = tmp_path / "library"
    with Library(library, tuning=tuning) as lib:
        report = lib.import_paths([folder])
        assert report.added == len(set(texts))
        # Files 1-2 and 3-4 are a batch each, a segment per worker: four of 500, none of them
        # small enough to be folded (a segment per file and worker: eight of 250, folded into one).
        sizes = segment_sizes(library)
        assert len(sizes) == 4 and sum(sizes) == report.added and min(sizes) >= 490, sizes
        assert lib.check() == []
        assert lib.search("diffusion", limit=5).total > 0
