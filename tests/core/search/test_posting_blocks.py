"""Posting blocks pickled with protocol 4 (``schema.BLOCK_PROTOCOL``), not Whoosh's protocol 2.

A block holds the same (ids, weights, values) tuple either way; protocol 2 writes each positions
value as a call of ``_codecs.encode``, protocol 4 as its bytes, and frames the pickle, which desk's
data-only reader then takes a frame at a time (``unpickling.loads``). Checked here on real
abstracts (../shared/dev-corpus/): new segments' blocks are protocol 4, name nothing and read back
what Whoosh's own block writer writes; an index holding a segment of each kind searches and
merges as one written all new; and framed pickles planted in an index run nothing.
"""

from __future__ import annotations

import os
import pickle
import pickletools
import re
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from dev_texts import dev_abstracts, needs_dev_corpus
from hypothesis import given, settings
from hypothesis import strategies as st
from test_search_writer import _write
from whoosh.codec.whoosh3 import W3PostingsWriter
from whoosh.filedb.filestore import FileStorage
from whoosh.reading import SegmentReader

from desk.core.search import IndexDoc, SearchIndex, schema, segment_upkeep, unpickling
from desk.core.search.schema import build_schema
from desk.core.search.segment_merge import commit_merged, merge_segments
from desk.core.search.writer import FastSegmentWriter

#: The opcodes a block's pickle may hold: data only (no name looked up, nothing called).
DATA_OPCODES = frozenset(
    {
        "PROTO", "FRAME", "MARK", "STOP", "TUPLE", "TUPLE1", "TUPLE2", "TUPLE3", "EMPTY_TUPLE",
        "BININT", "BININT1", "BININT2", "BINFLOAT", "NONE", "SHORT_BINBYTES", "BINBYTES",
        "MEMOIZE", "BINGET", "LONG_BINGET",
    }
)  # fmt: skip


@pytest.fixture(autouse=True)
def _no_tiny_folding(monkeypatch: pytest.MonkeyPatch) -> None:
    """Deletes and edits fold segments under TINY_SEGMENT: the segments here are bigger."""
    monkeypatch.setattr(segment_upkeep, "TINY_SEGMENT", 10)


def _doc(i: int, text: str) -> IndexDoc:
    words = text.split()
    short = next((w.strip(",.()") for w in words if w.isupper() and len(w) > 2), "")
    return IndexDoc(i, 1, " ".join(words[:8]), short, text, "", i % 5 == 0, i % 3 == 0, ("Dev", f"C{i % 4}"))


def _with_whooshs_blocks(monkeypatch: pytest.MonkeyPatch) -> None:
    """From now on desk's codec writes its blocks as Whoosh 2.7.5 does (protocol 2): an older desk."""
    monkeypatch.setattr(schema._PostingsWriter, "_write_block", W3PostingsWriter._write_block)


def _blocks(reader: Any) -> Iterator[tuple[tuple[Any, ...], bytes]]:
    """(term and block statistics, data pickle decompressed) of every posting block of a segment."""
    for field, btext in reader.all_terms():
        if reader._terms.term_info(field, btext)._inlined is not None:
            continue
        matcher = reader.postings(field, btext)
        while matcher.is_active():
            start, end = matcher._dataoffset, matcher._nextoffset
            data = matcher._postfile.get(start, end - start)
            stats = (
                matcher._blocklength,
                matcher._maxid,
                matcher._maxweight,
                matcher._minlength,
                matcher._maxlength,
            )
            yield (field, btext, *stats), zlib.decompress(data) if matcher._compression else data
            matcher._next_block()


def _one_reader(ix: Any) -> Any:
    reader = ix.reader()
    assert reader.is_atomic()
    return reader


def _postings(reader: Any) -> dict[tuple[str, bytes], list[tuple[int, float, bytes]]]:
    """Every term's postings as the matchers read them (docnum, weight, value)."""
    out = {}
    for field, btext in reader.all_terms():
        matcher = reader.postings(field, btext)
        got = []
        while matcher.is_active():
            got.append((matcher.id(), matcher.weight(), matcher.value() or b""))
            matcher.next()
        out[(field, btext)] = got
    return out


def _opcodes(data: bytes) -> set[str]:
    return {op.name for op, _, _ in pickletools.genops(data)}


@needs_dev_corpus
@pytest.mark.slow
def test_new_blocks_are_protocol_4_and_read_back_what_whooshs_block_writer_writes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    docs = [_doc(i + 1, t) for i, t in enumerate(dev_abstracts())]  # "model": > 1,024 postings
    new = _write(tmp_path / "new", FastSegmentWriter, docs)
    _with_whooshs_blocks(monkeypatch)
    old = _write(tmp_path / "old", FastSegmentWriter, docs)
    with _one_reader(new) as new_reader, _one_reader(old) as old_reader:
        new_blocks, old_blocks = list(_blocks(new_reader)), list(_blocks(old_reader))
        assert len(new_blocks) == len(old_blocks) > 1000
        assert [b[0] for b in new_blocks] == [b[0] for b in old_blocks]  # the same blocks
        assert len({b[0][:2] for b in new_blocks}) < len(new_blocks)  # some terms span blocks
        for (_, got), (_, expected) in zip(new_blocks, old_blocks, strict=True):
            assert got[:2] == b"\x80\x04" and expected[:2] == b"\x80\x02"
            assert _opcodes(got) <= DATA_OPCODES
            assert unpickling.loads(got) == pickle.loads(expected)
        assert sum("GLOBAL" in _opcodes(expected) for _, expected in old_blocks) > 1000  # _codecs.encode
        positions = [v for _, got in new_blocks for v in pickle.loads(got)[2] or ()]
        assert len(positions) > 100_000  # real text's positions
        assert _postings(new_reader) == _postings(old_reader)


def _index(folder: Path, parts: list[list[IndexDoc]]) -> SearchIndex:
    ix = SearchIndex(folder)
    ix.rebuild([], 0)
    for docs in parts:
        ix.update(docs, merge="none")
    return ix


QUERIES = ["diffusion model", '"point cloud"', "transformer attention", '"neural radiance fields"', "video"]


def _answers(ix: SearchIndex) -> list[list[tuple[int, float]]]:
    return [[(h.id, round(h.relevance, 6)) for h in ix.search(q, limit=50).hits] for q in QUERIES]


def _protocols(ix: SearchIndex) -> list[set[int]]:
    """Per segment of the index, the pickle protocols of its blocks' data."""
    ix.close()
    storage = FileStorage(str(ix.directory))
    out = []
    for segment in ix._index()._segments():
        reader = SegmentReader(storage, build_schema(), segment)
        try:
            out.append({data[1] for _, data in _blocks(reader)})
        finally:
            reader.close()
    return out


def _merge(ix: SearchIndex) -> None:
    ix.close()
    merged = merge_segments(str(ix.directory), os.getpid(), ix._index()._segments())
    assert commit_merged(ix._index(), [merged], 5.0) == 1


def _merged_postings(ix: SearchIndex) -> Any:
    ix.close()
    (segment,) = ix._index()._segments()
    reader = SegmentReader(FileStorage(str(ix.directory)), build_schema(), segment)
    try:
        return _postings(reader)
    finally:
        reader.close()


@needs_dev_corpus
@pytest.mark.slow
def test_an_index_with_an_old_segment_and_a_new_one_searches_and_merges_as_one_written_new(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    texts = dev_abstracts()[:1400]
    first = [_doc(i + 1, t) for i, t in enumerate(texts[:700])]
    second = [_doc(i + 701, t) for i, t in enumerate(texts[700:])]
    reference = _index(tmp_path / "reference", [first, second])
    assert _protocols(reference) == [{4}, {4}]
    with monkeypatch.context() as older:
        _with_whooshs_blocks(older)
        mixed = _index(tmp_path / "mixed", [first])
    mixed.update(second, merge="none")
    assert _protocols(mixed) == [{2}, {4}]
    expected = _answers(reference)
    assert all(expected) and _answers(mixed) == expected  # phrases read the old blocks' positions
    for ix in (reference, mixed):
        ix.delete([3, 800])
        _merge(ix)
    assert _protocols(mixed) == [{4}]  # the merge rewrote the old segment's blocks
    assert _answers(mixed) == _answers(reference)
    assert _merged_postings(mixed) == _merged_postings(reference)


# --- the data-only reader's framed path: what a planted index could hold --------------------------


def _framed(body: bytes) -> bytes:
    """``body`` (opcodes, STOP included) as a protocol-4 pickle in one frame."""
    return b"\x80\x04\x95" + len(body).to_bytes(8, "little") + body


def _global(module: str, name: str) -> bytes:
    return b"c" + module.encode() + b"\n" + name.encode() + b"\n"


def _block(values: tuple[bytes, ...]) -> bytes:
    """A block's data pickle as desk's writer writes one (ids, weights, values)."""
    return pickle.dumps((tuple(range(len(values))), None, values), schema.BLOCK_PROTOCOL)


def test_framed_pickles_naming_anything_else_are_refused_and_run_nothing(tmp_path: Path) -> None:
    marker = tmp_path / "PWNED"
    command = f"touch {marker}".encode()
    hostile = [
        # GLOBAL, REDUCE
        _framed(_global("posix", "system") + b"(C" + bytes([len(command)]) + command + b"tR."),
        # STACK_GLOBAL of a dotted name inside an allowed module
        _framed(b"\x8c\x0dwhoosh.fields\x8c\x1aSchema.__init__.__globals__\x93."),
        # INST, OBJ, NEWOBJ: classes by name
        _framed(b"(C" + bytes([len(command)]) + command + b"iposix\nsystem\n."),
        _framed(b"(" + _global("posix", "system") + b"C" + bytes([len(command)]) + command + b"o."),
        _framed(_global("subprocess", "Popen") + b")\x81."),
        # an allowed global can be named, but reached only as itself: no attribute walk
        _framed(_global("builtins", "getattr") + b"."),
    ]
    for data in hostile:
        with pytest.raises(pickle.UnpicklingError):
            unpickling.loads(data)
    assert not marker.exists()


def test_a_blocks_values_that_hold_opcodes_are_data_and_a_forged_length_reaches_the_wall(
    tmp_path: Path,
) -> None:
    marker = tmp_path / "PWNED"
    payload = _global("posix", "system") + b"(X" + len(f"touch {marker}").to_bytes(4, "little")
    payload += f"touch {marker}".encode() + b"tR."
    values = (b"\x01\x00\x00\x00\x80\x02]q\x00K\x05a.", payload, b"\x93\x81R.")
    block = _block(values)
    assert block.startswith(b"\x80\x04\x95")
    assert unpickling.loads(block) == (tuple(range(3)), None, values)  # bytes are bytes
    # The length byte of the payload's BINBYTES set to 0: its bytes are now opcodes (a GLOBAL
    # of posix.system, then a call of it). The data-only reader stops at the name.
    at = block.index(b"C" + bytes([len(payload)]) + payload)
    forged = block[:at] + b"C\x00" + block[at + 2 :]
    assert "GLOBAL" in _opcodes(forged)
    with pytest.raises(pickle.UnpicklingError):
        unpickling.loads(forged)
    assert not marker.exists()


def test_a_frame_that_lies_about_its_length_runs_nothing(tmp_path: Path) -> None:
    marker = tmp_path / "PWNED"
    tail = _global("posix", "system") + b"(X\x05\x00\x00\x00touchtR."
    body = _block((b"abc",))[11:-1] + b"0" + tail  # the block, its value popped, then a call
    for length in (0, 3, len(body), 2**40, 2**63 - 1):
        data = b"\x80\x04\x95" + length.to_bytes(8, "little") + body
        with pytest.raises((pickle.UnpicklingError, EOFError, ValueError, OverflowError, MemoryError)):
            unpickling.loads(data)
    assert not marker.exists()


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.binary(min_size=0, max_size=40), min_size=1, max_size=30),
    st.lists(st.tuples(st.integers(min_value=0), st.sampled_from(b"c\x93iRob\x81\x82QP\x95C")), max_size=4),
)
def test_a_damaged_block_reads_as_data_or_fails_and_looks_up_no_other_name(
    values: list[bytes], damage: list[tuple[int, int]]
) -> None:
    data = bytearray(_block(tuple(values)))
    for where, opcode in damage:
        data[11 + where % (len(data) - 11)] = opcode  # past PROTO and FRAME
    resolved: list[tuple[str, str]] = []

    class Watching(unpickling._DataOnly):
        def find_class(self, module: str, name: str) -> Any:
            found = super().find_class(module, name)  # refuses a name not allowed
            resolved.append((module, name))
            return found

    monkeypatch = pytest.MonkeyPatch()
    monkeypatch.setattr(unpickling, "_DataOnly", Watching)
    try:
        unpickling.loads(bytes(data))
    except Exception:
        pass
    finally:
        monkeypatch.undo()
    assert set(resolved) <= unpickling.ALLOWED


# The plain-ints grammar as it was before its repeats were made possessive: both must accept the
# same bytes (possessive only spares the backtracking over a pickle that is not a plain list).
_GREEDY = re.compile(unpickling._PLAIN_INTS.pattern.replace(b"*+", b"*").replace(b"?+", b"?"), re.DOTALL)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.integers(min_value=-(2**31), max_value=2**31 - 1), max_size=1100),
    st.sampled_from([2, 3, 4, 5]),
    st.booleans(),
    st.lists(st.tuples(st.integers(min_value=0), st.integers(min_value=0, max_value=255)), max_size=3),
)
def test_the_possessive_plain_ints_grammar_accepts_what_the_greedy_one_did(
    values: list[int], protocol: int, as_tuple: bool, damage: list[tuple[int, int]]
) -> None:
    data = bytearray(pickle.dumps(tuple(values) if as_tuple else values, protocol))
    for where, byte in damage:
        data[where % len(data)] = byte
    raw = bytes(data)
    assert bool(unpickling._PLAIN_INTS.fullmatch(raw)) == bool(_GREEDY.fullmatch(raw))
