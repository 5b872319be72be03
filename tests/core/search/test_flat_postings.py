"""Flat postings (desk/core/search/flat_postings.py): each segment's lists without positions in a
file of its own, equal term by term to the segment's own lists on real abstracts
(../shared/dev-corpus/, read from there; the seeds when it is absent) after imports, edits,
deletions, merges and segments written by worker processes; searches rank exactly as from
Whoosh's blocks; a file the index's signed record does not list, or a damaged one, is not read."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from dev_texts import dev_abstracts, needs_dev_corpus
from hypothesis import given, settings
from hypothesis import strategies as st
from test_segment_merge import _doc, _segmented

from desk.core.runtime.processes import WorkerPool
from desk.core.search import SearchIndex, flat_postings, manifest, segment_upkeep
from desk.core.search.flat_backfill import backfill
from desk.core.search.flat_postings import EXT, FlatPostings, FlatWriter, open_trusted
from desk.core.search.positions import positions
from desk.core.search.posting_decode import decode_postings
from desk.core.search.segment_merge import commit_merged, merge_segments
from desk.core.search.writer import encode_positions

QUERIES = [
    "diffusion model",
    "3D point cloud segmentation",
    "transformer attention",
    "self-supervised video",
    "neural radiance fields",
    "contrast*",
    '"object detection"',
    '"point cloud"',
    '"self-supervised learning"',
    '"semantic segm',
    "NeRF",
    "note:group",
]


@pytest.fixture(autouse=True)
def _no_tiny_folding(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(segment_upkeep, "TINY_SEGMENT", 10)


def _segments(ix: SearchIndex) -> list[Any]:
    return list(ix._index()._segments())


def _compare_every_term(ix: SearchIndex) -> int:
    """Assert each segment's flat postings equal its own lists (deleted documents included, as the
    segment stores them); returns the terms compared."""
    from whoosh.reading import SegmentReader

    index = ix._index()
    signed = manifest.signed_files(ix.directory)
    compared = 0
    for seg in index._segments():
        flat = open_trusted(ix.directory, seg.segment_id(), seg.doc_count_all(), signed)
        assert flat is not None, f"{seg.segment_id()} has no signed flat postings"
        reader = SegmentReader(index.storage, index.schema, seg)
        try:
            assert flat.fields() == frozenset(
                f for f in reader.indexed_field_names() if any(True for _ in reader.lexicon(f))
            )
            for field, btext in reader.all_terms():
                ids, weights = decode_postings(
                    reader._terms.matcher(field, btext, reader.schema[field].format)
                )
                got_ids, got_weights = flat.get(field, btext)
                assert np.array_equal(got_ids, ids) and np.array_equal(got_weights, weights), (field, btext)
                if reader.schema[field].format.supports("positions"):
                    wanted = ids[::3]  # every third document holding it, and one that does not
                    wanted = np.union1d(wanted, [seg.doc_count_all() - 1]).astype(np.int64)
                    matcher = reader._terms.matcher(field, btext, reader.schema[field].format)
                    expected = {d: set(p) for d, p in positions(matcher, wanted).items()}
                    assert _as_map(flat.positions(field, btext, wanted)) == _nonempty(expected), (
                        field,
                        btext,
                    )
                else:
                    assert not flat.has_positions(field) or field not in flat.fields()
                compared += 1
        finally:
            reader.close()
    return compared


def _answers(ix: SearchIndex) -> list[list[tuple[int, float]]]:
    return [[(h.id, round(h.relevance, 6)) for h in ix.search(q, limit=50).hits] for q in QUERIES]


def _unsign_flat(ix: SearchIndex) -> None:
    """Remove the flat postings files and sign the record again: the index as an older desk left it."""
    ix.close()
    for path in ix.directory.glob(f"*{EXT}"):
        path.unlink()
    manifest.record(ix.directory)


@pytest.mark.slow
def test_the_flat_lists_equal_each_segments_own_after_imports_edits_and_deletes(tmp_path: Path) -> None:
    ix = _segmented(tmp_path / "index", 3, 300)
    texts = dev_abstracts()
    ix.delete([5, 301])
    ix.update([_doc(7, texts[6], "an edited note")], merge="none")  # its old version deleted
    assert any(s.has_deletions() for s in _segments(ix))
    assert _compare_every_term(ix) > 1000
    assert ix.search("note:edited").hits[0].id == 7


def test_searches_rank_the_same_from_flat_lists_as_from_whooshs_blocks(tmp_path: Path) -> None:
    ix = _segmented(tmp_path / "index", 3, 300)
    ix.delete([5, 301, 302])
    with_flat = _answers(ix)
    cache = ix._cache
    assert cache.flat_reads > 0 and all(v is not None for v in cache.flat.values())
    _unsign_flat(ix)
    without = _answers(ix)
    assert ix._cache.flat_reads == 0 and all(v is None for v in ix._cache.flat.values())
    assert without == with_flat
    assert all(with_flat[:6])


@pytest.mark.slow
def test_a_merge_writes_the_merged_segments_flat_lists(tmp_path: Path) -> None:
    ix = _segmented(tmp_path / "index", 4, 250)
    ix.delete([3, 260])  # left out of the merged segment
    segments = _segments(ix)
    merged = [merge_segments(str(ix.directory), os.getpid(), segments[:3])]
    assert commit_merged(ix._index(), merged, 5.0) == 1
    ix.close()
    assert len(_segments(ix)) == 2
    assert _compare_every_term(ix) > 1000
    # The sources' files went with their segments.
    live = {s.segment_id() for s in _segments(ix)}
    assert {p.name[: -len(EXT)] for p in ix.directory.glob(f"*{EXT}")} == live
    with_flat = _answers(ix)
    assert set(ix._cache.flat) == live  # the merged-away segments' files are let go
    _unsign_flat(ix)
    assert _answers(ix) == with_flat


def test_big_files_are_mapped_small_ones_read_and_both_answer_alike(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ix = _segmented(tmp_path / "index", 2, 200)
    read = _answers(ix)
    assert all(f is not None and not f.mapped for f in ix._cache.flat.values())
    monkeypatch.setattr(flat_postings, "READ_WHOLE_UP_TO", 0)
    ix.close()
    assert _answers(ix) == read
    assert all(f is not None and f.mapped for f in ix._cache.flat.values())


@pytest.mark.slow
def test_segments_written_by_worker_processes_bring_their_flat_lists(tmp_path: Path) -> None:
    texts = dev_abstracts()[:600]
    pool = WorkerPool(2)
    try:
        if not SearchIndex.can_stage(pool):
            pytest.skip("no worker processes here")
        ix = SearchIndex(tmp_path / "index")
        ix.rebuild([], 0)
        batch = ix.stage([_doc(i + 1, t) for i, t in enumerate(texts)], pool)
        ix.commit_staged(batch.ids, batch.result(), "none")
    finally:
        pool.close()
    assert len(_segments(ix)) == 2
    assert _compare_every_term(ix) > 1000
    assert ix.search("diffusion").hits


@needs_dev_corpus
@pytest.mark.slow
def test_a_file_the_record_does_not_list_or_a_damaged_one_is_not_read(tmp_path: Path) -> None:
    ix = _segmented(tmp_path / "index", 2, 200)
    expected = _answers(ix)
    seg = _segments(ix)[0]
    name = f"{seg.segment_id()}{EXT}"
    path = ix.directory / name
    signed = manifest.signed_files(ix.directory)
    assert signed is not None and name in signed
    assert open_trusted(ix.directory, seg.segment_id(), seg.doc_count_all(), {}) is None  # not listed
    # Another segment's file, or a count that is not the segment's: refused by its header.
    other = _segments(ix)[1].segment_id()
    with pytest.raises(ValueError):
        FlatPostings(path, other, seg.doc_count_all())
    with pytest.raises(ValueError):
        FlatPostings(path, seg.segment_id(), seg.doc_count_all() + 1)
    for damage in (b"", b"DESKPST\x01\xff\xff", b"not a postings file at all, just text"):
        bad = tmp_path / f"bad{len(damage)}{EXT}"
        bad.write_bytes(damage)
        with pytest.raises(ValueError):
            FlatPostings(bad, seg.segment_id(), seg.doc_count_all())
    # Truncated: the record's check sees it changed, and the index is not trusted.
    ix.close()
    path.write_bytes(path.read_bytes()[:-64])
    with pytest.raises(manifest.Untrusted):
        manifest.check_signed(ix.directory)
    # What a damaged index gets: rebuilt from the same papers, notes included (the last segment's).
    texts = dev_abstracts()[:400]
    ix.rebuild([_doc(i + 1, t, f"group: {t[:50]}" if i >= 200 else "") for i, t in enumerate(texts)], 0)
    manifest.check_signed(ix.directory)
    assert _compare_every_term(ix) > 1000
    assert [h.id for h in ix.search(QUERIES[0], limit=50).hits][:10] == [h for h, _ in expected[0]][:10]


@pytest.mark.slow
def test_backfill_writes_and_signs_what_an_older_index_lacks(tmp_path: Path) -> None:
    ix = _segmented(tmp_path / "index", 3, 200)
    expected = _answers(ix)
    _unsign_flat(ix)
    assert backfill(ix.directory) == 3
    assert backfill(ix.directory) == 0  # nothing left to write
    assert _compare_every_term(ix) > 1000
    assert _answers(ix) == expected
    assert ix._cache.flat_reads > 0


_TERMS = st.lists(st.binary(min_size=1, max_size=12), min_size=0, max_size=60, unique=True)


@settings(max_examples=60, deadline=None)
@given(
    fields=st.dictionaries(st.sampled_from(["title", "abstract", "id", "tags"]), _TERMS, max_size=4),
    data=st.data(),
)
def test_the_file_gives_back_every_list_and_prefix_written(
    tmp_path_factory: pytest.TempPathFactory, fields: dict[str, list[bytes]], data: st.DataObject
) -> None:
    out = FlatWriter()
    lists: dict[tuple[str, bytes], tuple[list[int], list[float]]] = {}
    where: dict[tuple[str, bytes], dict[int, set[int]]] = {}
    top = data.draw(st.sampled_from([60, 70_000]))  # uint16 positions, or a long note's uint32
    for name in sorted(fields):
        keeps = name in ("title", "abstract")  # fields with positions (the others: ids, tags)
        for term in sorted(fields[name]):
            ids = sorted(data.draw(st.sets(st.integers(0, 499), min_size=1, max_size=20)))
            places = [
                sorted(data.draw(st.sets(st.integers(0, top), min_size=1, max_size=4))) if keeps else []
                for _ in ids
            ]
            weights = [float(len(p) or 1) for p in places]
            values = [encode_positions(p) if p else b"" for p in places]
            out.add(name, term, ids, weights, values)
            lists[(name, term)] = (ids, weights)
            if keeps:
                where[(name, term)] = {d: set(p) for d, p in zip(ids, places, strict=True)}
    path = tmp_path_factory.mktemp("flat") / f"seg{EXT}"
    out.write(path, "seg", 500)
    flat = FlatPostings(path, "seg", 500)
    assert flat.fields() == frozenset(name for name, terms in fields.items() if terms)
    for (name, term), (ids, weights) in lists.items():
        got_ids, got_weights = flat.get(name, term)
        assert got_ids.tolist() == ids and got_weights.tolist() == weights
        if (name, term) in where:
            wanted = np.array(sorted(set(ids[::2]) | {499}), np.int64)
            expected = {d: p for d, p in where[(name, term)].items() if d in set(wanted.tolist())}
            assert _as_map(flat.positions(name, term, wanted)) == _nonempty(expected)
        else:
            assert not flat.has_positions(name)
    probe = data.draw(st.binary(min_size=1, max_size=12))
    for name in ("title", "abstract", "id", "tags", "absent"):
        if (name, probe) not in lists:
            assert len(flat.get(name, probe)[0]) == 0
        prefix = probe[: data.draw(st.integers(0, len(probe)))]
        expected = sorted(t for (n, t) in lists if n == name and t.startswith(prefix))
        got, whole = flat.prefixed(name, prefix, 5)
        assert got == expected[:5] and whole == (len(expected) <= 5)


@pytest.mark.slow
def test_an_open_index_completes_its_flat_postings_in_a_process_and_reads_them(tmp_path: Path) -> None:
    ix = _segmented(tmp_path / "index", 2, 200)
    _unsign_flat(ix)
    assert ix.search("diffusion").hits  # the generation is loaded, read from Whoosh's blocks
    assert ix._cache.flat and all(v is None for v in ix._cache.flat.values())
    assert ix.complete_flat_postings() == 2  # in a spawned process, signed, then adopted
    assert ix.complete_flat_postings() == 0
    later = ["image segmentation", "graph neural network", "depth estimation"]
    got = [[(h.id, round(h.relevance, 6)) for h in ix.search(q, limit=50).hits] for q in later]
    assert ix._cache.flat_reads > 0
    fresh = SearchIndex(ix.directory)
    assert got == [[(h.id, round(h.relevance, 6)) for h in fresh.search(q, limit=50).hits] for q in later]
    assert _compare_every_term(ix) > 1000


def test_backfill_reads_nothing_of_an_index_its_record_does_not_vouch_for(tmp_path: Path) -> None:
    ix = _segmented(tmp_path / "index", 2, 100)
    _unsign_flat(ix)
    (ix.directory / manifest.MANIFEST_NAME).write_text("{}", encoding="utf-8")  # not signed by this user
    with pytest.raises(manifest.Untrusted):
        backfill(ix.directory)
    assert not list(ix.directory.glob(f"*{EXT}"))


def _as_map(pairs: tuple[np.ndarray, np.ndarray]) -> dict[int, set[int]]:
    """(docnum, position) pairs as docnum -> positions; the pairs' docnums must come ascending."""
    docs, where = pairs
    assert docs.dtype == np.int64 and where.dtype == np.int64 and np.all(np.diff(docs) >= 0)
    out: dict[int, set[int]] = {}
    for d, p in zip(docs.tolist(), where.tolist(), strict=True):
        out.setdefault(d, set()).add(p)
    return out


def _nonempty(expected: dict[int, set[int]]) -> dict[int, set[int]]:
    return {d: p for d, p in expected.items() if p}
