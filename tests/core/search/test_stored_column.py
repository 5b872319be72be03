"""desk's stored-fields column reader (stored_column.py) against Whoosh's own, value for value."""

from __future__ import annotations

from pathlib import Path

import pytest
from whoosh.codec.whoosh3 import STORED_COLUMN as WHOOSH_STORED
from whoosh.filedb.filestore import RamStorage

from desk.core.search import IndexDoc, SearchIndex
from desk.core.search.stored_column import STORED_COLUMN, STORED_FIELD, SummedOffsets


@pytest.mark.parametrize("count", [0, 1, 1000, 40_000])  # past 32,768 Whoosh writes offsets too
def test_offsets_lengths_and_values_are_whooshs(count: int) -> None:
    storage = RamStorage()
    out = storage.create_file("stored")
    writer = WHOOSH_STORED.writer(out)
    for docnum in range(0, count, 3 if count > 1 else 1):  # gaps: documents with nothing stored
        writer.add(docnum, {"id": docnum, "title": f"paper {docnum} ü", "abstract": "x" * (docnum % 97)})
    writer.finish(count)
    out.close()
    length = storage.file_length("stored")
    theirs = WHOOSH_STORED.reader(storage.open_file("stored"), 0, length, count)
    ours = STORED_COLUMN.reader(storage.open_file("stored"), 0, length, count)
    assert isinstance(ours._child, SummedOffsets.Reader)
    assert ours._child._offsets == theirs._child._offsets
    assert ours._child._lengths == theirs._child._lengths
    assert ours._child.had_stored_offsets == theirs._child.had_stored_offsets == (count > 32_768)
    assert [ours[d] for d in range(count)] == [theirs[d] for d in range(count)]


def test_a_search_reads_stored_fields_through_it_and_they_are_whooshs(tmp_path: Path) -> None:
    texts = {i: f"Abstract {i} about policy gradients " * (i % 5 + 1) for i in range(1, 60)}
    docs = [IndexDoc(i, 1, f"Paper {i}", "", text, "", False, False, ()) for i, text in texts.items()]
    index = SearchIndex(tmp_path / "index")
    index.rebuild(docs, len(docs))
    assert index.search("policy").hits
    corpus = index._current()
    assert corpus is not None
    for leaf, _, _ in corpus.leaves:
        column = leaf._perdoc._readers[STORED_FIELD]
        assert isinstance(column._child, SummedOffsets.Reader)  # primed by the search's hits
    fresh = SearchIndex(index.directory)  # Whoosh's own readers, nothing primed
    with fresh._index().reader() as reader:
        expected = [dict(reader.stored_fields(d)) for d in reader.all_doc_ids()]
    assert [corpus.stored_fields(d) for d in range(corpus.n)] == expected
