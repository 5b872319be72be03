"""A segment's stored-fields column opened with its offsets summed at C speed.

Whoosh's stored fields (W3Codec's ``STORED_COLUMN``: a ``PickleColumn`` over a
``CompressedBytesColumn``) keep each document's compressed bytes and, at the end of the column,
their lengths; offsets are written too only past 32,768 documents. Opening the column (the
first stored document a process reads from a segment: a search's first hits) sums the lengths
into offsets in a Python loop, one ``array.append`` per document: 100k papers in 4 segments
cost ~10 ms of every one-shot `desk search`, a million ~100 ms of the window's first search.
:func:`prime` opens the column of a segment with the same reading and the sum done by
``itertools.accumulate``, and leaves it where Whoosh's reader looks for it
(``W3PerDocReader._cached_reader``): ``stored_fields`` then reads as always.
tests/core/search/test_stored_column.py compares offsets, lengths and every document with Whoosh's.
"""

from __future__ import annotations

import struct
from array import array
from itertools import accumulate
from typing import Any

from whoosh.codec.whoosh3 import W3PerDocReader
from whoosh.columns import CompressedBytesColumn, PickleColumn

from desk.core.search.whoosh_internals import fast

STORED_FIELD = "_stored"  # W3PerDocWriter's column of stored fields


class SummedOffsets(CompressedBytesColumn):
    """CompressedBytesColumn whose reader sums its lengths into offsets with accumulate."""

    class Reader(CompressedBytesColumn.Reader):  # type: ignore[misc]
        def _read_offsets_and_lengths(self) -> None:
            """whoosh-reloaded 2.7.5's VarBytesColumn.Reader method, the loop aside."""
            dbfile, doccount = self._dbfile, self._doccount
            lastbyte = self._basepos + self._length - 1  # the lengths' type code
            lens_code = chr(dbfile.get_byte(lastbyte))
            offsets = None
            if lens_code == "X":  # offsets written too: the lengths' and offsets' codes before it
                self.had_stored_offsets = True
                lens_code = chr(dbfile.get_byte(lastbyte - 2))
                offsets_code = chr(dbfile.get_byte(lastbyte - 1))
                offsetstart = (lastbyte - 2) - doccount * struct.calcsize(offsets_code)
                offsets = dbfile.get_array(offsetstart, offsets_code, doccount)
                lastbyte = offsetstart
            lenstart = lastbyte - struct.calcsize(lens_code) * doccount
            lengths = dbfile.get_array(lenstart, lens_code, doccount)
            if offsets is None:
                offsets = array("L", accumulate(lengths, initial=0))
                offsets.pop()  # the total
            self._offsets = offsets
            self._lengths = lengths


STORED_COLUMN = PickleColumn(SummedOffsets())


def prime(leaf: Any) -> None:
    """Open ``leaf``'s stored-fields column as above, unless it is open already (or the fast
    paths are off, or the segment is not of Whoosh's W3 codec): its stored_fields reads from it."""
    perdoc = getattr(leaf, "_perdoc", None)
    if not fast() or not isinstance(perdoc, W3PerDocReader) or STORED_FIELD in perdoc._readers:
        return
    if perdoc.has_column(STORED_FIELD):
        perdoc._readers[STORED_FIELD] = perdoc.column_reader(STORED_FIELD, STORED_COLUMN)
