"""The fast segment writer writes what Whoosh's own writer writes, term by term."""

from __future__ import annotations

import re
from io import BytesIO
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from whoosh.fields import TEXT
from whoosh.filedb.filestore import FileStorage
from whoosh.writing import SegmentWriter

from desk.core.search import IndexDoc
from desk.core.search.fields import writer_fields
from desk.core.search.schema import build_schema, codec, stem_analyzer
from desk.core.search.writer import FastSegmentWriter, _stems_of_tokens, encode_positions, lowered_tokens

WHOOSH_TEXT = TEXT(analyzer=stem_analyzer())
_WORD_RE = re.compile(r"[^\W\d_]{2,}")


def words_of(text: str) -> set[str]:
    """The distinct lowercased alphabetic words of ``text``: what the lexicon counts, by its definition."""
    return set(_WORD_RE.findall(text.lower()))


def stemmed_words(text: str) -> tuple[int, list[str]]:
    """(position of the first word kept, stems of the words kept) of ``text``, as the writer finds them."""
    return _stems_of_tokens(lowered_tokens(text))


def stemmed_positions(text: str) -> dict[str, list[int]]:
    """Stem -> positions of ``text``, from the writer's stemmed_words()."""
    first, stems = stemmed_words(text)
    positions: dict[str, list[int]] = {}
    for pos, term in enumerate(stems, first):
        positions.setdefault(term, []).append(pos)
    return positions


def stemmed_postings(text: str) -> list[tuple[bytes, int, float, bytes]]:
    """What the fast writer indexes for a stemmed field, in the shape of Whoosh's field.index()."""
    positions = stemmed_positions(text)
    return [(t.encode("utf-8"), len(p), float(len(p)), encode_positions(p)) for t, p in positions.items()]


words = st.sampled_from(
    ["the", "a", "of", "Models", "model", "diffusion", "İstanbul", "ÉCOLE", "x", "LLMs", "v2.0", "e.g",
     "don't", "naïve", "ß", "ﬁne", "σ-algebra", "policies", "policy", "x86_64", "3.5", "—", "$\\alpha$"]
)  # fmt: skip
texts = st.one_of(st.text(max_size=300), st.lists(words, max_size=60).map(" ".join))


@settings(max_examples=400, deadline=None)
@given(texts)
def test_stemmed_postings_are_what_the_whoosh_analyzer_indexes(text: str) -> None:
    assert sorted(stemmed_postings(text)) == sorted(WHOOSH_TEXT.index(text))


dotted = st.lists(
    st.sampled_from(["a", "b2", "é", "_", ".", "..", " ", "-", "v2.0", "e.g."]), max_size=30
).map("".join)


@settings(max_examples=400, deadline=None)
@given(st.one_of(st.text(max_size=200), dotted))
def test_the_token_pattern_finds_the_words_of_the_pattern_before_it(text: str) -> None:
    """TOKEN_PATTERN dropped an optional dot the greedy match never used: same tokens, fewer steps."""
    import re

    from desk.core.search.schema import TOKEN_PATTERN

    assert re.findall(TOKEN_PATTERN, text) == re.findall(r"\w+(?:\.?\w+)*", text)


def _docs(n: int) -> list[IndexDoc]:
    topics = ["graph neural networks", "diffusion models for images", "offline reinforcement learning"]
    out = []
    for i in range(n):
        topic = topics[i % 3]
        abstract = (
            f"We study {topic} and the policies that matter; {topic} again in setting {i % 11}. "
            + "Models of models of the model. " * (i % 4)
            + f"Results on benchmark number {i} with σ = {i % 7}."
        )
        out.append(
            IndexDoc(
                i + 1, 1 + i % 3, f"Paper {i} on {topic}", "RACER" if i % 5 == 0 else "", abstract,
                "a note on *diffusion*" if i % 7 == 0 else "", i % 2 == 0, i % 3 == 0,
                ("Conf A", "Conf B") if i % 4 == 0 else ("Conf A",),
            )
        )  # fmt: skip
    return out


def _write(folder: Path, writer_class: type[SegmentWriter], docs: list[IndexDoc]) -> Any:
    folder.mkdir()
    ix = FileStorage(str(folder)).create_index(build_schema(), indexname="t")
    writer = writer_class(ix, codec=codec(), compound=False)
    for doc in docs:
        writer.add_document(**writer_fields(doc))
    writer.commit()
    return ix


def _everything(ix: Any) -> dict[str, Any]:
    """Every term's statistics and postings, and every document's stored fields and lengths, by paper id."""
    with ix.reader() as reader:
        id_of = reader.column_reader("id")
        terms = {}
        for field, text in reader.all_terms():
            info = reader.term_info(field, text)
            matcher = reader.postings(field, text)
            postings = []
            while matcher.is_active():
                postings.append((id_of[matcher.id()], matcher.weight(), matcher.value()))
                matcher.next()
            stats = (info.weight(), info.doc_frequency(), info.min_length(), info.max_length())
            terms[(field, text)] = (stats, info.max_weight(), sorted(postings))
        docs = sorted(
            (
                id_of[n],
                reader.stored_fields(n),
                [reader.doc_field_length(n, f) for f in ("title", "abstract")],
            )
            for n in reader.all_doc_ids()
        )
        lengths = {f: reader.field_length(f) for f in reader.indexed_field_names()}
        return {"terms": terms, "docs": docs, "lengths": lengths}


def _files(folder: Path) -> dict[str, bytes]:
    """The segment's files by extension, except the postings and terms (values may be shared objects)."""
    return {
        p.name.split(".", 1)[1]: p.read_bytes()
        for p in folder.iterdir()
        if "." in p.name and not p.name.endswith((".toc", ".pst", ".trm"))
    }


@pytest.mark.slow
@pytest.mark.fast_paths
def test_the_fast_writer_writes_the_same_segment_as_whoosh(tmp_path: Path) -> None:
    docs = _docs(700)  # more postings for common terms than a block holds (1024 is not reached: 700)
    docs += _docs(1400)[700:]  # "model" and friends now span two blocks
    whoosh = _write(tmp_path / "whoosh", SegmentWriter, docs)
    fast = _write(tmp_path / "fast", FastSegmentWriter, docs)
    expected, got = _everything(whoosh), _everything(fast)
    assert got["docs"] == expected["docs"]
    assert got["lengths"] == expected["lengths"]
    assert got["terms"].keys() == expected["terms"].keys()
    assert got["terms"] == expected["terms"]
    assert _files(tmp_path / "fast") == _files(tmp_path / "whoosh")  # columns, stored fields, lengths


def test_merging_older_segments_in_takes_whooshs_path_and_keeps_every_posting(tmp_path: Path) -> None:
    from whoosh.writing import OPTIMIZE

    docs = _docs(300)
    whoosh = _write(tmp_path / "whoosh", SegmentWriter, docs)
    folder = tmp_path / "fast"
    folder.mkdir()
    ix = FileStorage(str(folder)).create_index(build_schema(), indexname="t")
    for start in (0, 100):
        writer = FastSegmentWriter(ix, codec=codec())
        for doc in docs[start : start + 100]:
            writer.add_document(**writer_fields(doc))
        writer.commit()
    writer = FastSegmentWriter(ix, codec=codec())
    for doc in docs[200:]:
        writer.add_document(**writer_fields(doc))
    writer.commit(mergetype=OPTIMIZE)  # the two older segments are read into this one
    assert len(ix._segments()) == 1
    got, expected = _everything(ix), _everything(whoosh)
    # Totals of field lengths are left out: Whoosh re-adds merged documents' lengths as stored
    # (quantised to a byte), so its own merges change them the same way.
    assert (got["terms"], got["docs"]) == (expected["terms"], expected["docs"])


def test_short_posting_lists_kept_in_the_term_table_read_back_the_same(tmp_path: Path) -> None:
    """DeskCodec inlines lists of fewer than INLINE_POSTINGS postings; Whoosh's default writes blocks."""
    from whoosh.codec.whoosh3 import W3Codec

    from desk.core.search.schema import INLINE_POSTINGS

    docs = _docs(300)
    blocks = FileStorage(str(tmp_path)).create_index(build_schema(), indexname="blocks")
    inline = FileStorage(str(tmp_path)).create_index(build_schema(), indexname="inline")
    for ix, writer_codec in ((blocks, W3Codec(blocklimit=1024, compression=1)), (inline, codec())):
        writer = FastSegmentWriter(ix, codec=writer_codec)
        for doc in docs:
            writer.add_document(**writer_fields(doc))
        writer.commit()
    got, expected = _everything(inline), _everything(blocks)
    with inline.reader() as reader:
        inlined = [t for t in reader.all_terms() if reader.term_info(*t).is_inlined()]
    assert len(inlined) > 100  # "benchmark number 17" and the like: one paper each
    assert all(reader_df < INLINE_POSTINGS for reader_df in (got["terms"][t][0][1] for t in inlined))

    def plain(terms: dict) -> dict:  # a value-less posting reads None from a block, b"" inline
        return {k: (s, w, [(i, wt, v or b"") for i, wt, v in p]) for k, (s, w, p) in terms.items()}

    assert plain(got["terms"]) == plain(expected["terms"])
    assert got["docs"] == expected["docs"]


postings_lists = st.integers(1, 5).flatmap(
    lambda n: st.tuples(
        st.lists(st.integers(0, 2**31), min_size=n, max_size=n, unique=True).map(sorted),
        st.lists(st.sampled_from([1.0, 2.0, 3.0, 0.5, 7.25]), min_size=n, max_size=n),
        st.one_of(st.just([b""] * n), st.lists(st.binary(min_size=1, max_size=9), min_size=n, max_size=n)),
        st.lists(st.integers(0, 5000), min_size=n, max_size=n),
    )
)


@settings(max_examples=300, deadline=None)
@given(postings_lists)
@pytest.mark.fast_paths
def test_an_inlined_term_row_is_the_one_the_postings_writer_writes(lists: tuple) -> None:
    """inlined_term_info() writes, without the writer's objects, the row DeskCodec's writer writes."""
    from io import BytesIO

    from whoosh.codec.whoosh3 import W3TermInfo
    from whoosh.filedb.structfile import StructFile
    from whoosh.util.numeric import byte_to_length, length_to_byte

    from desk.core.search.writer import inlined_term_info

    docs, weights, values, lengths = lists
    lengths = [byte_to_length(length_to_byte(n)) if n else 0 for n in lengths]  # as the writer stores them
    postings = list(zip(docs, weights, values, lengths, strict=True))
    postwriter = codec().postings_writer(StructFile(BytesIO()))
    postwriter.start_postings(build_schema()["abstract"].format, W3TermInfo())
    for doc, weight, value, length in postings:
        postwriter.add_posting(doc, weight, value, length)
    flat = [item for posting in postings for item in posting]  # the writer keeps them flat
    assert inlined_term_info(flat) == postwriter.finish_postings().to_bytes()


def test_words_of_skips_digits_and_single_letters() -> None:
    assert words_of("A 3D Learner's learning, x2 Émile") == {"learner", "learning", "émile"}


@settings(max_examples=400, deadline=None)
@given(st.one_of(texts, dotted))
def test_the_lexicon_words_read_from_the_index_tokens_are_the_words_of_the_text(text: str) -> None:
    from desk.core.search.fields import words_of_tokens

    assert words_of_tokens(lowered_tokens(text)) == words_of(text)


def test_the_writer_counts_the_documents_holding_each_lexicon_word(tmp_path: Path) -> None:
    from collections import Counter

    def words(doc: IndexDoc) -> set[str]:  # what the lexicon counted per paper before the writer did
        return words_of(f"{doc.title}\n{doc.short_name}\n{doc.abstract}\n{doc.note}")

    docs = _docs(60)
    folder = tmp_path / "ix"
    folder.mkdir()
    ix = FileStorage(str(folder)).create_index(build_schema(), indexname="t")
    writer = FastSegmentWriter(ix, codec=codec())
    for doc in docs:
        writer.add_document(**writer_fields(doc))
    expected = Counter(w for doc in docs for w in words(doc))
    assert writer.word_counts == expected
    assert expected["racer"] == 12 and expected["diffusion"] > 20  # short names and notes count too
    writer.cancel()


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.integers(0, 70_000), min_size=1, max_size=1100, unique=True).map(sorted)
    | st.integers(1, 1100).map(lambda n: list(range(3, 3 + 2 * n, 2)))
)
def test_positions_are_encoded_as_whoosh_encodes_them(positions: list[int]) -> None:
    """encode_positions writes the pickle itself; Whoosh's Positions format pickles the deltas."""
    from itertools import pairwise
    from pickle import dumps

    from whoosh.system import pack_uint

    deltas = [positions[0]] + [b - a for a, b in pairwise(positions)]
    assert encode_positions(positions) == pack_uint(len(deltas)) + dumps(deltas, 2)


@settings(max_examples=100, deadline=None)
@given(st.lists(texts, min_size=1, max_size=4))
def test_the_stem_table_starting_again_when_full_changes_no_posting(batch: list[str]) -> None:
    import unittest.mock

    from desk.core.search import writer

    expected = [sorted(WHOOSH_TEXT.index(text)) for text in batch]
    with unittest.mock.patch.object(writer, "_STEM_OF_LIMIT", 3):
        assert [sorted(stemmed_postings(text)) for text in batch] == expected


@pytest.fixture(scope="module")
def id_index(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """Two segments, the second holding new versions of papers of the first (ids repeat)."""
    ix = FileStorage(str(tmp_path_factory.mktemp("ids"))).create_index(build_schema(), indexname="t")
    for batch in (_docs(120), _docs(40)[::3]):
        writer = FastSegmentWriter(ix, codec=codec(), compound=False)
        for doc in batch:
            writer.add_document(**writer_fields(doc))
        writer.commit(merge=False)
    return ix


def _read_both_ways(ix: Any) -> list[bool]:
    """Each segment's id column and stored fields read by SegmentDocs and by Whoosh's SegmentReader
    must agree; returns which segments were compound."""
    from whoosh.reading import SegmentReader

    from desk.core.search.segment_upkeep import SegmentDocs

    compound = []
    for segment in ix._segments():
        whole = SegmentReader(ix.storage, ix.schema, segment)
        docs = SegmentDocs(ix.storage, ix.schema, segment)
        try:
            every = range(segment.doc_count_all())
            assert list(docs.column("id")) == list(whole.column_reader("id", translate=False))
            assert [docs.stored_fields(n) for n in every] == [whole.stored_fields(n) for n in every]
        finally:
            docs.close()
            whole.close()
        compound.append(segment.is_compound())
    return compound


def test_a_segments_documents_read_without_its_terms_are_whooshs(id_index: Any, seeded: Any) -> None:
    assert _read_both_ways(id_index) == [False, False]  # segments in files of their own
    seeded.set_note(seeded.paper_ids()[0], "a second segment, with a note")
    assert True in _read_both_ways(seeded.index._index())  # a library's: compound segments


@settings(max_examples=40, deadline=None)
@given(wanted=st.lists(st.integers(min_value=-3, max_value=130), max_size=80))
def test_deletes_find_the_documents_numpy_finds_with_few_ids_or_many(
    id_index: Any, wanted: list[int]
) -> None:
    import numpy as np

    from desk.core.search.posting_decode import column_array
    from desk.core.search.segment_upkeep import _column_ints, docnums_of

    with id_index.reader() as reader:
        for leaf, _ in reader.leaf_readers():
            count = leaf.doc_count_all()
            column = _column_ints(leaf.column_reader("id", translate=False), count)
            expected = column_array(leaf.column_reader("id", translate=False), count)
            assert column.tolist() == expected.tolist() and column.typecode == "q"
            found = np.flatnonzero(np.isin(expected, np.array(wanted, dtype=np.int64))).tolist()
            assert docnums_of(column, wanted) == found  # a scan per id (up to FEW_IDS), else isin


# Ids made of a few byte values, so an id's bytes often stand across two items of the column.
_BYTEY = st.builds(
    lambda b: int.from_bytes(bytes(b), "little", signed=True),
    st.lists(st.sampled_from([0, 1, 2, 255]), min_size=8, max_size=8),
)


@settings(max_examples=300, deadline=None)
@given(
    items=st.lists(st.one_of(_BYTEY, st.integers(-5, 5)), max_size=60),
    wanted=st.lists(st.one_of(_BYTEY, st.integers(-5, 5), st.integers(2**63, 2**64)), max_size=32),
)
@pytest.mark.slow
def test_a_few_ids_are_found_where_they_stand_whole_never_across_two_items(
    items: list[int], wanted: list[int]
) -> None:
    from array import array

    from desk.core.search.segment_upkeep import FEW_IDS, docnums_of

    assert len(wanted) <= FEW_IDS  # the bytes path
    column = array("q", items)
    assert docnums_of(column, wanted) == [k for k, v in enumerate(items) if v in set(wanted)]


@pytest.mark.slow
@settings(max_examples=600, deadline=None)
@given(st.one_of(st.text(alphabet=st.characters(max_codepoint=127), max_size=120), texts, dotted))
def test_lowered_tokens_of_ascii_text_are_the_tokens_lowered_one_by_one(text: str) -> None:
    import re

    from desk.core.search.schema import TOKEN_PATTERN

    assert lowered_tokens(text) == " ".join(re.findall(TOKEN_PATTERN, text)).lower().split(" ")


_EDGE_WEIGHTS = [1.0, 2.0, 0.5, 1e39, -1e39, 3.4028235e38]  # past float32's range: inf either way


@settings(max_examples=300, deadline=None)
@given(st.lists(st.floats(width=64) | st.sampled_from(_EDGE_WEIGHTS), max_size=300))
def test_weights_packed_by_struct_are_the_bytes_array_writes(weights: list[float]) -> None:
    """float32_bytes replaces array("f", ...).tobytes() (the flat files, Whoosh's block buffers):
    the same C cast to float32, overflow and NaN included."""
    from array import array

    from desk.core.search.flat_postings import float32_bytes

    assert float32_bytes(weights) == array("f", weights).tobytes()


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 0xFFFF), max_size=500))
def test_narrow_positions_packed_by_struct_are_the_bytes_array_writes(positions: list[int]) -> None:
    from array import array

    from desk.core.search.flat_postings import uint16_bytes

    assert uint16_bytes(positions) == array("H", positions).tobytes()


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from([1.0, 2.0, 0.1, 1e-50, 7.3]) | st.just(1.0), min_size=1, max_size=8))
def test_inlined_weights_are_the_float32_values_the_writer_reads_back(weights: list[float]) -> None:
    from array import array

    from desk.core.search.writer import _as_float32

    got = _as_float32(weights)
    assert got == tuple(array("f", weights))
    assert [type(w) for w in got] == [float] * len(weights)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=40))
def test_the_term_hash_is_whooshs_md5_hash(key: bytes) -> None:
    from whoosh.filedb.filetables import md5_hash

    from desk.core.search.writer import term_hash

    assert term_hash(key) == md5_hash(key)


class _TableFile(BytesIO):
    """A term table's file in memory, kept after close(), that says it starts ``offset`` bytes
    in (positions past 16 and 31 bits without writing that much)."""

    def __init__(self, offset: int) -> None:
        super().__init__()
        self.offset = offset

    def tell(self) -> int:
        return self.offset + super().tell()

    def close(self) -> None:
        pass


def _table(offset: int) -> tuple[Any, _TableFile]:
    """A term table (OrderedHashWriter) in memory, ``offset`` bytes into its file."""
    from whoosh.filedb.filetables import OrderedHashWriter
    from whoosh.filedb.structfile import StructFile

    file = _TableFile(offset)
    return OrderedHashWriter(StructFile(file)), file


def _with_rows(keys: list[bytes]) -> Any:
    return st.tuples(st.just(keys), st.lists(st.binary(max_size=30), min_size=len(keys), max_size=len(keys)))


term_keys = st.lists(st.binary(min_size=1, max_size=12), unique=True, max_size=60).map(sorted)
term_rows = term_keys.flatmap(_with_rows)


@settings(max_examples=200, deadline=None)
@given(term_rows, st.lists(st.integers(0, 3), max_size=4), st.sampled_from([0, 65_000, 2**31 - 200]))
def test_term_rows_added_in_one_go_write_what_add_writes(rows: tuple, cuts: list[int], offset: int) -> None:
    """add_rows() equals OrderedHashWriter.add() row by row: the file, its hash buckets and its
    index of positions (widened past 16 and 31 bits as add() widens it); keys added in batches."""
    from desk.core.search.writer import add_rows

    keys, values = rows
    one_by_one, file_a = _table(offset)
    for key, value in zip(keys, values, strict=True):
        one_by_one.add(key, value)
    batched, file_b = _table(offset)
    at = 0
    for cut in [*cuts, len(keys)]:  # a field's rows come in one batch; several fields, several
        add_rows(batched, keys[at : at + cut], values[at : at + cut])
        at += len(keys[at : at + cut])
    one_by_one.close()
    batched.close()
    assert file_b.getvalue() == file_a.getvalue()


def test_term_rows_must_increase_as_whoosh_requires() -> None:
    from desk.core.search.writer import add_rows

    table, _ = _table(0)
    add_rows(table, [b"b"], [b"1"])
    for keys in ([b"a"], [b"b"], [b"c", b"c"], [b"d", b"c"]):
        with pytest.raises(ValueError):
            add_rows(table, keys, [b""] * len(keys))


def test_ascii_tokens_cut_by_the_byte_table_are_the_patterns_around_every_dot_and_character() -> None:
    """Every ASCII character before, between and after dots and word characters: lowered_tokens's
    byte-table cut (and its fall-back to the regex for two dots in a row) finds the regex's tokens."""
    import re
    from itertools import product

    from desk.core.search.schema import TOKEN_PATTERN

    pieces = [chr(c) for c in range(128) if not chr(c).isalnum()] + ["a", "Z", "7", "_", "..", "é"[:0]]
    for shape in product(["a", "B9", ".", ""], pieces, ["", ".", "x"], pieces, ["", "c.", ".d"]):
        text = "".join(shape)
        assert lowered_tokens(text) == (re.findall(TOKEN_PATTERN, text.lower()) or [""]), repr(text)
