"""Merging an index's segments after an import, beside the live index, on the worker processes.

An import leaves a segment or two per file (40 at 100k papers), and every query word then
costs a term-table lookup in each segment and field. After the import's last commit, groups of
segments of one size class (``plan``) are merged, each into one new segment written in a
staging folder by a worker process (``merge_segments``) while searches go on; then one short
commit (``commit_merged``, under the index writer's lock) puts the merged segment where the
first of its sources stood and drops the sources. A paper deleted or re-indexed meanwhile is
marked deleted in the merged segment too; a source segment that is gone by then (another
process merged it) makes that merge be dropped, never half applied. A kill at any moment
leaves a staging folder the next open sweeps away, and the index as it was.

The merge copies postings as they are, a term at a time from every source in turn (a k-way
merge of the sources' sorted term tables, so memory holds one term's postings, not the whole
segment's), and each document's stored fields, lengths and columns through Whoosh's own
``write_per_doc``: the result reads as Whoosh's own merge (``add_reader``) writes it
(``tests/core/test_segment_merge.py`` compares them term by term), in a fraction of its time.
Whoosh internals are used as in ``writer.py``: only when ``whoosh_internals.fast()``.
"""

from __future__ import annotations

import heapq
import os
import shutil
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import groupby
from pathlib import Path
from typing import Any

from whoosh.filedb.filestore import FileStorage
from whoosh.system import pack_ushort
from whoosh.util.numeric import byte_to_length

from desk.core.search.schema import INDEX_NAME, INLINE_POSTINGS, build_schema, codec
from desk.core.search.staging import STAGE_PREFIX, StagedSegment
from desk.core.search.writer import _FLAT, FastSegmentWriter, _add_all, inlined_term_info

#: Segments of one size class merged together once there are this many (Lucene's merge factor).
MERGE_FACTOR = 10
#: A merged segment holds at most about this many documents (its sources' live ones).
MAX_MERGED_DOCS = 250_000


def _size_class(docs: int) -> int:
    """0 below 1,000 documents, 1 below 10,000, 2 below 100,000… (powers of MERGE_FACTOR from 1,000)."""
    level, bound = 0, 1000
    while docs >= bound:
        bound *= MERGE_FACTOR
        level += 1
    return level


def plan(segments: Sequence[Any]) -> list[list[Any]]:
    """Groups of segments to merge: MERGE_FACTOR segments of one size class each (by live documents),
    taken in index order; a class with fewer waits. Each document is rewritten about once per
    tenfold growth of the index, and each class keeps at most MERGE_FACTOR - 1 segments."""
    by_class: dict[int, list[Any]] = {}
    for seg in segments:
        live = seg.doc_count()
        if 0 < live < MAX_MERGED_DOCS // MERGE_FACTOR * 2:
            by_class.setdefault(_size_class(live), []).append(seg)
    groups: list[list[Any]] = []
    for _, members in sorted(by_class.items()):
        for start in range(0, len(members) - MERGE_FACTOR + 1, MERGE_FACTOR):
            groups.append(members[start : start + MERGE_FACTOR])
    return groups


@dataclass(frozen=True)
class MergedSegment:
    """A merged segment waiting in its staging folder, and what it was made of."""

    staged: StagedSegment
    #: (segment id, documents in all, deleted docnums when it was read) of each source, in order.
    sources: tuple[tuple[str, int, frozenset[int]], ...]


def merge_segments(index_dir: str, owner: int, segments: Sequence[Any]) -> MergedSegment:
    """Write the live documents of ``segments`` (of the index in ``index_dir``) as one segment in a
    new staging folder (any process; the index is not locked). ``owner``: see staging.write_segment."""
    from whoosh.reading import SegmentReader

    folder = Path(index_dir) / f"{STAGE_PREFIX}{owner}-{os.urandom(6).hex()}"
    folder.mkdir()
    storage = FileStorage(index_dir)
    schema = build_schema()
    readers = [SegmentReader(storage, schema, seg) for seg in segments]
    try:
        sources = tuple(
            (seg.segment_id(), seg.doc_count_all(), frozenset(seg.deleted_docs())) for seg in segments
        )
        ix = FileStorage(str(folder)).create_index(schema, indexname=INDEX_NAME)
        writer = FastSegmentWriter(ix, codec=codec())
        write_merged(writer, readers)
        segment = writer.get_segment()
        segment._fieldlengths = _total_lengths(segments, readers)
        writer._finish()
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    finally:
        for reader in readers:
            reader.close()
    return MergedSegment(StagedSegment(str(folder), segment, (), {}, {}), sources)


def _total_lengths(segments: Sequence[Any], readers: Sequence[Any]) -> dict[str, int]:
    """Each field's total length over the live documents, as the sources counted it: their totals
    (exact lengths) less what their deleted documents held (stored lengths, the only ones kept).

    Whoosh's merge sums the stored, byte-quantised lengths instead, which moves every BM25 score
    a little; without deletions these are the sources' totals, so searches rank as before.
    """
    totals: dict[str, int] = {}
    for seg, reader in zip(segments, readers, strict=True):
        for name, total in seg._fieldlengths.items():
            totals[name] = totals.get(name, 0) + total
        for docnum in seg.deleted_docs():
            for name in totals:
                totals[name] -= reader.doc_field_length(docnum, name, 0) or 0
    return {name: max(0, total) for name, total in totals.items()}


def write_merged(writer: FastSegmentWriter, readers: Sequence[Any]) -> None:
    """Fill ``writer`` (a new, empty segment) with the live documents of ``readers``, in order, and
    close its segment: what ``add_reader`` of each reader then a commit write, term by term."""
    schema = writer.schema
    fieldnames = set(schema.names())
    new_docnums: list[list[int]] = []
    for reader in readers:
        base = writer.docnum
        docmap = writer.write_per_doc(fieldnames, reader)  # Whoosh's own: stored fields, lengths, columns
        count = reader.doc_count_all()
        if docmap is None:
            new_docnums.append(list(range(base, base + count)))
        else:
            new_docnums.append([docmap.get(d, -1) for d in range(count)])
    writer._added = True
    writer.perdocwriter.close()
    fieldwriter = writer.fieldwriter
    indexed = sorted({name for r in readers for name in r.indexed_field_names() if name in schema})
    for name in indexed:
        field = schema[name]
        lengths = [_lengths(r, name) if field.scorable else None for r in readers]
        terms = heapq.merge(*(_terms(r, name, k) for k, r in enumerate(readers)))
        started = False
        for btext, group in groupby(terms, key=lambda item: item[0]):
            flat: list[Any] = []
            for _, k, info in group:
                _extend(flat, readers[k], name, btext, info, new_docnums[k], lengths[k])
            if not flat:
                continue  # every document holding it was deleted: Whoosh's merge drops it too
            if not started:
                fieldwriter.start_field(name, field)
                add_row, field_key = fieldwriter._tindex.add, pack_ushort(fieldwriter._fieldid)
                started = True
            row = inlined_term_info(flat) if len(flat) < INLINE_POSTINGS * _FLAT else None
            if row is not None:
                add_row(field_key + btext, row)
                continue
            fieldwriter.start_term(btext)
            _add_all(fieldwriter._postwriter, flat)
            fieldwriter.finish_term()
        if started:
            fieldwriter.finish_field()
    fieldwriter.close()
    writer._close_segment()
    writer._assemble_segment()


def _terms(reader: Any, fieldname: str, k: int) -> Iterator[tuple[bytes, int, Any]]:
    """(term, k, its term info) of one field of a segment, in term order."""
    for (name, btext), info in reader._terms.items_from(fieldname, b""):
        if name != fieldname:
            return
        yield btext, k, info


def _lengths(reader: Any, fieldname: str) -> list[int]:
    """Each document's stored length of ``fieldname`` (what the writer keeps beside a posting)."""
    from whoosh.columns import NumericColumn

    column = reader._perdoc._cached_reader(f"_{fieldname}_len", NumericColumn("B", default=0))
    if column is None:
        return [0] * reader.doc_count_all()
    return [byte_to_length(b) for b in column]


def _extend(
    flat: list[Any],
    reader: Any,
    fieldname: str,
    btext: bytes,
    info: Any,
    new_docnum: list[int],
    lengths: list[int] | None,
) -> None:
    """Add one term's postings in one source segment to ``flat`` (the writer's four items a
    posting), renumbered, without deleted documents."""
    if info.is_inlined():
        ids, weights, values = info.inlined_postings()
        _append(flat, ids, weights, values, new_docnum, lengths)
        return
    matcher = reader._terms.matcher(fieldname, btext, reader.schema[fieldname].format)
    while matcher.is_active():
        matcher._read_ids()
        matcher._read_weights()
        matcher._read_values()
        _append(flat, matcher._ids, matcher._weights, matcher._values, new_docnum, lengths)
        matcher._next_block()


def _append(
    flat: list[Any],
    ids: Sequence[int],
    weights: Sequence[float],
    values: Sequence[Any],
    new_docnum: list[int],
    lengths: list[int] | None,
) -> None:
    for old, weight, value in zip(ids, weights, values, strict=True):
        new = new_docnum[old]
        if new >= 0:
            flat.extend((new, weight, value or b"", lengths[old] if lengths is not None else 0))


def commit_merged(ix: Any, merged: Sequence[MergedSegment], timeout: float) -> int:
    """Replace each merged group's sources by its merged segment, in one commit; returns how
    many groups were put in (a group whose sources are not all there any more is dropped).

    Documents deleted from a source since it was read are deleted from the merged segment.
    """
    from desk.core.search.staging import discard
    from desk.core.search.writer import segment_writer

    writer = segment_writer(ix, timeout=timeout, delay=0.05)
    try:
        segments = list(writer.segments)
        by_id = {s.segment_id(): s for s in segments}
        usable = [m for m in merged if all(sid in by_id for sid, _, _ in m.sources)]
        for m in usable:
            _carry_deletions(m, by_id)
        replaced = {sid: m for m in usable for sid, _, _ in m.sources}
        directory = Path(writer.storage.folder)
        kept: list[Any] = []
        for seg in segments:
            into = replaced.get(seg.segment_id())
            if into is None:
                kept.append(seg)
            elif seg.segment_id() == into.sources[0][0]:  # where its first source stood
                kept.append(into.staged.segment)
        for m in usable:
            prefix = f"{m.staged.segment.segment_id()}."
            moved = [p for p in Path(m.staged.folder).iterdir() if p.name.startswith(prefix)]
            if not moved:
                raise FileNotFoundError(f"merged segment {prefix}* is missing from {m.staged.folder}")
            for path in moved:
                os.replace(path, directory / path.name)
        writer._close_segment()
        writer._commit_toc(kept)
    except BaseException:
        writer.cancel()
        discard([m.staged for m in merged])
        raise
    writer._finish()
    discard([m.staged for m in merged])
    return len(usable)


def _carry_deletions(merged: MergedSegment, by_id: dict[str, Any]) -> None:
    """Delete in the merged segment what was deleted from its sources after they were read."""
    base = 0
    segment = merged.staged.segment
    for sid, count, deleted in merged.sources:
        now = by_id[sid]
        newly = (
            [d for d in range(count) if now.is_deleted(d) and d not in deleted] if now.has_deletions() else []
        )
        if newly:
            live = [d for d in range(count) if d not in deleted]
            rank = {d: i for i, d in enumerate(live)}
            for d in newly:
                segment.delete_document(base + rank[d])
        base += count - len(deleted)
