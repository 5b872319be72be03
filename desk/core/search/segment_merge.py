"""Merging an index's segments after an import, beside the live index, on the worker processes.

An import leaves a segment per batch of 50,000 papers and worker (Tuning.import_batch; 40 at
100k papers when it was per file), and every query word then
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
(``tests/core/search/test_segment_merge.py`` compares them term by term), in a fraction of its time.
Whoosh internals are used as in ``writer.py``: only when ``whoosh_internals.fast()``.
"""

from __future__ import annotations

import heapq
import os
import shutil
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import accumulate, chain, groupby
from pathlib import Path
from pickle import dumps
from typing import Any

from whoosh.codec.whoosh3 import W3TermInfo
from whoosh.filedb.filestore import FileStorage
from whoosh.system import pack_ushort
from whoosh.util.numeric import byte_to_length

from desk.core.search.flat_postings import FlatWriter
from desk.core.search.schema import INDEX_NAME, INLINE_POSTINGS, build_schema, codec
from desk.core.search.staging import STAGE_PREFIX, StagedSegment
from desk.core.search.unpickling import loads
from desk.core.search.writer import (
    POSTING_WIDTH,
    TERM_INFO,
    FastSegmentWriter,
    add_postings,
    inlined_term_info,
)

#: Segments of one size class merged together once there are this many (Lucene's merge factor).
MERGE_FACTOR = 10
#: Segments holding this many live documents or more are never merged again (a merge of ten
#: below it holds at most ten times as many).
LARGEST_MERGED = 50_000


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
    tenfold growth of the index, and each class keeps at most MERGE_FACTOR - 1 segments. The
    groups are planned once: segments merged now join their next class's count at a later
    import (a 1M import of 400 segments leaves 40, the next import's end merges those)."""
    by_class: dict[int, list[Any]] = {}
    for seg in segments:
        live = seg.doc_count()
        if 0 < live < LARGEST_MERGED:
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
    new_docnums = [_copy_docs(writer, reader) for reader in readers]
    writer._added = True
    writer.perdocwriter.close()
    fieldwriter = writer.fieldwriter
    out = writer.flat = FlatWriter()  # the flat postings, written beside the segment once assembled
    bases = [docnums[0] if docnums else 0 for docnums in new_docnums]
    whole = [not r.has_deletions() for r in readers]
    indexed = sorted({name for r in readers for name in r.indexed_field_names() if name in schema})
    for name in indexed:
        field = schema[name]
        lengths = [_lengths(r, name) if field.scorable else None for r in readers]
        terms = heapq.merge(*(_terms(r, name, k) for k, r in enumerate(readers)))
        started = False
        for btext, group in groupby(terms, key=lambda item: item[0]):
            members = list(group)
            row: bytes | None = None
            k = members[0][1]
            if len(members) == 1 and whole[k] and members[0][2][0]:
                row = _shifted(members[0][2], bases[k])  # most terms: in one source, kept inline
                flat: list[Any] = []
            else:
                flat = []
                for _, k, raw in members:
                    base = bases[k] if whole[k] else None
                    _extend(flat, readers[k], name, btext, raw, new_docnums[k], lengths[k], base)
                if not flat:
                    continue  # every document holding it was deleted: Whoosh's merge drops it too
                if len(flat) < INLINE_POSTINGS * POSTING_WIDTH:
                    row = inlined_term_info(flat)
            if flat:
                out.add(name, btext, flat[0::POSTING_WIDTH], flat[1::POSTING_WIDTH], flat[2::POSTING_WIDTH])
            else:  # a row kept as it was (renumbered): its postings are in its pickle
                assert row is not None
                out.add(name, btext, *loads(row[TERM_INFO.size :]))
            if not started:
                fieldwriter.start_field(name, field)
                add_row, field_key = fieldwriter._tindex.add, pack_ushort(fieldwriter._fieldid)
                started = True
            if row is not None:
                add_row(field_key + btext, row)
                continue
            fieldwriter.start_term(btext)
            add_postings(fieldwriter._postwriter, flat)
            fieldwriter.finish_term()
        if started:
            fieldwriter.finish_field()
    fieldwriter.close()
    writer._close_segment()
    writer._assemble_segment()


def _copy_docs(writer: FastSegmentWriter, reader: Any) -> list[int]:
    """Whoosh's ``write_per_doc`` for one source, with each document's stored fields copied as the
    compressed pickle they are (not loaded, pickled and compressed again) and its lengths as the
    bytes they are; returns each source docnum's new one (-1: deleted, left out)."""
    from whoosh.codec.whoosh3 import LENGTHS_COLUMN
    from whoosh.columns import TranslatingColumnReader, VarBytesColumn

    schema, pdw, perdoc = writer.schema, writer.perdocwriter, reader._perdoc
    count = reader.doc_count_all()
    stored = perdoc.column_reader("_stored", VarBytesColumn()) if perdoc.has_column("_stored") else None
    stored_writer = pdw._colwriters["_stored"]._child  # the compressed column under the pickles
    lengths = []
    for name in schema.scorable_names():
        column = perdoc._cached_reader(f"_{name}_len", LENGTHS_COLUMN)
        if column is not None:
            lengths.append((f"_{name}_len", column))
    columns = []
    for name in schema.names():
        coltype = schema[name].column_type
        if coltype and reader.has_column(name):
            column = reader.column_reader(name, coltype)
            if isinstance(column, TranslatingColumnReader):
                column = column.raw_column()
            columns.append((name, coltype, column))
    add_column = pdw.add_column_value
    new_docnums: list[int] = []
    for docnum in range(count):
        if reader.is_deleted(docnum):
            new_docnums.append(-1)
            continue
        new = writer.docnum
        new_docnums.append(new)
        pdw.start_doc(new)
        for lenfield, column in lengths:
            byte = column[docnum]
            if byte:
                add_column(lenfield, LENGTHS_COLUMN, byte)
        for name, coltype, column in columns:
            add_column(name, coltype, column[docnum])
        if stored is not None:
            raw = stored[docnum]
            if raw:
                VarBytesColumn.Writer.add(stored_writer, new, raw)
        pdw.finish_doc()
        writer.docnum += 1
    return new_docnums


def _terms(reader: Any, fieldname: str, k: int) -> Iterator[tuple[bytes, int, bytes]]:
    """(term, k, its term-table row) of one field of a segment, in term order."""
    terms = reader._terms
    fieldid = terms._fieldmap.get(fieldname)
    if fieldid is None:
        return
    prefix = pack_ushort(fieldid)
    for key, row in terms._tindex.items_from(prefix):
        if key[:2] != prefix:
            return
        yield key[2:], k, row


def _shifted(row: bytes, base: int) -> bytes:
    """An inlined term row of a source segment as it reads with its documents ``base`` further on
    (what inlined_term_info writes for those postings renumbered: the same statistics)."""
    if base == 0:
        return row
    fields = list(TERM_INFO.unpack_from(row))
    ids, weights, values = loads(row[TERM_INFO.size :])
    fields[6] += base
    fields[7] += base
    return TERM_INFO.pack(*fields) + dumps((tuple(i + base for i in ids), weights, values), 2)


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
    row: bytes,
    new_docnum: list[int],
    lengths: list[int] | None,
    base: int | None,
) -> None:
    """Add one term's postings in one source segment (its term-table row ``row``) to ``flat``
    (the writer's four items a posting), renumbered, without deleted documents. ``base``: the
    source's first new docnum when it has no deletions (its docnums then only shift)."""
    if row[0]:  # kept inline
        ids, weights, values = loads(row[TERM_INFO.size :])
        _append(flat, ids, weights, values, new_docnum, lengths, base)
        return
    info = W3TermInfo.from_bytes(row)
    matcher = reader._terms._codec.postings_reader(
        reader._terms._postfile, info, reader.schema[fieldname].format, term=(fieldname, btext)
    )
    while matcher.is_active():
        if matcher._data is None:
            matcher._read_data()
        deltas, weights = matcher._data[0], matcher._data[1]
        ids = list(deltas) if matcher._byteids else list(accumulate(deltas))
        if weights is None or isinstance(weights, float):
            weights = [1.0 if weights is None else weights] * len(ids)
        matcher._read_values()
        _append(flat, ids, weights, matcher._values, new_docnum, lengths, base)
        matcher._next_block()


def _append(
    flat: list[Any],
    ids: Sequence[int],
    weights: Sequence[float],
    values: Sequence[Any],
    new_docnum: list[int],
    lengths: list[int] | None,
    base: int | None,
) -> None:
    if base is not None:  # no deletions: every posting kept, shifted
        news = [i + base for i in ids]
        lens = list(map(lengths.__getitem__, ids)) if lengths is not None else [0] * len(ids)
        flat.extend(chain.from_iterable(zip(news, weights, [v or b"" for v in values], lens, strict=True)))
        return
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
