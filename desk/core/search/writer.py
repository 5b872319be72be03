"""A faster Whoosh segment writer: desk's analysis inlined, postings grouped by term as they arrive.

Whoosh's SegmentWriter runs every word through a chain of Token objects, puts each posting
in a pool that sorts all of them at commit, then writes them one Python call per posting.
Indexing was ~70 % of an import. This writer produces the same segments (the tests compare
them term by term with Whoosh's own writer) in about a third of the time (≈ 0.65 ms an
abstract, where Whoosh's took ≈ 1.7 ms):

* the stemmed text fields are analysed as :func:`desk.core.search.schema.stem_analyzer`
  does with positions, by :func:`lowered_tokens` and :func:`_stems_of_tokens`: one regex pass,
  then one table lookup per word (stem, or "" for a stop word) done in C; the same tokens
  give the lexicon's words;
* postings go straight into per-term flat lists (documents arrive in docnum order, so each
  list is already sorted) and only the distinct terms are sorted at commit;
* a term with few postings (most of them) is written as its term-table row directly
  (:func:`inlined_term_info`); a longer list goes to Whoosh's posting writer a block at a time.

When a merge policy folds older segments into the new one (``add_reader``), their
postings arrive through Whoosh's pool; the grouped postings then join that pool and
Whoosh's own commit path writes everything.

All of this uses Whoosh's internals (listed in ``whoosh_internals``); when the installed
Whoosh is not the verified one, :func:`segment_writer` gives :class:`PublicSegmentWriter`,
Whoosh's own writer, instead.
"""

from __future__ import annotations

import contextlib
import re
import struct
from array import array
from collections import Counter, defaultdict
from hashlib import md5
from itertools import accumulate, chain, islice
from operator import ge, sub
from pathlib import Path
from pickle import dumps
from typing import Any

from whoosh.analysis import STOP_WORDS
from whoosh.filedb.filetables import md5_hash
from whoosh.system import pack_uint, pack_ushort
from whoosh.util.numeric import byte_to_length, length_to_byte
from whoosh.writing import SegmentWriter

from desk.core.runtime.logs import logger
from desk.core.search.acronym_definitions import Definition, definitions
from desk.core.search.fields import words_of_tokens
from desk.core.search.flat_postings import FlatWriter, PositionTable, float32_bytes, path_of
from desk.core.search.manifest import record
from desk.core.search.schema import (
    INLINE_POSTINGS,
    STEMMED_FIELDS,
    TEXT_FIELDS,
    TOKEN_PATTERN,
    cached_stem,
    codec,
)
from desk.core.search.whoosh_internals import fast

log = logger(__name__)  # logging imported when something is logged (desk/core/runtime/logs.py)

_TOKENS = re.compile(TOKEN_PATTERN)
_STOPS = frozenset(STOP_WORDS)
_WORD_BYTES = frozenset(b"abcdefghijklmnopqrstuvwxyz0123456789_.")
# Each byte of ASCII text: a capital its small letter, a word character or dot itself, else a space.
_ASCII_TOKENS = bytes(
    b + 32 if 65 <= b <= 90 else b if b in _WORD_BYTES else 32 for b in range(256)
)
_MIN_WORD = 2  # StemmingAnalyzer's minsize

Posting = tuple[bytes, int, float, bytes]  # what a field's index() yields
# A term's postings are kept flat, four items a posting: docnum, weight, value, stored field
# length. Its columns are then slices (postings[0::4] the docnums), cut at C speed.
POSTING_WIDTH = 4


_STEM_OF: dict[str, str] = {}  # lowercased word -> its stem, "" for a word not indexed
_STEM_OF_LIMIT = 1_000_000  # words remembered before the table starts again (memory)


def _learn_stems(words: list[str]) -> None:
    """Put the words of ``words`` not in _STEM_OF there, with their stem ("" for a word not indexed)."""
    missing = set(words).difference(_STEM_OF)
    if len(_STEM_OF) + len(missing) > _STEM_OF_LIMIT:
        _STEM_OF.clear()
        missing = set(words)
    for word in missing:
        _STEM_OF[word] = "" if len(word) < _MIN_WORD or word in _STOPS else cached_stem(word) or word


def lowered_tokens(text: str) -> list[str]:
    """The lowercased word tokens of ``text``, as the stemmed fields' analyzer cuts them ([""] for none)."""
    # lower() only maps A-Z to a-z in ASCII text, all \w either way: the same tokens, lowered.
    # (str.isascii(text): a value that is not text raises TypeError, as findall() did.)
    if str.isascii(text):
        # The regex costs ~400 instructions a character; one table pass over the bytes lowers
        # the letters and makes every character outside [a-z0-9_.] a space, and split() cuts
        # there. A dot is in a token only between two word characters: one beside a space (or
        # an end) is dropped; two in a row are left to the regex (tested equal).
        cut = text.encode("ascii").translate(_ASCII_TOKENS)
        if b"." in cut:
            if b".." in cut:
                return _TOKENS.findall(text.lower()) or [""]
            cut = b"".join((b" ", cut, b" ")).replace(b". ", b" ").replace(b" .", b" ")
        return cut.decode("ascii").split() or [""]
    # One lower() over the joined tokens equals one per token: tokens hold no space, and
    # the context lower() looks at (final sigma) ends at a space as at a token's end.
    return " ".join(_TOKENS.findall(text)).lower().split(" ")


def _stems_of_tokens(words: list[str]) -> tuple[int, list[str]]:
    """(position of the first word kept, stems of the words kept) of a text; ``words``: its lowered_tokens().

    Stop words and one-letter words are dropped, as StemmingAnalyzer drops them; the
    positions of the kept words are the first one's plus their rank among them.
    """
    got = list(map(_STEM_OF.get, words))  # one table lookup per word, no Python step
    if None in got:
        _learn_stems(words)
        got = list(map(_STEM_OF.__getitem__, words))
    stems = list(filter(None, got))
    if not stems:
        return 0, stems
    return (0 if got[0] else next(i for i, s in enumerate(got) if s)), stems


def encode_positions(poslist: list[int]) -> bytes:
    """Whoosh's Positions encoding of one term's positions in one document.

    ``pack_uint(len(deltas)) + pickle.dumps(deltas, 2)``, the pickle written here from a
    table of small ints (tested equal): most terms of an abstract have a few small positions.
    """
    if len(poslist) == 1:
        return _one_position(poslist[0])
    deltas = [poslist[0], *map(sub, poslist[1:], poslist)]
    if len(deltas) < _PICKLE_BATCH and poslist[-1] < len(_PICKLED_INT):
        count = _COUNTS[len(deltas)] if len(deltas) < len(_COUNTS) else pack_uint(len(deltas))
        return count + b"\x80\x02]q\x00(" + b"".join(map(_PICKLED_INT.__getitem__, deltas)) + b"e."
    return pack_uint(len(deltas)) + dumps(deltas, 2)


def _one_position(pos: int) -> bytes:
    """Whoosh's Positions encoding of a term seen once, at ``pos`` (most terms of an abstract)."""
    return _ONCE[pos] if pos < _ONCE_UP_TO else pack_uint(1) + dumps([pos], 2)


# Pickle protocol 2 writes a list of ints as MARK, each int (BININT1 "K" for 0-255, BININT2
# "M" up to 65535), APPENDS — in batches of 1000.
_PICKLE_BATCH = 1000
_PICKLED_INT = [b"K" + bytes([n]) if n < 256 else b"M" + n.to_bytes(2, "little") for n in range(4096)]
_COUNTS = [pack_uint(n) for n in range(64)]
_ONCE_UP_TO = 2048
_ONCE = [pack_uint(1) + dumps([pos], 2) for pos in range(_ONCE_UP_TO)]


def segment_writer(ix: Any, **kwargs: Any) -> FastSegmentWriter | PublicSegmentWriter:
    """A writer of the live index ``ix`` with desk's codec (the fast one when Whoosh is the verified
    version), which signs what it commits before it lets go of Whoosh's write lock."""
    return (FastSegmentWriter if fast() else PublicSegmentWriter)(ix, codec=codec(), sign=True, **kwargs)


class SigningSegmentWriter(SegmentWriter):
    """A SegmentWriter that, given ``sign=True``, records and signs the generation it commits
    (``manifest.record``) right after writing its table of contents, still under the write lock.

    A reader in another process that finds a table of contents not recorded yet sees the lock
    held and waits (``manifest.check_settled``) instead of taking a good index for a planted one.
    """

    def __init__(self, ix: Any, *, sign: bool = False, **kwargs: Any) -> None:
        super().__init__(ix, **kwargs)
        self._sign_in = Path(ix.storage.folder) if sign else None

    def commit(self, *args: Any, **kwargs: Any) -> None:
        """Whoosh's commit; one that fails (a full disk) cancels the writer and lets go of the lock."""
        try:
            super().commit(*args, **kwargs)
        except BaseException:
            with contextlib.suppress(Exception):
                super().cancel()
            self._let_go()
            raise

    def cancel(self) -> None:
        """Whoosh's cancel, letting go of the write lock even when closing the files fails."""
        try:
            super().cancel()
        finally:
            self._let_go()

    def _let_go(self) -> None:
        """Release Whoosh's write lock if a failure left it held. Whoosh releases it last, after
        closing the segment's files, which a full disk can fail to do: the lock (an flock held by
        this process) then stayed, and every later write of the index in this process, the
        window's for the rest of its life, failed with Whoosh's "LockError" however much room
        the disk had again."""
        if getattr(self, "is_closed", True):
            return
        self.is_closed = True
        lock = getattr(self, "writelock", None)
        if lock is not None:
            with contextlib.suppress(Exception):
                lock.release()
        temp = getattr(self, "_tempstorage", None)
        if temp is not None:
            with contextlib.suppress(Exception):
                temp.destroy()

    def _commit_toc(self, segments: Any) -> None:
        super()._commit_toc(segments)
        if self._sign_in is not None:
            try:
                record(self._sign_in)
            except OSError:  # a read-only folder: the next open that can write rebuilds the index
                log.debug("could not record the search index's files", exc_info=True)


class PublicSegmentWriter(SigningSegmentWriter):
    """Whoosh's own SegmentWriter (public API only), counting the lexicon's words as the fast one does."""

    def __init__(self, ix: Any, **kwargs: Any) -> None:
        super().__init__(ix, **kwargs)
        #: Documents holding each unstemmed word of the text fields: the "did you mean" lexicon's counts.
        self.word_counts: Counter[str] = Counter()
        #: id -> the (short form, long form) acronyms its abstract defines, for every document added.
        self.acronyms: dict[int, frozenset[Definition]] = {}

    def add_document(self, **fields: Any) -> None:
        self.acronyms[fields["id"]] = frozenset(definitions(fields.get("abstract") or ""))
        words: set[str] = set()
        for name in TEXT_FIELDS:
            if fields.get(name):
                words |= words_of_tokens(lowered_tokens(fields[name]))
        super().add_document(**fields)
        if fields.get("_count_words", True):
            self.word_counts.update(words)


class FastSegmentWriter(SigningSegmentWriter):
    """SegmentWriter for desk's schema that writes the same segments faster (see the module doc)."""

    def __init__(self, ix: Any, **kwargs: Any) -> None:
        super().__init__(ix, **kwargs)
        # field -> term -> postings; a stemmed field's terms are str, the others' bytes
        self._grouped: defaultdict[str, defaultdict[Any, list[Any]]] = defaultdict(lambda: defaultdict(list))
        self._pooled = False
        #: Documents holding each unstemmed word of the text fields: the "did you mean" lexicon's counts.
        self.word_counts: Counter[str] = Counter()
        self._doc_words: set[str] = set()
        self._analysed: dict[tuple[str, Any], list[Posting]] = {}
        #: id -> the (short form, long form) acronyms its abstract defines, for every document added.
        self.acronyms: dict[int, frozenset[Definition]] = {}
        #: The new segment's flat postings, written beside it once it is assembled (flat_postings.py).
        self.flat: FlatWriter | None = None
        #: The Positions values of terms seen more than once in a document, with their positions.
        self._encoded = PositionTable()

    def add_reader(self, reader: Any) -> None:
        self._pooled = True
        super().add_reader(reader)

    def add_document(self, **fields: Any) -> None:
        self._check_state()
        schema = self.schema
        names = sorted(name for name in fields if not name.startswith("_"))
        self._check_fields(schema, names)
        perdoc = self.perdocwriter
        docnum = self.docnum
        perdoc.start_doc(docnum)
        self._doc_words = set()
        try:
            for name in names:
                value = fields[name]
                if value is None:
                    continue
                field = schema[name]
                length = 0
                if field.indexed:
                    if name in STEMMED_FIELDS:
                        length = self._group_stemmed(name, docnum, value, counted=name in TEXT_FIELDS)
                        items: Any = None
                    elif field.unique:
                        items = field.index(value)
                    else:  # flags and collections: a few distinct values, analysed once each
                        items = self._analysed.get((name, value))
                        if items is None:
                            items = self._analysed[(name, value)] = list(field.index(value))
                    if items is not None:
                        length = self._group(name, field.scorable, docnum, items)
                stored = fields.get(f"_stored_{name}", value)
                perdoc.add_field(name, field, stored if field.stored else None, length)
                column = field.column_type
                if column and stored is not None:
                    perdoc.add_column_value(name, column, field.to_column_value(stored))
        except Exception:
            perdoc.cancel_doc()
            raise
        perdoc.finish_doc()
        if fields.get("_count_words", True):  # False: a paper written again only to fold its segment
            self.word_counts.update(self._doc_words)
        self.acronyms[fields["id"]] = frozenset(definitions(fields.get("abstract") or ""))
        self._added = True
        self.docnum += 1

    def _group(self, name: str, scorable: bool, docnum: int, items: Any) -> int:
        """Add one field's postings of one document to the per-term lists; returns its length."""
        items = list(items)
        length = sum(item[1] for item in items) if scorable else 0
        # Whoosh stores field lengths as a byte and reads them back quantised.
        stored_length = byte_to_length(length_to_byte(length)) if length else 0
        terms = self._grouped[name]
        for tbytes, _freq, weight, vbytes in items:
            terms[tbytes].extend((docnum, weight, vbytes, stored_length))
        return length

    def _group_stemmed(self, name: str, docnum: int, text: str, counted: bool = True) -> int:
        """_group() for a stemmed text field, analysed here (terms kept as str until the flush);
        ``counted``: its words go to the lexicon's counts."""
        tokens = lowered_tokens(text)
        if counted:
            self._doc_words |= words_of_tokens(tokens)
        first, stems = _stems_of_tokens(tokens)
        length = len(stems)
        if not length:
            return 0
        stored_length = byte_to_length(length_to_byte(length))
        terms = self._grouped[name]
        once = _ONCE
        # Built in C: each term's last position; most terms of an abstract occur once.
        last = dict(zip(stems, range(first, first + length), strict=True))
        repeated: dict[str, list[int]] = {}
        if len(last) < length:
            repeated = {t: [] for t, n in Counter(stems).items() if n > 1}
            for pos, term in enumerate(stems, first):
                if term in repeated:
                    repeated[term].append(pos)
        for term, pos in last.items():
            if term in repeated:
                poslist = repeated[term]
                value = encode_positions(poslist)
                self._encoded[value] = poslist
                terms[term].extend((docnum, float(len(poslist)), value, stored_length))
            elif pos < _ONCE_UP_TO:  # a list lookup, no call
                terms[term].extend((docnum, 1.0, once[pos], stored_length))
            else:
                terms[term].extend((docnum, 1.0, _one_position(pos), stored_length))
        return length

    def _flush_segment(self) -> None:
        if self._pooled:  # older segments are being merged in: Whoosh's own path for all of it
            for name, terms in self._grouped.items():
                for term, postings in terms.items():
                    tbytes = _as_bytes(term)
                    columns = (
                        postings[0::POSTING_WIDTH],
                        postings[1::POSTING_WIDTH],
                        postings[2::POSTING_WIDTH],
                    )
                    for doc, weight, value in zip(*columns, strict=True):
                        self.pool.add((name, tbytes, doc, weight, value))
            self._grouped.clear()
            self._encoded = PositionTable()
            super()._flush_segment()
            return
        self.perdocwriter.close()
        fieldwriter = self.fieldwriter
        flat = self.flat = FlatWriter(self._encoded)
        for name in sorted(self._grouped):
            terms = self._grouped[name]
            fieldwriter.start_field(name, self.schema[name])
            field_key = pack_ushort(fieldwriter._fieldid)
            keys: list[bytes] = []  # the field's term-table rows, added at its end in one go
            rows: list[bytes] = []
            # UTF-8 keeps code point order, so str terms sort as their bytes will.
            for term in sorted(terms):
                postings = terms[term]
                btext = _as_bytes(term)
                flat.add(
                    name,
                    btext,
                    postings[0::POSTING_WIDTH],
                    postings[1::POSTING_WIDTH],
                    postings[2::POSTING_WIDTH],
                )
                keys.append(field_key + btext)
                row = inlined_term_info(postings) if len(postings) < INLINE_POSTINGS * POSTING_WIDTH else None
                if row is None:  # a longer list: its blocks, then the row W3FieldWriter.finish_term makes
                    fieldwriter.start_term(btext)
                    add_postings(fieldwriter._postwriter, postings)
                    row = fieldwriter._postwriter.finish_postings().to_bytes()
                rows.append(row)
            add_rows(fieldwriter._tindex, keys, rows)
            fieldwriter.finish_field()
        self._grouped.clear()
        self._encoded = PositionTable()
        flat.known = None
        fieldwriter.close()

    def _assemble_segment(self) -> None:
        super()._assemble_segment()
        write_flat(self)


def write_flat(writer: FastSegmentWriter) -> None:
    """Write the flat postings ``writer`` gathered beside its assembled segment (after assembly:
    Whoosh packs every file named after the segment into its compound file)."""
    flat, writer.flat = writer.flat, None
    folder = getattr(writer.storage, "folder", None)
    if flat is None or folder is None or not writer.compound:
        return
    segment = writer.get_segment()
    flat.write(path_of(Path(folder), segment.segment_id()), segment.segment_id(), segment.doc_count_all())


def _as_bytes(term: str | bytes) -> bytes:
    return term.encode("utf-8") if isinstance(term, str) else term


TERM_INFO = struct.Struct("!BfIBBfII")  # W3TermInfo's row: flags, weight, df, lengths, max weight, ids


def inlined_term_info(postings: list[Any]) -> bytes | None:
    """The term-table row W3TermInfo.to_bytes() writes for a short list kept inline, or None.

    What DeskCodec's postings writer does for the (flat) list (add_block, set_inlined,
    to_bytes) without its objects. None when the list mixes postings with and without
    values: that one goes to a block, as in the writer.
    """
    docs, values, lengths = (
        tuple(postings[0::POSTING_WIDTH]),
        tuple(postings[2::POSTING_WIDTH]),
        postings[3::POSTING_WIDTH],
    )
    if not all(values):
        if any(values):
            return None
        values = (b"",) * len(docs)
    weights = _as_float32(postings[1::POSTING_WIDTH])  # the writer's float32 buffer, read back
    present = [n for n in lengths if n]
    row = TERM_INFO.pack(
        1,
        sum(weights),
        len(docs),
        length_to_byte(min(present)) if present else 0,
        length_to_byte(max(present, default=0)),
        max(0, *weights),
        docs[0],
        docs[-1],
    )
    return row + dumps((docs, weights, values), 2)


def _as_float32(weights: list[float]) -> tuple[float, ...]:
    """``tuple(array("f", weights))``: each weight rounded to float32 and back. Weights of 1.0
    (most short lists: each document holds the term once) are kept as they are, exact in float32."""
    if weights.count(1.0) == len(weights):
        return tuple(weights)
    return tuple(array("f", float32_bytes(weights)))


_ROW_LENGTHS = struct.Struct("!ii")  # filetables._lengths: a row's key and value lengths


def term_hash(key: bytes) -> int:
    """filetables.md5_hash(key), the term table's hash: the md5 digest's last 4 bytes (tested equal)."""
    return int.from_bytes(md5(key, usedforsecurity=False).digest()[-4:], "big")


def add_rows(tindex: Any, keys: list[bytes], rows: list[bytes]) -> None:
    """``tindex.add(key, row)`` for each pair, in order, with one write (tested equal).

    ``tindex``: Whoosh's OrderedHashWriter (the term table), whose add() makes five calls to
    its file and one to md5 per row; the keys must increase, as there.
    """
    if not keys:
        return
    if keys[0] <= tindex.lastkey or any(map(ge, keys, islice(keys, 1, None))):
        raise ValueError("Keys must increase")
    dbfile = tindex.dbfile
    heads = list(map(_ROW_LENGTHS.pack, map(len, keys), map(len, rows)))
    positions = list(accumulate(map(_row_size, keys, rows), initial=dbfile.tell()))
    positions.pop()  # the end of the last row
    _append_positions(tindex.index, positions)
    dbfile.write(b"".join(chain.from_iterable(zip(heads, keys, rows, strict=True))))
    buckets = tindex.buckets
    hashfn = term_hash if tindex.hashfn is md5_hash else tindex.hashfn
    for h, pos in zip(map(hashfn, keys), positions, strict=True):
        buckets[h & 255].append((h, pos))
    tindex.lastkey = keys[-1]


def _append_positions(index: Any, positions: list[int]) -> None:
    """``index.append(p)`` for each of the increasing ``positions`` (a GrowableArray): it widens
    its array once, to the type of the largest, as appending them one by one ends up doing."""
    try:
        index.array.append(positions[-1])
    except OverflowError:
        index._retype(positions[-1])
    else:
        index.array.pop()
    index.array.extend(positions)


def _row_size(key: bytes, row: bytes) -> int:
    return _ROW_LENGTHS.size + len(key) + len(row)


def add_postings(postwriter: Any, postings: list[Any]) -> None:
    """W3PostingsWriter.add_posting for a whole (flat) list, a block at a time."""
    limit = postwriter._blocklimit
    start, total = 0, len(postings) // POSTING_WIDTH
    while start < total:
        if len(postwriter._ids) >= limit:
            postwriter._write_block()
        end = min(total, start + limit - len(postwriter._ids))
        lo, hi = start * POSTING_WIDTH, end * POSTING_WIDTH
        weights = postings[lo + 1 : hi : POSTING_WIDTH]
        postwriter._ids.extend(postings[lo:hi:POSTING_WIDTH])
        postwriter._weights.frombytes(float32_bytes(weights))  # what extend(weights) appends
        postwriter._maxweight = max(postwriter._maxweight, *weights)
        postwriter._values.extend(filter(None, postings[lo + 2 : hi : POSTING_WIDTH]))
        present = list(filter(None, postings[lo + 3 : hi : POSTING_WIDTH]))
        if present:
            low = min(present)
            if postwriter._minlength is None or low < postwriter._minlength:
                postwriter._minlength = low
            postwriter._maxlength = max(postwriter._maxlength, *present)
        start = end
