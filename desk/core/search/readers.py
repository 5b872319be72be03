"""A reader of the index's newest generation that keeps the segment readers still good.

Every commit (a note saved, a title edited) makes a new generation: one small segment added,
the paper's old version marked deleted in the segment that held it, the rest untouched. Opening
a fresh reader opens every segment again, and opening one reads its term table's directory: at
100k papers in 40 segments that was most of a note's way to being searchable. Whoosh's own
``reader(reuse=...)`` is not used: whoosh-reloaded 2.7.5 puts segments merged away back into
the reader and keeps a segment's old deletions (index.py says so where it avoids it).

:func:`reopen` keeps an open segment reader when the newest table of contents lists that very
segment (its id) with the same deleted documents (a reader reads its deletions from the segment
object it was opened with), and opens the others; the readers of segments gone or changed are
handed back to be closed. tests/core/search/test_search_readers.py compares every answer with a fresh
reader's after edits, deletions and merges.
"""

from __future__ import annotations

from typing import Any

from whoosh.reading import MultiReader, SegmentReader


def _deleted(segment: Any) -> frozenset[int]:
    return frozenset(segment.deleted_docs()) if segment.deleted_count() else frozenset()


def reopen(ix: Any, old: Any) -> tuple[Any, list[Any]]:
    """(a reader of ``ix``'s newest generation reusing ``old``'s segment readers where they are
    still right, the readers of ``old`` not reused: the caller closes them once it no longer
    reads ``old``)."""
    toc = ix._read_toc()  # what FileIndex.reader reads: the newest table of contents
    kept: dict[str, Any] = {}
    for leaf, _ in old.leaf_readers():
        segment = leaf.segment()
        if segment is not None:
            kept[segment.segment_id()] = leaf
    readers: list[Any] = []
    reused: set[int] = set()
    try:
        for segment in toc.segments:
            leaf = kept.get(segment.segment_id())
            if leaf is not None and id(leaf) not in reused and _deleted(leaf.segment()) == _deleted(segment):
                reused.add(id(leaf))
                readers.append(leaf)
            else:
                readers.append(SegmentReader(ix.storage, toc.schema, segment, generation=toc.generation))
    except BaseException:
        for r in readers:
            if id(r) not in reused:
                r.close()
        raise
    if not readers:
        return ix.reader(), list(kept.values())
    # Always a MultiReader: it carries this generation (a kept SegmentReader says its own, older one).
    reader = MultiReader(readers, generation=toc.generation)
    return reader, [leaf for leaf in kept.values() if id(leaf) not in reused]
