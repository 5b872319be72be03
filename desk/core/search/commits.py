"""Changes to the live index: one writer commit per batch of documents, under Whoosh's lock.

A star or a note must not pay for merging an import's big segments (seconds at 50k), nor an
import for rewriting the ones before it: small commits merge only tiny segments.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from whoosh import index as windex
from whoosh.writing import NO_MERGE

from desk.core.search.acronyms import Acronyms
from desk.core.search.disk import abort
from desk.core.search.fields import writer_fields
from desk.core.search.model import IndexDoc, Merge
from desk.core.search.segment_upkeep import (
    FEW_IDS,
    SegmentDocs,
    delete_ids,
    docnums_of,
    drop_emptied,
    merge_tiered,
    merge_tiny,
    segment_id_column,
)
from desk.core.search.spelling import Lexicon
from desk.core.search.staging import StagedSegment, discard, install
from desk.core.search.whoosh_internals import fast
from desk.core.search.writer import segment_writer

SMALL_BATCH = 200  # updates smaller than this merge only tiny segments
WRITE_TIMEOUT = 30.0  # seconds to wait for another writer (a second running copy)


def commit(
    ix: windex.Index,
    lexicon: Lexicon,
    acronyms: Acronyms,
    latest: Mapping[int, IndexDoc | None],
    staged: Sequence[StagedSegment],
    merge: Merge = "auto",
    refolded: frozenset[int] = frozenset(),
) -> None:
    """One writer commit: old versions of ``latest``'s ids deleted, its docs and ``staged`` added.

    The words of ``refolded`` docs (written again only to fold their small segment, unchanged)
    are not counted into the lexicon again.
    """
    try:
        writer = segment_writer(ix, timeout=WRITE_TIMEOUT, delay=0.05)
    except BaseException:
        discard(staged)
        raise
    try:
        # A note or a star: the acronyms file (~80 ms to read at 100k papers) is read, and its rows
        # (each paper's definitions, ~25 ms more after a search read its summary) parsed, only
        # when a paper's abstract is not the one its indexed version holds (the definitions stand).
        unread = acronyms.needs_read() or acronyms.rows_unread()
        same = _same_abstracts(writer, latest) if not staged and unread else set()
        delete_ids(writer, latest)
        lexicon.refresh()
        new_words = new_acronyms = False
        for item in staged:
            new_words = lexicon.add_counts(item.word_counts) or new_words
        for doc in latest.values():
            if doc is not None:
                writer.add_document(**writer_fields(doc), _count_words=doc.id not in refolded)
        new_words = lexicon.add_counts(writer.word_counts) or new_words
        found = {i: defs for i, defs in writer.acronyms.items() if i not in same}
        if staged or found:
            acronyms.refresh()
            for item in staged:
                new_acronyms = acronyms.set_docs(item.acronyms) or new_acronyms
            new_acronyms = acronyms.set_docs(found) or new_acronyms
        if new_words:  # saved under the writer's lock, like the segments (an edit's words appended)
            lexicon.save_changes()
        if new_acronyms:
            acronyms.save()
    except BaseException:
        abort(writer)
        discard(staged)
        raise
    if staged:
        install(writer, staged, NO_MERGE if merge == "none" else merge_tiny)
    elif merge == "none":
        writer.commit(mergetype=NO_MERGE)
    elif merge == "emptied":
        writer.commit(mergetype=drop_emptied)
    else:
        small = merge_tiered if len(latest) < SMALL_BATCH else None  # None: Whoosh's own policy
        writer.commit(mergetype=merge_tiny if merge == "tiny" else small)


def _same_abstracts(writer: Any, latest: Mapping[int, IndexDoc | None]) -> set[int]:
    """The ids of ``latest``'s documents whose live indexed version holds this very abstract
    (so the acronyms it defines stand as recorded); only for a few documents (an edit's commit),
    else nothing (an empty set: every document's definitions are looked at)."""
    docs = {i: d for i, d in latest.items() if d is not None}
    if not docs or len(docs) > FEW_IDS or not fast():
        return set()
    wanted = sorted(docs)
    same: set[int] = set()
    for segment in writer.segments:
        column = segment_id_column(writer.storage, writer.schema, segment)
        live = [n for n in docnums_of(column, wanted) if not segment.is_deleted(n)]
        if not live:
            continue
        stored = SegmentDocs(writer.storage, writer.schema, segment)
        try:
            for docnum in live:
                doc_id = int(column[docnum])
                if stored.stored_fields(docnum).get("abstract") == docs[doc_id].abstract:
                    same.add(doc_id)
        finally:
            stored.close()
    return same


def delete(ix: windex.Index, acronyms: Acronyms, wanted: Sequence[int]) -> None:
    """Remove the documents ``wanted`` (sorted, distinct ids) in one commit."""
    writer = segment_writer(ix, timeout=WRITE_TIMEOUT, delay=0.05)
    try:
        delete_ids(writer, wanted)
        acronyms.refresh()
        if acronyms.drop(wanted):
            acronyms.save()
    except BaseException:
        writer.cancel()
        raise
    writer.commit(mergetype=merge_tiered)
