"""The segments already in an index, as a commit meets them: each one's id column (kept across
commits), deleting papers from them, and which small ones a commit folds together.

Split from writer.py, which writes new segments.
"""

from __future__ import annotations

import sys
from array import array
from collections.abc import Iterable, Sequence
from typing import Any

from desk.core.search.whoosh_internals import fast

TINY_SEGMENT = 500  # segments smaller than this are folded into the next commit


# (index folder, segment id, documents) -> the segment's id column: an edit's commit looks for the
# old version of its paper in every segment, and opening a segment's reader costs milliseconds.
_SEGMENT_IDS: dict[tuple[str, str, int], array[int]] = {}
_SEGMENT_IDS_KEPT = 1024
FEW_IDS = 32  # deletes of up to this many ids scan the id columns without numpy (an edit's commit)


def _column_ints(reader: Any, doccount: int) -> array[int]:
    """A whole numeric column as int64s (``posting_decode.column_array`` without numpy: a one-shot
    command's note commit does not load it)."""
    from whoosh.columns import NumericColumn

    if fast() and isinstance(reader, NumericColumn.Reader) and reader._typecode in "BHILQbhilq":
        n = min(reader._count, doccount)
        raw = array(reader._typecode)
        if raw.itemsize == reader._fixedlen:
            raw.frombytes(reader._dbfile.get(reader._basepos, n * reader._fixedlen))
            if sys.byteorder == "little":
                raw.byteswap()  # stored big-endian
            out = array("q", raw)
            out.extend([int(reader._default or 0)] * (doccount - n))
            return out
    return array("q", (int(v or 0) for v in reader))


class SegmentDocs:
    """What a segment holds per document (its columns and stored fields), read without the terms
    reader a SegmentReader opens too: that reads the terms' hash tables (~0.4 ms a segment), and
    an edit's commit from the command line reads the id column of every segment. Through
    Whoosh's SegmentReader where Whoosh is not the version desk's fast paths were verified with."""

    def __init__(self, storage: Any, schema: Any, segment: Any) -> None:
        self._schema = schema
        self._files: Any = None
        self._perdoc: Any = None
        self._whole: Any = None
        if fast():
            from whoosh.filedb.filestore import OverlayStorage

            if segment.is_compound():  # as SegmentReader opens it
                self._files = OverlayStorage(segment.open_compound_file(storage), storage)
            self._perdoc = segment.codec().per_document_reader(self._files or storage, segment)
        else:
            from whoosh.reading import SegmentReader

            self._whole = SegmentReader(storage, schema, segment)

    def column(self, fieldname: str) -> Any:
        """The column's reader, its values as stored (SegmentReader's ``translate=False``)."""
        if self._whole is not None:
            return self._whole.column_reader(fieldname, translate=False)
        from whoosh.columns import EmptyColumnReader

        column = self._schema[fieldname].column_type
        if self._perdoc.has_column(fieldname):
            return self._perdoc.column_reader(fieldname, column)
        return EmptyColumnReader(column.default_value(False), self._perdoc.doc_count_all())

    def stored_fields(self, docnum: int) -> dict[str, Any]:
        """A document's stored fields."""
        if self._whole is not None:
            return dict(self._whole.stored_fields(docnum))
        return dict(self._perdoc.stored_fields(docnum))

    def close(self) -> None:
        if self._whole is not None:
            self._whole.close()
            return
        self._perdoc.close()
        if self._files is not None:
            self._files.close()


def segment_id_column(storage: Any, schema: Any, segment: Any) -> array[int]:
    """The paper ids of a segment's documents, by docnum (int64s; read once per segment: a
    segment's documents never change, only which of them are deleted)."""
    key = (str(storage.folder), segment.segment_id(), segment.doc_count_all())
    column_ids = _SEGMENT_IDS.get(key)
    if column_ids is None:
        docs = SegmentDocs(storage, schema, segment)
        try:
            column_ids = _column_ints(docs.column("id"), segment.doc_count_all())
        finally:
            docs.close()
        if len(_SEGMENT_IDS) >= _SEGMENT_IDS_KEPT:
            _SEGMENT_IDS.pop(next(iter(_SEGMENT_IDS)))
        _SEGMENT_IDS[key] = column_ids
    return column_ids


def docnums_of(column: array[int], wanted: list[int]) -> list[int]:
    """The docnums whose id is in ``wanted``: for a few ids, each id's bytes found in the
    column's bytes (``bytes.find`` runs at memchr speed; ``array.index`` made an int of every
    item, 0.2 ms an id in a 25k-paper segment, 30 ms of a note's commit at 100k papers); numpy's
    isin for many (an import's batch)."""
    if len(wanted) <= FEW_IDS:
        raw, size = column.tobytes(), column.itemsize
        found: list[int] = []
        for i in set(wanted):
            try:
                key = i.to_bytes(size, sys.byteorder, signed=True)
            except OverflowError:  # no item of the column can hold it
                continue
            at = raw.find(key)
            while at != -1:
                if at % size == 0:  # a match across two items is no item
                    found.append(at // size)
                at = raw.find(key, at + 1)
        return sorted(found)
    import numpy as np  # here: worker processes, which only write segments, never load numpy for it

    ids = np.frombuffer(column, dtype=np.int64) if len(column) else np.zeros(0, np.int64)
    return np.flatnonzero(np.isin(ids, np.array(wanted, dtype=np.int64))).tolist()


def delete_ids(writer: Any, ids: Iterable[int]) -> None:
    """Mark deleted, in ``writer``'s segments, every document whose id is in ``ids``.

    What ``delete_by_query(Or(Term("id", i) ...))`` does, from each segment's id column in
    one read instead of a term lookup per id and segment (seconds for an import at 100k).
    """
    wanted = sorted({int(i) for i in ids})
    if not wanted:
        return
    if not fast():
        for i in wanted:
            writer.delete_by_term("id", i)
        return
    for segment in writer.segments:
        for docnum in docnums_of(segment_id_column(writer.storage, writer.schema, segment), wanted):
            if not segment.is_deleted(docnum):
                segment.delete_document(docnum)


def merge_tiny(writer: Any, segments: list[Any]) -> list[Any]:
    """Whoosh merge policy: fold every segment of fewer than TINY_SEGMENT documents into the new one.

    For the end of an import (its small batches become one segment). An import's big segments
    (a few thousand papers each) are never rewritten.
    """
    return _fold(writer, segments, [s for s in segments if s.doc_count_all() < TINY_SEGMENT])


MERGE_FANIN = 3  # tiny segments of one size class folded together once there are this many


def _size_class(docs: int) -> int:
    """0 for 1–2 documents, 1 for 3–8, 2 for 9–26… (powers of MERGE_FANIN)."""
    level = 0
    while docs >= MERGE_FANIN:
        docs //= MERGE_FANIN
        level += 1
    return level


def tiered_choice(segments: Sequence[Any]) -> list[Any]:
    """The tiny segments an edit's commit folds in: the smallest size class holding MERGE_FANIN.

    Folded, they land a class up; the others stay. A star or a note then writes its own
    document and, now and then, a few small segments (each document is rewritten about
    log3(TINY_SEGMENT) times in all), never one growing segment of every edit so far on each
    save — while at most MERGE_FANIN - 1 segments per class (about a dozen) wait for searches.
    """
    by_class: dict[int, list[Any]] = {}
    for seg in segments:
        if seg.doc_count_all() < TINY_SEGMENT:
            by_class.setdefault(_size_class(seg.doc_count_all()), []).append(seg)
    full = [group for _, group in sorted(by_class.items()) if len(group) >= MERGE_FANIN]
    return full[0] if full else []


def merge_tiered(writer: Any, segments: list[Any]) -> list[Any]:
    """Whoosh merge policy for an edit's commit: tiered_choice()'s segments folded in (through
    Whoosh's merge: for a writer not given their documents again, see drop_emptied)."""
    return _fold(writer, drop_emptied(writer, segments), tiered_choice(segments))


def drop_emptied(writer: Any, segments: list[Any]) -> list[Any]:
    """Whoosh merge policy: no segment is merged; a segment left without a live document (its
    papers deleted, or given to this commit again to fold it) is dropped."""
    return [s for s in segments if s.doc_count() > 0]


def _fold(writer: Any, segments: list[Any], folded: list[Any]) -> list[Any]:
    """Add the segments ``folded`` to ``writer``'s new segment; the segments kept as they are."""
    from whoosh.reading import SegmentReader

    for seg in folded:
        reader = SegmentReader(writer.storage, writer.schema, seg)
        writer.add_reader(reader)
        reader.close()
    gone = {id(s) for s in folded}
    return [s for s in segments if id(s) not in gone]
