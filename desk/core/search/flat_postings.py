"""A segment's posting lists without positions, as flat arrays in a file of its own.

Whoosh keeps a posting list in blocks of 1,024 postings, each a zlib-compressed pickle of
their ids, weights and positions. Ranking needs only the ids and weights, yet reading a
common word's list decompresses and unpickles every position of it: at 100k real abstracts
that was most of what a query costs the first time its words are read (and every time at a
million, where a posting cache holds a few queries' words). So desk writes, beside each
segment it writes (``<segment id>.dpost``, named so Whoosh removes it with its segment), the
same lists as plain arrays: local docnums (int32) and weights (float32), read in place
through a memory map. Positions (phrases) and stored fields still come from the segment.

The file is derived data: it is signed with the segment's files in the index's record
(``manifest.py``), used only when the record lists it and its header names the segment and
its document count, and a segment without one is read from Whoosh as before (a segment
written by Whoosh's own writer, or one a merge of older segments through Whoosh's pool made).

Layout (little-endian, every section 8-byte aligned): ``MAGIC``, a uint32 header length,
the header (JSON: version, segment id, documents, and per field its counts and offset), then
per field: the terms' 64-bit keys sorted (``term_key``) with each key's term number (uint32),
each term's end in the term bytes and in the postings (int64), the term bytes in term order,
the docnums, the weights, and where the field keeps positions each posting's end in them
(uint32) and the positions.
"""

from __future__ import annotations

import contextlib
import json
import mmap
import os
import struct
import zlib
from array import array
from bisect import bisect_left
from collections.abc import Sequence
from itertools import accumulate, chain, islice
from pathlib import Path
from pickle import dumps
from typing import TYPE_CHECKING, Any

from whoosh.formats import _INT_SIZE
from whoosh.system import pack_uint

from desk.core.search.unpickling import loads

if TYPE_CHECKING:
    import numpy as np

MAGIC = b"DESKPST\x01"
VERSION = 3  # 1 had no positions (2: never on main)
EXT = ".dpost"
_HEADER_LEN = struct.Struct("<I")
READ_WHOLE_UP_TO = 4 << 20  # bytes: a smaller file is read into memory, a bigger one mapped


def term_key(btext: bytes) -> int:
    """A term's 64-bit lookup key: stable across processes (Python's hash of bytes is not)."""
    return (zlib.crc32(btext) << 32) | zlib.adler32(btext)


def _pad(n: int) -> int:
    return (-n) % 8


# Whoosh's Positions value of a word seen once at p (most postings): pack_uint(1) + a pickle of [p].
_ONCE_POS = {pack_uint(1) + dumps([p], 2): p for p in range(2048)}


def _decode_positions(value: bytes) -> list[int]:
    """The positions in one Whoosh Positions value (a count, then a pickle of their deltas)."""
    body = value[_INT_SIZE:]
    return list(accumulate(loads(body if body.endswith(b".") else body + b".")))


def float32_bytes(values: Sequence[float]) -> bytes:
    """``array("f", values).tobytes()``, packed by struct (tested equal).

    array converts item by item through an argument parser (``PyArg_Parse``, ~300 instructions
    a float: 3 % of writing a segment); struct's native "f" makes the same C cast without it.
    """
    return struct.pack(f"{len(values)}f", *values)


def uint16_bytes(values: Sequence[int]) -> bytes:
    """``array("H", values).tobytes()`` for values in 0..0xFFFF, packed by struct (see float32_bytes)."""
    return struct.pack(f"{len(values)}H", *values)


class PositionTable(dict[Any, list[int]]):
    """Whoosh Positions values -> the positions they hold, decoding (and keeping) a value not known yet.

    A segment writer puts in the values it encodes as it encodes them, so the flat file's
    positions are not decoded again from the bytes just written (3 % of writing a segment).
    """

    def __missing__(self, value: Any) -> list[int]:
        found = _decode_positions(value) if value else []
        self[value] = found
        return found


def positions_of(
    values: Sequence[Any], known: PositionTable | None = None
) -> tuple[list[int], list[int]] | None:
    """(positions per posting, all of them in order) of a list's Whoosh values; None when no
    posting has positions (a field indexed without them). ``known`` holds values already decoded."""
    firsts = list(map(_ONCE_POS.get, values))
    if None not in firsts:
        return [1] * len(firsts), firsts  # type: ignore[return-value]
    if not any(values):
        return None
    table = PositionTable() if known is None else known
    held = list(map(table.__getitem__, values))
    return list(map(len, held)), list(chain.from_iterable(held))


class FlatWriter:
    """Gathers one segment's posting lists, field by field and term by term in term order."""

    def __init__(self, known: PositionTable | None = None) -> None:
        #: Positions values already decoded (by the segment writer that encoded them).
        self.known = known
        # field -> (terms, each term's end in the postings, docnums, weights). Docnums are kept as
        # unsigned ints ("I": converted without an argument parser, and the same bytes as int32
        # for a docnum, never negative nor 2^31); weights as floats, packed once in write().
        self._fields: dict[str, tuple[list[bytes], array[int], array[int], list[float]]] = {}
        # field -> (each posting's end in the positions, the positions); fields with any
        self._positions: dict[str, tuple[array[int], list[int]]] = {}

    def add(
        self,
        fieldname: str,
        btext: bytes,
        ids: Sequence[int],
        weights: Sequence[float],
        values: Sequence[Any] = (),
    ) -> None:
        """Add one term's postings (``ids`` ascending) with their Whoosh values (the positions of
        a field that keeps them); terms of a field must come in byte order."""
        entry = self._fields.get(fieldname)
        if entry is None:
            entry = self._fields[fieldname] = ([], array("q"), array("I"), [])
        terms, ends, all_ids, all_weights = entry
        terms.append(btext)
        start = len(all_ids)
        all_ids.extend(ids)
        all_weights.extend(weights)
        ends.append(len(all_ids))
        found = positions_of(values, self.known) if values else None
        held = self._positions.get(fieldname)
        if found is None and held is None:
            return
        if held is None:  # the field's first list with positions: those before it have none
            held = self._positions[fieldname] = (array("I", [0] * start), [])
        pos_ends, flat = held
        if found is None:
            pos_ends.extend([len(flat)] * len(ids))
            return
        counts, more = found
        base = len(flat)
        flat.extend(more)
        pos_ends.extend(islice(accumulate(counts, initial=base), 1, None))

    def __bool__(self) -> bool:
        return bool(self._fields)

    def write(self, path: Path, segment: str, docs: int) -> None:
        """Write the file for segment ``segment`` of ``docs`` documents (not synced: like the
        segment's own files, it is listed by no table of contents until the commit that signs it).

        Plain Python and ``array``: worker processes that write segments never load numpy.
        """
        sections: list[bytes] = []
        fields: dict[str, dict[str, int]] = {}
        offset = 0
        for name in sorted(self._fields):
            terms, post_ends, ids, weights = self._fields[name]
            keys = list(map(term_key, terms))
            order = sorted(range(len(terms)), key=keys.__getitem__)
            blob = b"".join(terms)
            parts = [
                array("Q", map(keys.__getitem__, order)).tobytes(),
                array("I", order).tobytes(),
                array("q", accumulate(map(len, terms))).tobytes(),
                post_ends.tobytes(),
                blob,
                ids.tobytes(),
                float32_bytes(weights),
            ]
            info = {
                "terms": len(terms),
                "postings": len(ids),
                "blob": len(blob),
                "at": offset,
                "positions": -1,
            }
            held = self._positions.get(name)
            if held is not None:
                pos_ends, flat = held
                pos_ends.extend([len(flat)] * (len(ids) - len(pos_ends)))
                wide = bool(flat) and max(flat) > 0xFFFF
                parts += [pos_ends.tobytes(), array("I", flat).tobytes() if wide else uint16_bytes(flat)]
                info["positions"], info["wide"] = len(flat), int(wide)
            body = b"".join(part + b"\0" * _pad(len(part)) for part in parts)
            fields[name] = info
            sections.append(body)
            offset += len(body)
        header = json.dumps(
            {"version": VERSION, "segment": segment, "docs": docs, "fields": fields}, sort_keys=True
        ).encode("utf-8")
        start = len(MAGIC) + _HEADER_LEN.size + len(header)
        head = MAGIC + _HEADER_LEN.pack(len(header)) + header + b"\0" * _pad(start)
        # Under a name the index's record never lists, then renamed: a record made meanwhile (a
        # commit in another process) never signs a file half written.
        tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        try:
            with tmp.open("wb") as fh:
                fh.write(head)
                for body in sections:
                    fh.write(body)
            os.replace(tmp, path)
        finally:
            with contextlib.suppress(OSError):
                tmp.unlink()


class _FieldTable:
    """One field's arrays, in place in the mapped file."""

    def __init__(
        self, buf: memoryview, base: int, terms: int, postings: int, blob: int, positions: int, wide: bool
    ) -> None:
        at = base

        def take(size: int) -> memoryview:
            nonlocal at
            view = buf[at : at + size]
            at += size + _pad(size)
            return view

        self.count = terms
        self.keys = take(8 * terms).cast("Q")
        self.order = take(4 * terms).cast("I")
        self.term_ends = take(8 * terms).cast("q")
        self.post_ends = take(8 * terms).cast("q")
        self.blob = take(blob)
        ids_at = at
        take(4 * postings)
        weights_at = at
        take(4 * postings)
        import numpy as np  # here: the writer side (worker processes) never loads numpy

        self.ids = np.frombuffer(buf, np.int32, postings, ids_at)
        self.weights = np.frombuffer(buf, np.float32, postings, weights_at)
        self.pos_ends: np.ndarray | None = None  # each posting's end in ``positions``
        self.positions: np.ndarray | None = None
        if positions >= 0:
            ends_at = at
            take(4 * postings)
            pos_at = at
            take((4 if wide else 2) * positions)
            self.pos_ends = np.frombuffer(buf, np.uint32, postings, ends_at)
            self.positions = np.frombuffer(buf, np.uint32 if wide else np.uint16, positions, pos_at)
        self.end = at

    def term(self, k: int) -> bytes:
        """The ``k``-th term in term order."""
        return bytes(self.blob[self.term_ends[k - 1] if k else 0 : self.term_ends[k]])

    def postings(self, k: int) -> tuple[np.ndarray, np.ndarray]:
        lo = self.post_ends[k - 1] if k else 0
        hi = self.post_ends[k]
        return self.ids[lo:hi], self.weights[lo:hi]

    def find(self, btext: bytes) -> int:
        """The term number of ``btext``, or -1."""
        key = term_key(btext)
        keys = self.keys
        at = bisect_left(keys, key)
        while at < self.count and keys[at] == key:
            k = self.order[at]
            if self.term(k) == btext:
                return k
            at += 1
        return -1


class _Terms(Sequence[bytes]):
    """A field's terms in term order, as a sequence bisect can search (read one at a time)."""

    def __init__(self, table: _FieldTable) -> None:
        self._table = table

    def __len__(self) -> int:
        return self._table.count

    def __getitem__(self, k: Any) -> Any:
        return self._table.term(k)


class FlatPostings:
    """The flat posting lists of one segment, read in place from its ``.dpost`` file."""

    def __init__(self, path: Path, segment: str, docs: int) -> None:
        """Map ``path``; raises ValueError when it is not the file of ``segment`` with ``docs``
        documents in this version's layout (the caller then reads the segment from Whoosh)."""
        with path.open("rb") as fh:
            size = fh.seek(0, 2)
            if size < len(MAGIC) + _HEADER_LEN.size:
                raise ValueError(f"{path.name}: too short")
            # A map holds a file descriptor for as long as any list read from it is kept, so only
            # big files are mapped: a window's edits make many small segments, soon merged away.
            self.mapped = size > READ_WHOLE_UP_TO
            fh.seek(0)
            data: Any = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) if self.mapped else fh.read()
        self._map: mmap.mmap | None = data if self.mapped else None
        buf = memoryview(data)
        if bytes(buf[: len(MAGIC)]) != MAGIC:
            raise ValueError(f"{path.name}: not a desk postings file")
        (length,) = _HEADER_LEN.unpack_from(buf, len(MAGIC))
        start = len(MAGIC) + _HEADER_LEN.size
        try:
            header = json.loads(bytes(buf[start : start + length]))
            if header["version"] != VERSION or header["segment"] != segment or header["docs"] != docs:
                raise ValueError(f"{path.name}: written for another segment or version")
            base = start + length + _pad(start + length)
            self._fields: dict[str, _FieldTable] = {}
            for name, info in header["fields"].items():
                table = _FieldTable(
                    buf,
                    base + int(info["at"]),
                    int(info["terms"]),
                    int(info["postings"]),
                    int(info["blob"]),
                    int(info["positions"]),
                    bool(info.get("wide", 0)),
                )

                if table.end > size or len(table.ids) != int(info["postings"]):
                    raise ValueError(f"{path.name}: shorter than its header says")
                self._fields[str(name)] = table
        except (KeyError, TypeError, ValueError, UnicodeDecodeError) as exc:
            raise ValueError(f"{path.name}: damaged header ({exc})") from exc

    def release(self) -> None:
        """Give back the mapped pages read so far (arrays read from them stay valid: the next
        read maps the file's cached pages again; see desk.core.runtime.resident)."""
        if self._map is None:  # read into memory: nothing mapped to give back
            return
        from desk.core.runtime import resident

        resident.release(self._map)

    def fields(self) -> frozenset[str]:
        """The fields with at least one term."""
        return frozenset(self._fields)

    def get(self, fieldname: str, btext: bytes) -> tuple[np.ndarray, np.ndarray]:
        """(local docnums ascending, weights) of one term; empty arrays when the segment lacks it."""
        table = self._fields.get(fieldname)
        k = -1 if table is None else table.find(btext)
        if k < 0:
            import numpy as np

            return np.zeros(0, np.int32), np.zeros(0, np.float32)
        assert table is not None
        return table.postings(k)

    def has_positions(self, fieldname: str) -> bool:
        """Whether the field's lists keep their positions here (a field with no terms: trivially)."""
        table = self._fields.get(fieldname)
        return table is None or table.positions is not None

    def positions(self, fieldname: str, btext: bytes, wanted: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(docnum, position) pairs of the sorted local docnums ``wanted`` that the term's list
        holds, as two int64 arrays, docnums ascending (phrases)."""
        import numpy as np

        table = self._fields.get(fieldname)
        k = -1 if table is None else table.find(btext)
        if k < 0 or not len(wanted):
            return np.zeros(0, np.int64), np.zeros(0, np.int64)
        assert table is not None and table.pos_ends is not None and table.positions is not None
        lo = table.post_ends[k - 1] if k else 0
        ids = table.ids[lo : table.post_ends[k]]
        where = np.searchsorted(ids, wanted)
        found = where < len(ids)
        found[found] = ids[where[found]] == wanted[found]
        rows = lo + where[found]
        ends = table.pos_ends[rows].astype(np.int64)
        starts = np.where(rows > 0, table.pos_ends[np.maximum(rows - 1, 0)], 0).astype(np.int64)
        counts = ends - starts
        # Every posting's run of positions gathered at once: index i of the output reads
        # positions[start of its posting + its place in the run].
        before = np.cumsum(counts) - counts
        at = np.arange(int(counts.sum()), dtype=np.int64) + np.repeat(starts - before, counts)
        return np.repeat(wanted[found].astype(np.int64), counts), table.positions[at].astype(np.int64)

    def prefixed(self, fieldname: str, bprefix: bytes, limit: int) -> tuple[list[bytes], bool]:
        """(the first ``limit`` terms starting with ``bprefix``, in term order; whether that is all)."""
        table = self._fields.get(fieldname)
        if table is None:
            return [], True
        terms = _Terms(table)
        k = bisect_left(terms, bprefix)
        out: list[bytes] = []
        while k < table.count:
            term = table.term(k)
            if not term.startswith(bprefix):
                return out, True
            if len(out) >= limit:
                return out, False
            out.append(term)
            k += 1
        return out, True


def path_of(folder: Path, segment: str) -> Path:
    """Where the flat postings of ``segment`` live in the index folder ``folder``."""
    return folder / f"{segment}{EXT}"


def open_trusted(folder: Path, segment: str, docs: int, signed: dict[str, Any] | None) -> FlatPostings | None:
    """The flat postings of ``segment`` when the index's signed record lists their file, else None.

    The record's check (``manifest.check_signed``) has already matched each listed file's size
    and time to the disk; a file it does not list (an index written before them, or planted) or
    whose header is wrong is not read, and the segment is read from Whoosh.
    """
    name = f"{segment}{EXT}"
    if signed is None or name not in signed:
        return None
    try:
        return FlatPostings(folder / name, segment, docs)
    except (OSError, ValueError):
        return None
