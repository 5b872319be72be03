"""Edits write small segments and never rewrite an import's big ones."""

from __future__ import annotations

from pathlib import Path

import pytest

from desk.core.search import IndexDoc, SearchIndex
from desk.core.search.index import SMALL_BATCH, TINY_SEGMENT


def _doc(i: int, note: str = "") -> IndexDoc:
    words = f"topic{i % 17} method{i % 5} analysis of regret bounds under delayed feedback"
    return IndexDoc(i, 1, f"Paper {i}", "", words, note, False, False, ("Conf",))


def _segment_ids(index: SearchIndex) -> set[str]:
    with index._index().reader() as reader:
        return {leaf.segment().segment_id() for leaf, _ in reader.leaf_readers()}


def test_edits_leave_big_segments_alone_and_do_not_pile_up(tmp_path: Path) -> None:
    index = SearchIndex(tmp_path / "ix")
    index.rebuild([], 0)
    big = TINY_SEGMENT + 100
    assert big >= SMALL_BATCH
    index.update([_doc(i) for i in range(big)])
    index.update([_doc(i) for i in range(big, 2 * big)])
    imported = _segment_ids(index)
    for k in range(40):  # forty single edits, as a user starring and writing notes
        index.update([_doc(k * 7, note=f"edit {k}")])
    after = _segment_ids(index)
    assert len(after) <= len(imported) + 1  # the edits were folded into one small segment
    # the big segments hold deletions now but were not rewritten
    assert len(imported & after) >= len(imported) - 1
    assert index.search("note:edit").total == 40
    assert index.search("").total == 2 * big
    index.close()


def test_a_big_batch_from_a_single_threaded_process_is_indexed_on_both_cores(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import desk.core.search.index as index_module

    monkeypatch.setattr(index_module, "PARALLEL_FROM", 50)
    if not index_module._cores_to_fork():
        pytest.skip("one core: the serial path is used")
    from whoosh.index import FileIndex

    procs: list[int] = []
    open_writer = FileIndex.writer

    def writer(self, procs_: int = 1, **kwargs):  # records how many processes each writer uses
        procs.append(kwargs.get("procs", procs_))
        return open_writer(self, **kwargs)

    monkeypatch.setattr(FileIndex, "writer", writer)
    index = SearchIndex(tmp_path / "ix", fork_writers=True)
    index.rebuild([], 0)
    index.update([_doc(i) for i in range(120)])
    index.update([_doc(i, note="again") for i in range(60)])  # replaces, in parallel too
    assert index.search("").total == 120
    assert index.search("note:again").total == 60
    assert sorted(index.revisions()) == list(range(120))
    assert procs[-2:] == [index_module.REBUILD_PROCS] * 2  # both batches went to the parallel writer
    index.close()
    serial = SearchIndex(tmp_path / "ix")  # the window's: never forks
    serial.update([_doc(i) for i in range(60)])
    assert procs[-1] == 1
    serial.close()
