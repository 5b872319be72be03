"""Merging segments after an import: desk's merge writes what Whoosh's own merge writes, term by
term, on real abstracts (../shared/dev-corpus/, read from there; the seeds when it is absent);
papers deleted or changed while a merge ran stay deleted; a merge of segments gone meanwhile
is dropped whole; an import of many big files leaves a handful of segments, not one per file
and worker, and searches the same."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from dev_texts import dev_abstracts, needs_dev_corpus
from whoosh.filedb.filestore import FileStorage
from whoosh.reading import SegmentReader
from whoosh.writing import SegmentWriter

from desk.core.search import IndexDoc, SearchIndex, segment_merge, segment_upkeep
from desk.core.search.schema import build_schema, codec
from desk.core.search.segment_merge import MERGE_FACTOR, commit_merged, merge_segments, plan


@pytest.fixture(autouse=True)
def _no_tiny_folding(monkeypatch: pytest.MonkeyPatch) -> None:
    """Deletes and edits fold segments under TINY_SEGMENT: the segments here are bigger."""
    monkeypatch.setattr(segment_upkeep, "TINY_SEGMENT", 10)


def _doc(i: int, text: str, note: str = "") -> IndexDoc:
    words = text.split()
    short = next((w.strip(",.()") for w in words if w.isupper() and len(w) > 2), "")
    return IndexDoc(
        i, 1 + i % 3, " ".join(words[:8]), short, text, note, i % 5 == 0, i % 3 == 0, ("Dev", f"C{i % 4}")
    )


def _segmented(folder: Path, parts: int, per: int) -> SearchIndex:
    """An index of ``parts`` segments of ``per`` real abstracts each (notes in the last one)."""
    texts = dev_abstracts()
    per = min(per, len(texts) // parts)
    ix = SearchIndex(folder)
    ix.rebuild([], 0)
    for p in range(parts):
        last = p == parts - 1
        docs = [
            _doc(i + 1, texts[i], f"group: {texts[i][:50]}" if last else "")
            for i in range(p * per, (p + 1) * per)
        ]
        ix.update(docs, merge="none")
    return ix


def _everything(reader: Any) -> dict[str, Any]:
    """Every term's statistics and postings (by paper id), every document's stored fields and lengths."""
    id_of = reader.column_reader("id")
    terms = {}
    for field, text in reader.all_terms():
        info = reader.term_info(field, text)
        matcher = reader.postings(field, text)
        postings = []
        while matcher.is_active():
            postings.append((id_of[matcher.id()], matcher.weight(), matcher.value() or b""))
            matcher.next()
        stats = (info.weight(), info.doc_frequency(), info.min_length(), info.max_length(), info.max_weight())
        terms[(field, text)] = (stats, postings)
    fields = ("title", "short_name", "abstract", "note", "collections")
    docs = [
        (
            id_of[n],
            reader.stored_fields(n),
            [reader.doc_field_length(n, f) for f in fields],
            reader.column_reader("rev")[n],
        )
        for n in reader.all_doc_ids()
    ]
    lengths = {f: reader.field_length(f) for f in fields}
    return {"terms": terms, "docs": docs, "lengths": lengths}


def _whooshs_merge(index_dir: Path, segments: list[Any], out: Path) -> dict[str, Any]:
    """What Whoosh's own writer makes of the segments: add_reader of each, one commit."""
    out.mkdir()
    storage = FileStorage(str(index_dir))
    ix = FileStorage(str(out)).create_index(build_schema(), indexname="w")
    writer = SegmentWriter(ix, codec=codec())
    for seg in segments:
        reader = SegmentReader(storage, build_schema(), seg)
        writer.add_reader(reader)
        reader.close()
    writer.commit()
    with ix.reader() as reader:
        return _everything(reader)


def _merged(merged: segment_merge.MergedSegment) -> dict[str, Any]:
    reader = SegmentReader(FileStorage(merged.staged.folder), build_schema(), merged.staged.segment)
    try:
        return _everything(reader)
    finally:
        reader.close()


@pytest.mark.slow
def test_a_merge_writes_what_whooshs_merge_writes(tmp_path: Path) -> None:
    ix = _segmented(tmp_path / "index", 3, 400)
    ix.delete([5, 401, 402, 799])  # deletions in the first two segments are left out
    ix.close()
    segments = ix._index()._segments()
    assert len(segments) == 3 and any(s.has_deletions() for s in segments)
    expected = _whooshs_merge(ix.directory, segments, tmp_path / "whoosh")
    merged = merge_segments(str(ix.directory), os.getpid(), segments)
    got = _merged(merged)
    assert got["docs"] == expected["docs"]
    assert got["terms"].keys() == expected["terms"].keys()
    assert got["terms"] == expected["terms"]
    # Field totals: the sources' exact ones less the deleted papers' stored lengths (Whoosh's
    # merge sums the stored, quantised lengths of the papers left): close, not equal.
    for field, total in expected["lengths"].items():
        assert abs(got["lengths"][field] - total) <= 0.02 * total + 1


@pytest.mark.slow
def test_without_deletions_the_field_totals_are_the_sources_own(tmp_path: Path) -> None:
    ix = _segmented(tmp_path / "index", 3, 300)
    segments = ix._index()._segments()
    merged = merge_segments(str(ix.directory), os.getpid(), segments)
    fields = {name for seg in segments for name in seg._fieldlengths}
    assert merged.staged.segment._fieldlengths == {
        name: sum(seg._fieldlengths.get(name, 0) for seg in segments) for name in fields
    }


@pytest.mark.slow
def test_merged_segments_replace_their_sources_and_searches_answer_the_same(tmp_path: Path) -> None:
    ix = _segmented(tmp_path / "index", 4, 300)
    queries = [
        "diffusion model",
        "3D point cloud segmentation",
        "transformer attention",
        "self-supervised video",
    ]
    before = [[(h.id, round(h.relevance, 6)) for h in ix.search(q, limit=50).hits] for q in queries]
    segments = ix._index()._segments()
    ids_before = ix.revisions()
    merged = [merge_segments(str(ix.directory), os.getpid(), segments[:3])]
    assert commit_merged(ix._index(), merged, 5.0) == 1
    ix.close()
    after_segments = ix._index()._segments()
    assert len(after_segments) == 2
    assert after_segments[0].segment_id() == merged[0].staged.segment.segment_id()  # where its sources stood
    assert ix.revisions() == ids_before
    after = [[(h.id, round(h.relevance, 6)) for h in ix.search(q, limit=50).hits] for q in queries]
    assert after == before
    assert not list(ix.directory.glob(".stage-*"))


@pytest.mark.slow
@needs_dev_corpus
def test_papers_deleted_while_a_merge_ran_stay_deleted(tmp_path: Path) -> None:
    ix = _segmented(tmp_path / "index", 3, 200)
    segments = ix._index()._segments()
    merged = [merge_segments(str(ix.directory), os.getpid(), segments)]
    texts = dev_abstracts()
    ix.delete([3, 250])  # meanwhile: a paper removed, and one re-indexed (its old version deleted)
    ix.update([_doc(410, texts[409], "a note written meanwhile")], merge="none")
    assert commit_merged(ix._index(), merged, 5.0) == 1
    ix.close()
    revisions = ix.revisions()
    assert 3 not in revisions and 250 not in revisions and len(revisions) == 598
    hits = ix.search("note:meanwhile").hits
    assert [h.id for h in hits] == [410]


@pytest.mark.slow
def test_a_merge_whose_sources_are_gone_is_dropped_whole(tmp_path: Path) -> None:
    ix = _segmented(tmp_path / "index", 3, 200)
    segments = ix._index()._segments()
    merged = [merge_segments(str(ix.directory), os.getpid(), segments[:2])]
    theirs = [merge_segments(str(ix.directory), os.getpid(), segments[1:])]
    assert commit_merged(ix._index(), theirs, 5.0) == 1  # another process merged one of them meanwhile
    count = ix.doc_count()
    assert commit_merged(ix._index(), merged, 5.0) == 0
    ix.close()
    assert ix.doc_count() == count
    assert not list(ix.directory.glob(".stage-*"))


class _Seg:
    def __init__(self, live: int) -> None:
        self.live = live

    def doc_count(self) -> int:
        return self.live


def test_the_plan_merges_ten_of_a_size_class_and_lets_fewer_wait() -> None:
    import_of_100k = [_Seg(2500) for _ in range(40)]
    groups = plan(import_of_100k)
    assert [len(g) for g in groups] == [MERGE_FACTOR] * 4
    assert plan([_Seg(2500) for _ in range(9)]) == []
    after = [_Seg(25_000) for _ in range(4)]
    assert plan(after) == []  # four of a class: a handful, left as they are
    assert plan([_Seg(25_000) for _ in range(10)]) != []  # at a million: merged a level up


@needs_dev_corpus
@pytest.mark.parametrize("files", [12])
@pytest.mark.slow
def test_an_import_of_many_files_leaves_a_handful_of_segments(tmp_path: Path, files: int) -> None:
    from desk.core.library.facade import Library
    from desk.core.runtime.tuning import Tuning

    texts = dev_abstracts()
    per = max(1, min(len(texts), 2400) // files)
    folder = tmp_path / "lists"
    folder.mkdir()
    for f in range(files):
        body = "\n\n".join(texts[f * per : (f + 1) * per])
        (folder / f"list-{f:02d}.txt").write_text(f"Conf {f} Papers\n\n{body}\n", encoding="utf-8")
    tuning = Tuning.eager(20)
    lib = Library(tmp_path / "lib", tuning=tuning)
    try:
        report = lib.import_paths([folder])
        assert report.added == per * files
        segments = lib.index._index()._segments()
        assert len(segments) < MERGE_FACTOR  # an unmerged import leaves one segment per file and worker
        assert lib.check() == []
        assert lib.search("diffusion", limit=5).total > 0
    finally:
        lib.close()
