"""The index on disk: states, rebuilds, cancels, corruption, versions, revisions."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest
from whoosh import index as windex

from desk.core.search import IndexDoc, IndexState, SearchIndex, manifest
from desk.core.search.schema import INDEX_NAME, MARKER_NAME, build_schema


def docs(n: int = 40, rev: int = 1) -> list[IndexDoc]:
    topics = [
        "graph neural networks",
        "diffusion models",
        "offline reinforcement learning",
        "sparse attention",
    ]
    return [
        IndexDoc(
            i,
            rev + i,
            f"Paper {i} on {topics[i % 4]}",
            "",
            f"We study {topics[i % 4]} and report results on benchmark number {i}.",
            "",
            i % 5 == 0,
            False,
            ("Test",),
        )
        for i in range(1, n + 1)
    ]


@pytest.fixture()
def built(tmp_path: Path) -> SearchIndex:
    ix = SearchIndex(tmp_path / "index")
    ix.rebuild(docs(), 40)
    return ix


def test_missing_for_a_new_or_empty_directory(tmp_path: Path) -> None:
    assert SearchIndex(tmp_path / "nowhere").state() is IndexState.MISSING
    (tmp_path / "empty").mkdir()
    assert SearchIndex(tmp_path / "empty").state() is IndexState.MISSING
    result = SearchIndex(tmp_path / "nowhere").search("graph")
    assert result.total == 0 and result.message


def test_ok_after_rebuild_with_progress(tmp_path: Path) -> None:
    ix = SearchIndex(tmp_path / "index")
    seen: list[tuple[int, int]] = []
    ix.rebuild(iter(docs(250)), 250, progress=lambda done, total: seen.append((done, total)))
    assert ix.state() is IndexState.OK
    assert seen[-1] == (250, 250)
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)
    assert ix.search("").total == 250


def test_revisions_match(built: SearchIndex) -> None:
    assert built.revisions() == {d.id: d.rev for d in docs()}


def test_rebuild_replaces_everything(built: SearchIndex) -> None:
    built.rebuild(docs(10, rev=100), 10)
    assert built.revisions() == {d.id: d.rev for d in docs(10, rev=100)}
    assert built.search("").total == 10
    assert built.state() is IndexState.OK


def test_cancelled_rebuild_of_a_new_index_leaves_it_missing(tmp_path: Path) -> None:
    ix = SearchIndex(tmp_path / "index")
    ix.rebuild(docs(), 40, cancelled=lambda: True)
    assert ix.state() is not IndexState.OK


def test_cancelled_rebuild_keeps_the_previous_index(built: SearchIndex) -> None:
    calls = iter(range(1000))
    built.rebuild(docs(200, rev=7), 200, cancelled=lambda: next(calls) > 2)
    assert built.state() is IndexState.OK
    assert built.revisions() == {d.id: d.rev for d in docs()}


def test_kill_during_swap_reads_corrupt(built: SearchIndex) -> None:
    built.close()
    (built.directory / MARKER_NAME).unlink()  # what a kill between the two steps leaves
    assert built.state() is IndexState.CORRUPT


def test_garbage_files_read_corrupt(tmp_path: Path) -> None:
    d = tmp_path / "index"
    d.mkdir()
    (d / "junk.bin").write_bytes(os.urandom(500))
    assert SearchIndex(d).state() is IndexState.CORRUPT


def test_overwritten_index_files_read_corrupt(built: SearchIndex) -> None:
    built.close()
    for p in built.directory.iterdir():
        if p.is_file() and p.name != MARKER_NAME:
            p.write_bytes(os.urandom(300))
    assert built.state() in {IndexState.CORRUPT, IndexState.UNVERIFIED}  # its signed record too
    built.rebuild(docs(), 40)
    assert built.state() is IndexState.OK


def test_truncated_segment_reads_corrupt(built: SearchIndex) -> None:
    built.close()
    segments = [p for p in built.directory.iterdir() if p.suffix == ".seg"]
    assert segments
    for p in segments:
        data = p.read_bytes()
        p.write_bytes(data[: len(data) // 2])
    assert built.state() is IndexState.CORRUPT


def test_unreadable_marker_reads_corrupt(built: SearchIndex) -> None:
    (built.directory / MARKER_NAME).write_text("{not json", encoding="utf-8")
    assert built.state() is IndexState.CORRUPT


def test_other_schema_version_reads_old(built: SearchIndex) -> None:
    marker = built.directory / MARKER_NAME
    marker.write_text(json.dumps({"schema_version": SearchIndex.SCHEMA_VERSION - 1}), encoding="utf-8")
    assert built.state() is IndexState.OLD_SCHEMA


def test_index_of_an_older_version_reads_old(tmp_path: Path) -> None:
    d = tmp_path / "index"
    d.mkdir()
    old = windex.create_in(str(d), build_schema(), indexname="desk_v0")
    with old.writer() as w:
        w.add_document(id=1, title="old")
    assert INDEX_NAME != "desk_v0"
    assert SearchIndex(d).state() is IndexState.OLD_SCHEMA


def test_changed_schema_under_the_same_version_reads_old(tmp_path: Path) -> None:
    d = tmp_path / "index"
    ix = SearchIndex(d)
    ix.rebuild(docs(3), 3)
    ix.close()
    schema = build_schema()
    schema.remove("note")
    windex.create_in(str(d), schema, indexname=INDEX_NAME)
    manifest.record(d)  # as a desk that wrote this schema would have signed it
    assert SearchIndex(d).state() is IndexState.OLD_SCHEMA


def test_a_second_handle_sees_writes(built: SearchIndex) -> None:
    other = SearchIndex(built.directory)
    assert other.search("is:starred").total == 8
    built.update([IndexDoc(1, 99, "Paper 1", "", "Now about platypus.", "", True, False, ())])
    assert [h.id for h in other.search("platypus").hits] == [1]
    assert other.search("is:starred").total == 9
    assert other.revisions()[1] == 99


def test_update_and_delete_of_nothing_is_harmless(built: SearchIndex) -> None:
    built.update([])
    built.delete([])
    built.delete([12345])
    assert built.search("").total == 40


def test_searches_and_updates_from_two_threads(built: SearchIndex) -> None:
    errors: list[BaseException] = []
    stop = threading.Event()

    def searching() -> None:
        try:
            while not stop.is_set():
                result = built.search("graph OR diffusion -sparse", limit=5)
                assert result.total >= len(result.hits)
        except BaseException as exc:  # reported below
            errors.append(exc)

    thread = threading.Thread(target=searching)
    thread.start()
    try:
        for rev in range(2, 12):
            built.update([IndexDoc(3, rev, "Paper 3", "", f"graph revision {rev}", "", False, False, ())])
    finally:
        stop.set()
        thread.join()
    assert not errors
    assert built.revisions()[3] == 11


@pytest.mark.fast_paths
def test_parallel_rebuild_matches_and_cancels_cleanly(tmp_path: Path) -> None:
    import multiprocessing

    from desk.core.runtime.processes import WorkerPool
    from desk.core.runtime.tuning import Tuning

    ix = SearchIndex(tmp_path / "index")
    with WorkerPool(2, Tuning(index_on_workers_from=50, rebuild_part=60)) as pool:
        ix.rebuild(docs(300), 300, pool=pool)
        assert pool._pool is not None  # the parts went to worker processes
        assert ix.state() is IndexState.OK
        assert ix.revisions() == {d.id: d.rev for d in docs(300)}
        assert ix.search("diffusion").total == 75
        assert ix.search('"benchmark number 299"').total == 1
        calls = iter(range(10_000))
        ix.rebuild(docs(300, rev=50), 300, cancelled=lambda: next(calls) > 2, pool=pool)
    assert not multiprocessing.active_children()
    assert ix.revisions() == {d.id: d.rev for d in docs(300)}
    assert not [p for p in (tmp_path / "index").iterdir() if p.is_dir()]  # no build or stage left
