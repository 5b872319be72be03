"""Edits write small segments and never rewrite an import's big ones."""

from __future__ import annotations

from pathlib import Path

import pytest

from desk.core.runtime.tuning import Tuning
from desk.core.search import IndexDoc, SearchIndex
from desk.core.search.commits import SMALL_BATCH
from desk.core.search.segment_upkeep import TINY_SEGMENT

FROM_50 = Tuning(index_on_workers_from=50)  # a batch of 50 papers is written by the workers


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
    # The edits were folded into a few small segments (at most MERGE_FANIN - 1 per size class).
    assert len(after) <= len(imported) + 8
    # the big segments hold deletions now but were not rewritten
    assert len(imported & after) >= len(imported) - 1
    assert index.search("note:edit").total == 40
    assert index.search("").total == 2 * big
    index.close()


@pytest.mark.fast_paths
def test_a_big_batch_given_a_pool_is_written_by_worker_processes(tmp_path: Path) -> None:
    import multiprocessing

    from desk.core.runtime.processes import WorkerPool

    index = SearchIndex(tmp_path / "ix")
    index.rebuild([], 0)
    with WorkerPool(2, FROM_50) as pool:
        index.update([_doc(i) for i in range(120)], pool)
        assert pool._pool is not None  # the segments were written by the workers
        assert len(_segment_ids(index)) == 2  # one per worker, moved in with one commit
        index.update([_doc(i, note="again") for i in range(60)], pool)  # replaces, in parallel too
    assert not multiprocessing.active_children()
    assert index.search("").total == 120
    assert index.search("note:again").total == 60
    assert index.search('"delayed feedback"').total == 120
    assert sorted(index.revisions()) == list(range(120))
    assert not [p for p in (tmp_path / "ix").iterdir() if p.is_dir()]  # staging folders removed
    index.close()
    index = SearchIndex(tmp_path / "ix")  # another process sees the same
    assert index.search("topic3").total == len([i for i in range(120) if i % 17 == 3])
    index.close()


def test_a_failing_worker_leaves_the_index_as_it_was(tmp_path: Path) -> None:
    from desk.core.runtime.processes import WorkerPool

    index = SearchIndex(tmp_path / "ix")
    index.rebuild([], 0)
    index.update([_doc(i) for i in range(60)])
    before = _segment_ids(index)
    broken = [_doc(i) for i in range(60, 180)]
    broken[-1] = IndexDoc(999, 1, "Paper", "", 12345, "", False, False, ("Conf",))  # type: ignore[arg-type]
    with WorkerPool(2, FROM_50) as pool, pytest.raises(TypeError):
        index.update(broken, pool)
    assert _segment_ids(index) == before
    assert index.search("").total == 60
    assert not [p for p in (tmp_path / "ix").iterdir() if p.is_dir()]


@pytest.mark.fast_paths
def test_staging_folders_of_dead_processes_are_swept(tmp_path: Path) -> None:
    import subprocess
    import sys

    from desk.core.runtime.processes import WorkerPool
    from desk.core.search.staging import STAGE_PREFIX

    index = SearchIndex(tmp_path / "ix")
    index.rebuild([], 0)
    code = "import os; print(os.getpid())"
    dead = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    left = tmp_path / "ix" / f"{STAGE_PREFIX}{int(dead.stdout)}-abc"
    left.mkdir()
    (left / "desk_v1_abc.seg").write_bytes(b"half written")
    with WorkerPool(2, FROM_50) as pool:
        index.update([_doc(i) for i in range(80)], pool)
    assert not left.exists()
    assert index.search("").total == 80


def test_deleting_by_id_column_deletes_what_a_term_query_deletes(tmp_path: Path) -> None:
    from whoosh.query import Or, Term

    from desk.core.search.segment_upkeep import delete_ids
    from desk.core.search.writer import FastSegmentWriter

    def build(folder: Path) -> SearchIndex:
        index = SearchIndex(folder)
        index.rebuild([], 0)
        for start in (0, 40, 80):  # three segments, the later ones replacing some earlier ids
            index.update([_doc(i, note=f"v{start}") for i in range(start // 2, start + 40)])
        return index

    by_query, by_column = build(tmp_path / "q"), build(tmp_path / "c")
    gone = [1, 5, 39, 41, 60, 119, 5000]
    for index, delete in (
        (by_query, lambda w: w.delete_by_query(Or([Term("id", i) for i in gone]))),
        (by_column, lambda w: delete_ids(w, gone)),
    ):
        writer = FastSegmentWriter(index._index())
        delete(writer)
        writer.commit(merge=False)
        index._record()  # a writer outside SearchIndex: sign what it committed, as SearchIndex does
    deleted = [
        [sorted(seg.deleted_docs()) for seg in index._index()._segments()] for index in (by_query, by_column)
    ]
    assert deleted[0] == deleted[1]  # the same documents, segment by segment
    for index in (by_query, by_column):
        assert index.revisions().keys() == set(range(120)) - set(gone)
    assert by_query.search("").total == by_column.search("").total == 120 - 6
    assert by_query.search("note:v40").total == by_column.search("note:v40").total


def test_a_staged_segment_that_vanished_fails_the_commit_and_frees_the_index(tmp_path: Path) -> None:
    from desk.core.search.schema import codec
    from desk.core.search.staging import install, write_segment
    from desk.core.search.writer import FastSegmentWriter

    index = SearchIndex(tmp_path / "ix")
    index.rebuild([], 0)
    index.update([_doc(i) for i in range(10)])
    staged = write_segment(str(tmp_path / "ix"), 1, [_doc(i, note="staged") for i in range(10, 20)])
    for path in Path(staged.folder).iterdir():
        if path.name.startswith(staged.segment.segment_id()):
            path.unlink()  # as if a cleaner had removed it
    with pytest.raises(FileNotFoundError):
        install(FastSegmentWriter(index._index(), codec=codec()), [staged])
    assert not Path(staged.folder).exists()
    index.update([_doc(i, note="after") for i in range(5)])  # the writer lock was released
    assert index.search("").total == 10
    assert index.search("note:after").total == 5


def test_a_phrase_of_rare_words_is_found_in_a_segment_with_deletions(tmp_path: Path) -> None:
    """Rare words' postings sit in the term table (inlined); a deletion wraps them in a filter."""
    index = SearchIndex(tmp_path / "ix")
    index.rebuild([], 0)
    docs = [_doc(i) for i in range(30)]
    rare = "We study quokka zeppelins under delayed feedback."
    docs[7] = IndexDoc(7, 1, "Paper 7", "", rare, "", False, False, ())
    index.update(docs)
    index.update([_doc(3, note="an edit")])  # deletes doc 3's old version in the big segment
    assert index.search('"quokka zeppelins"').total == 1
    assert index.search('"zeppelins quokka"').total == 0
    assert index.search("quokka").total == 1


@pytest.mark.slow
def test_a_note_rewrites_a_few_papers_not_every_edit_so_far(seeded_dir: Path) -> None:
    """Each save of a note writes its paper and now and then a few small segments (their papers
    written again from the database): about log3(n) rewrites a paper, not n/2 (a growing segment
    of every edit rewritten on each save, as merging every tiny segment did)."""
    from whoosh import index as windex

    from desk.core.library.facade import Library
    from desk.core.runtime.paths import INDEX_DIR_NAME
    from desk.core.search.schema import INDEX_NAME

    def segments() -> dict[str, int]:
        ix = windex.open_dir(str(seeded_dir / INDEX_DIR_NAME), indexname=INDEX_NAME)
        try:
            return {s.segment_id(): s.doc_count_all() for s in ix._segments()}
        finally:
            ix.close()

    with Library(seeded_dir) as lib:
        ids = lib.paper_ids()
        written = 0
        for k in range(60):
            before = segments()
            lib.set_note(ids[k % len(ids)], f"reading group week {k} zqweek{k}x")
            written += sum(n for s, n in segments().items() if s not in before)
        assert written <= 60 * 6, written  # merging every tiny segment each time: ~8,000
        assert len(segments()) <= 10
        assert all(lib.search(f"note:zqweek{k}x").total == 1 for k in range(60))
        assert lib.check() == []


def test_papers_written_again_to_fold_a_segment_are_not_counted_again_by_the_lexicon(
    seeded_dir: Path,
) -> None:
    from desk.core.library.facade import Library

    with Library(seeded_dir) as lib:
        ids = lib.paper_ids()
        lib.set_note(ids[0], "zqonlyherex")
        lexicon = lib.index._lexicon
        lexicon.refresh()
        counted = lexicon.counts["zqonlyherex"]
        for k in range(1, 30):  # others' notes: the first one's small segment is folded again and again
            lib.set_note(ids[k], f"reading group week {k}")
        lexicon.refresh()
        assert lexicon.counts["zqonlyherex"] == counted
        assert lib.search("note:zqonlyherex").total == 1


def test_an_open_that_meets_a_commit_replacing_the_newest_generation_reads_the_next(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another copy of desk (or the window's idle fold) may commit between an open listing the
    newest table of contents and reading it, and remove it: the open lists again."""
    from whoosh.filedb.filestore import FileStorage

    from desk.core.search import disk

    directory = tmp_path / "index"
    writer = SearchIndex(directory)
    writer.rebuild([_doc(i) for i in range(1, 4)], 3)
    opened = FileStorage.open_file
    raced: list[str] = []

    def commit_first(self: FileStorage, name: str, *args: object, **kwargs: object) -> object:
        if name.endswith(".toc") and not raced:
            raced.append(name)
            other = SearchIndex(directory)
            other.update([_doc(4)], merge="none")  # a real commit: the next generation, this one removed
            other.close()
        return opened(self, name, *args, **kwargs)

    monkeypatch.setattr(FileStorage, "open_file", commit_first)
    ix = disk.open_index(directory)
    assert raced and not (directory / raced[0]).exists()  # the listed generation was really removed
    with ix.searcher() as searcher:
        assert searcher.doc_count() == 4  # the commit's generation was read
    writer.close()
