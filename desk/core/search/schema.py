"""The Whoosh schema of the search index, its analyzers and its version marker."""

from __future__ import annotations

import zlib
from collections.abc import Iterator
from itertools import chain
from operator import sub
from pickle import dumps
from typing import Any

from whoosh.analysis import Analyzer, LowercaseFilter, RegexTokenizer, StemmingAnalyzer, StopFilter
from whoosh.codec import whoosh3
from whoosh.codec.whoosh3 import W3Codec, W3FieldWriter, W3PostingsWriter
from whoosh.columns import NumericColumn
from whoosh.fields import BOOLEAN, COLUMN, ID, NUMERIC, TEXT, Schema
from whoosh.util.numeric import byte_to_length, length_to_byte

from desk.core.search.names import (  # noqa: F401 (their home before names.py, which needs no Whoosh)
    ACRONYMS_NAME,
    INDEX_NAME,
    LEXICON_NAME,
    MARKER_NAME,
    SCHEMA_VERSION,
    read_marker,
    remove_marker,
    write_marker,
)
from desk.core.search.whoosh_internals import fast
from desk.core.text.stemming import TOKEN_PATTERN, stem

#: Query-time BM25F field weights. A title occurrence counts a quarter of an abstract one: a
#: title's words are almost all in its abstract already (a bare list's derived title is the
#: abstract's opening), so a heavy title counts the opening twice. Among 90,000 distractors
#: recombined from the corpus (each opening copied into ~38 of them) the copies then tied with
#: the paper and filled the first page: `bench/relevance_tune.py --distractors 90000`, MRR@10 at
#: 0.25 against 2: 4 words +0.026, rarest words +0.030, researcher +0.059; on the 2,359 papers
#: alone within 0.003 (bench/README.md, "Among 90,000 recombined distractors").
#: ``short_kw`` (the exact short name, "racer") is scored as a term of its own.
#: ``authors`` is searched apart from the others (a part of its own below each bare word, see
#: compiler.py): a name found there adds half an abstract occurrence's weight and no credit for
#: a query part matched, so "gan inversion" ranks the papers about GANs above those by a Gan.
BOOSTS: dict[str, float] = {
    "title": 0.25, "short_name": 0.25, "short_kw": 5.0, "abstract": 1.0, "note": 1.0, "authors": 0.5,
}  # fmt: skip

#: Stemmed text fields searched by a bare word.
TEXT_FIELDS: tuple[str, ...] = ("title", "short_name", "abstract", "note")

#: The authors' names: stemmed as the text fields are (a query word meets them as it is analysed),
#: but kept out of the "did you mean" lexicon (a name is no correction for a topic word).
AUTHOR_FIELD = "authors"

#: Every field the writers analyse as stemmed text.
STEMMED_FIELDS: tuple[str, ...] = (*TEXT_FIELDS, AUTHOR_FIELD)


def cached_stem(word: str) -> str:
    """Snowball English stem of a lowercased word (desk.core.text.stemming; cached there)."""
    return stem(word)


def stem_analyzer() -> Analyzer:
    """The analyzer of the stemmed fields (query words go through it too)."""
    return StemmingAnalyzer(expression=TOKEN_PATTERN, stemfn=cached_stem, cachesize=None)


def plain_analyzer() -> Analyzer:
    """Lowercased, unstemmed words (collection names)."""
    return RegexTokenizer(expression=TOKEN_PATTERN) | LowercaseFilter()


_STEM = stem_analyzer()
_SURFACE = plain_analyzer() | StopFilter()


def analyze(text: str) -> list[str]:
    """Stemmed index terms of ``text``, as the stemmed fields index them."""
    return [t.text for t in _STEM(text)]


def surface_words(text: str) -> Iterator[tuple[str, str]]:
    """(stem, lowercased word) of each word of ``text`` the stemmed fields index (stop words left out)."""
    return ((cached_stem(t.text), t.text) for t in _SURFACE(text))


class _Lengths:
    """Field lengths read once per field, instead of one file read per posting."""

    def __init__(self, reader: Any) -> None:
        self._reader = reader
        self._fields: dict[str, list[int]] = {}

    def doc_field_length(self, docnum: int, fieldname: str, default: int = 0) -> int:
        lengths = self._fields.get(fieldname)
        if lengths is None:
            column = self._reader._cached_reader(f"_{fieldname}_len", NumericColumn("B", default=0))
            lengths = [byte_to_length(b) for b in column] if column is not None else []
            self._fields[fieldname] = lengths
        return lengths[docnum] if docnum < len(lengths) else default


class _FieldWriter(W3FieldWriter):
    def add_postings(self, schema: Schema, lengths: Any, items: Any) -> None:
        if lengths is not None and hasattr(lengths, "_cached_reader"):
            lengths = _Lengths(lengths)
        super().add_postings(schema, lengths, items)


#: A term with fewer postings than this in a segment keeps them in its term-table entry: no
#: posting block to pickle, compress and seek to (most terms of a segment are rare words).
INLINE_POSTINGS = 6

#: The pickle protocol of a posting block's data (ids, weights, values). Whoosh pickles it with
#: protocol 2, where each positions value (bytes) is a call of ``_codecs.encode(text, "latin1")``:
#: 28 bytes and ~240 ns a posting to write, a call per posting to read. Protocol 4 writes a value
#: as its bytes (19 bytes a posting, ~65 ns), names nothing, and frames the pickle, so desk's
#: data-only reader takes it a frame at a time (``unpickling.loads``). Any protocol reads back the
#: same tuple: segments written before (protocol 2) and after read alike. Measured on a segment of
#: 5,000 real abstracts (a posting: pickle + zlib 550 -> 270 ns, 8.7 -> 4.6 bytes compressed; read
#: 400 -> 170 ns) and left as they were: zlib level 1 (level 3: +15 % to compress for 4 % smaller
#: blocks; smaller windows or hash tables are no faster), the memo (without it: 7 ns a posting less
#: to pickle, 3 % bigger compressed, each shared value read back as a bytes object of its own).
BLOCK_PROTOCOL = 4


class _PostingsWriter(W3PostingsWriter):
    _terminfo: Any  # W3PostingsWriter's current term's W3TermInfo (None between terms)

    def _write_block(self, last: bool = False) -> None:
        # W3PostingsWriter._write_block, the same bytes but the data's pickle (BLOCK_PROTOCOL).
        # Like Whoosh's, it compresses whenever compression is set (its "< 20 bytes: don't"
        # is overwritten on the next line there). The block's info stays protocol 2.
        postfile = self._postfile
        if not self._blockcount:
            postfile.write(whoosh3.WHOOSH3_HEADER_MAGIC)  # looked up here: used on the verified Whoosh only
        self._terminfo.add_block(self)
        databytes = dumps((self._mini_ids(), self._mini_weights(), self._mini_values()), BLOCK_PROTOCOL)
        comp = self._compression
        if comp:
            databytes = zlib.compress(databytes, comp)
        ids = self._ids
        info = (
            len(ids),
            ids[-1],
            self._maxweight,
            comp,
            length_to_byte(self._minlength),
            length_to_byte(self._maxlength),
        )
        infobytes = dumps(info, 2)
        length = len(infobytes) + len(databytes)
        postfile.write_int(-length if last else length)  # negative: the term's last block
        postfile.write(infobytes + databytes)
        self._blockcount += 1
        self._new_block()

    def finish_postings(self) -> Any:
        # whoosh-reloaded 2.7.5 calls a misspelt terminfo.set_inline() here; inlined
        # postings are otherwise supported (W3TermInfo.set_inlined, to_bytes, from_bytes).
        # Inlined values must pair with the ids: a format without values (ids, flags) gets b""
        # each, as a block reader gives (a merge re-adds them and wants bytes).
        values = self._values or [b""] * len(self._ids)
        if not self.written() and len(self) < self._inlinelimit and len(values) == len(self._ids):
            terminfo = self._terminfo
            terminfo.add_block(self)
            terminfo.set_inlined(self._ids, self._weights, values)
            self._terminfo = None
            return terminfo
        return super().finish_postings()

    # The two below return what W3PostingsWriter's do, without a Python step per posting.
    def _mini_ids(self) -> tuple[Any, ...]:
        ids = self._ids
        if self._byteids:
            return tuple(ids)
        return tuple(map(sub, ids, chain((0,), ids)))  # delta_encode()

    def _mini_weights(self) -> Any:
        weights = self._weights
        if weights.count(1.0) == len(weights):
            return None
        if weights.count(weights[0]) == len(weights):
            return weights[0]
        return tuple(weights)


class DeskCodec(W3Codec):
    """Whoosh's codec, writing faster and with long posting blocks (ranking decodes whole lists)."""

    def __init__(self) -> None:
        super().__init__(blocklimit=1024, compression=1, inlinelimit=INLINE_POSTINGS)

    def field_writer(self, storage: Any, segment: Any) -> W3FieldWriter:
        return _FieldWriter(self, storage, segment)

    def postings_writer(self, dbfile: Any, byteids: bool = False) -> W3PostingsWriter:
        return _PostingsWriter(
            dbfile,
            blocklimit=self._blocklimit,
            byteids=byteids,
            compression=self._compression,
            inlinelimit=self._inlinelimit,
        )


def codec() -> W3Codec:
    """The codec every writer of the index uses (Whoosh's own, with the same block size, when
    the installed Whoosh is not the verified one: DeskCodec's writers use its internals)."""
    if not fast():
        return W3Codec(blocklimit=1024, compression=1)
    return DeskCodec()


def build_schema() -> Schema:
    """The schema of version SCHEMA_VERSION."""
    stem = stem_analyzer()
    return Schema(
        # Indexed once (no numeric tiers) for deletes; its column maps docnums to ids.
        id=NUMERIC(int, bits=64, unique=True, signed=False, sortable=True, shift_step=0),
        rev=COLUMN(NumericColumn("Q")),
        title=TEXT(analyzer=stem, stored=True),
        short_name=TEXT(analyzer=stem),
        short_kw=ID(),  # lowercased by the writer
        abstract=TEXT(analyzer=stem, stored=True),
        note=TEXT(analyzer=stem, stored=True),
        authors=TEXT(analyzer=stem),
        starred=BOOLEAN(),
        read=BOOLEAN(),
        has_note=BOOLEAN(),
        collections=TEXT(analyzer=plain_analyzer()),
    )
