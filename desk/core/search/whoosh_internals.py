"""The private parts of Whoosh that desk's fast paths use, and the start-up check that they are there.

desk reads posting lists whole into numpy (``posting_decode.py``, ``postings.py``), writes
segments without Whoosh's per-token objects (``writer.py``, the codec in ``schema.py``) and moves
segments written by worker processes into the index (``staging.py``). All of that reaches into
whoosh-reloaded's internals, which any release may change. They were verified (by the tests
comparing each fast path with Whoosh's own) against :data:`VERIFIED_VERSION`, the version
``pyproject.toml`` pins.

:func:`fast` says whether to take those paths; it runs :func:`check` once per process (the
search index calls it when a library opens). When the installed Whoosh is another version or
a piece listed here is missing, desk says so once (a log warning and one line on stderr) and
uses Whoosh's public API instead: the same index and the same results, several times slower
to write and to search at scale, and no segments written by worker processes.

What is used, where (instance attributes are set in ``__init__`` and cannot be checked without
building an index: the version pin and the equivalence tests stand for them):

* ``posting_decode.py``, ``postings.py`` and ``positions.py`` (read): a prefix walk of a
  segment's term table (``SegmentReader._terms`` ``items_from()``, ``_codec.postings_reader()``,
  ``_postfile``);
  ``W3LeafMatcher`` ``_byteids``, ``_data`` (deltas, weights, values),
  ``_read_data()``, ``_next_block()``, ``block_max_id()``; ``ListMatcher._format``; a
  ``WrappingMatcher``'s ``child``; ``FilterMatcher`` ``_ids`` / ``_exclude`` (a segment's deleted set);
  ``NumericColumn.Reader`` ``_typecode``, ``_count``,
  ``_dbfile``, ``_basepos``, ``_fixedlen``, ``_default`` (a column read as one array);
  ``SegmentReader._perdoc`` with ``W3PerDocReader.deleted_docs()`` and ``_cached_reader()``
  (field lengths column ``_<field>_len``); the ``Positions`` format's value
  (``pack_uint(count)`` + a protocol-2 pickle of the deltas) and ``formats._INT_SIZE``.
* ``writer.py`` (write): ``SegmentWriter`` ``_check_state()``, ``_check_fields()``,
  ``perdocwriter``, ``fieldwriter``, ``docnum``, ``_added``, ``pool``, ``segments``,
  ``storage``, ``_flush_segment()``; ``W3FieldWriter`` ``_tindex``, ``_fieldid``,
  ``_postwriter``; ``W3PostingsWriter`` ``_blocklimit``, ``_ids``, ``_weights``, ``_values``,
  ``_maxweight``, ``_minlength``, ``_maxlength``, ``_write_block()``; the term-table row of an
  inlined list (``W3TermInfo._struct``, ``"!BfIBBfII"``, then a pickle of ids, weights, values);
  ``W3Segment.delete_document()`` / ``is_deleted()`` (deletes read from the id column);
  ``SegmentDocs``: a segment's per-document reader opened as ``SegmentReader`` opens it
  (``codec().per_document_reader()`` over ``open_compound_file()`` in an ``OverlayStorage``)
  without its terms reader, for the id column and a stored abstract.
* ``schema.py`` (the codec): ``W3PostingsWriter`` ``_terminfo``, ``_inlinelimit``, ``_byteids``,
  ``written()``, ``_mini_ids()``, ``_mini_weights()``, ``W3TermInfo.add_block()`` /
  ``set_inlined()`` (2.7.5's own ``finish_postings`` calls a misspelt ``set_inline``); its
  ``_write_block()`` as desk's pickles a block's data (``_postfile``, ``_blockcount``,
  ``_compression``, ``_mini_values()``, ``_new_block()``, ``WHOOSH3_HEADER_MAGIC``; the block
  layout: a signed int length, the info pickle, the data);
  ``W3FieldWriter.add_postings()``; a per-document reader's ``_cached_reader()``.
* ``stored_column.py`` (read): ``CompressedBytesColumn.Reader`` ``_read_offsets_and_lengths()``
  and its ``_dbfile``, ``_basepos``, ``_length``, ``_doccount``, ``_offsets``, ``_lengths``;
  ``W3PerDocReader`` ``_readers``, ``has_column()``, ``column_reader()``.
* ``staging.py``: ``SegmentWriter`` ``_finalize_segment()``, ``_finish()``,
  ``_merge_segments()``, ``_close_segment()``, ``_commit_toc()``.
* ``segment_merge.py`` (merging segments after an import): ``SegmentReader`` ``_terms``
  (``W3TermsReader`` ``_tindex.items_from()``, ``_fieldmap``, ``_codec``, ``_postfile``) and
  ``_perdoc`` (``column_reader()``, ``has_column()``, ``_cached_reader()``); the stored-fields
  column as ``VarBytesColumn`` bytes under ``W3PerDocWriter._colwriters["_stored"]._child``;
  ``W3LeafMatcher`` as in ``posting_decode.py`` plus ``_read_values()`` / ``_values``;
  ``SegmentWriter`` ``_assemble_segment()``, ``get_segment()``; ``W3Segment._fieldlengths``.

Whoosh's pickle readers (``unpickling.py``; not a fast path, a wall: with any Whoosh they are
replaced, and :func:`check` says so when one is left): the module attributes holding
``pickle.loads`` / ``pickle.load`` / ``pickle`` in ``whoosh.compat`` (``load``, ``loads``,
``pickle``), ``whoosh.index`` and ``whoosh.filedb.fileindex`` (``pickle``: the schema in the
table of contents), ``whoosh.filedb.structfile`` (``load_pickle``: the segment list, a compound
file's directory, a term table's extras), ``whoosh.codec.whoosh3``, ``whoosh.columns`` and
``whoosh.formats`` (``loads``: posting blocks, inlined postings, stored fields, columns).
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from functools import cache
from importlib import import_module
from pickle import dumps

from desk.core.runtime.logs import logger
from desk.core.search.unpickling import install, raw_readers

log = logger(__name__)  # logging imported when something is logged (desk/core/runtime/logs.py)

#: The whoosh-reloaded release the fast paths were verified against (pinned in pyproject.toml).
VERIFIED_VERSION = "2.7.5"

#: Class -> the attributes on the class itself (methods, class constants) that desk uses.
CLASS_ATTRIBUTES: dict[str, tuple[str, ...]] = {
    "whoosh.codec.whoosh3:W3LeafMatcher": ("_read_data", "_next_block", "block_max_id", "is_active"),
    "whoosh.codec.whoosh3:W3PostingsWriter": (
        "_write_block", "_mini_ids", "_mini_weights", "_mini_values", "_new_block", "written",
        "finish_postings",
    ),
    "whoosh.codec.whoosh3:W3FieldWriter": (
        "add_postings", "start_field", "start_term", "finish_term", "finish_field", "close",
    ),
    "whoosh.codec.whoosh3:W3TermInfo": ("_struct", "add_block", "set_inlined", "to_bytes", "from_bytes"),
    "whoosh.codec.whoosh3:W3PerDocReader": (
        "_cached_reader", "deleted_docs", "has_column", "column_reader", "stored_fields", "doc_count_all",
    ),
    "whoosh.columns:CompressedBytesColumn.Reader": ("_read_offsets_and_lengths",),
    "whoosh.codec.whoosh3:W3Segment": (
        "delete_document", "is_deleted", "segment_id", "is_compound", "open_compound_file", "codec",
    ),
    "whoosh.filedb.filestore:OverlayStorage": ("close",),
    "whoosh.codec.whoosh3:W3Codec": ("field_writer", "postings_writer"),
    "whoosh.writing:SegmentWriter": (
        "_check_state", "_check_fields", "_flush_segment", "_finalize_segment", "_finish",
        "_merge_segments", "_close_segment", "_commit_toc", "add_reader",
    ),
    "whoosh.columns:NumericColumn": ("Reader",),
}  # fmt: skip

#: ``DESK_WHOOSH_INTERNALS=0`` turns the fast paths off: every search and index write then goes
#: through Whoosh's public API (CI runs the search tests so, to keep that fallback true).
OFF_SWITCH = "DESK_WHOOSH_INTERNALS"

#: The term-table row layout of W3TermInfo: flags, weight, df, min/max length, max weight, ids.
TERM_INFO_FORMAT = "!BfIBBfII"


@dataclass(frozen=True)
class Verdict:
    """What :func:`check` found: ``ok`` when every private piece is as verified."""

    version: str
    problems: tuple[str, ...]

    @property
    def ok(self) -> bool:
        return not self.problems

    def message(self) -> str:
        """One plain sentence for the log and the terminal."""
        if self.ok:
            return f"whoosh-reloaded {self.version}: desk's fast search paths are in use"
        return (
            f"whoosh-reloaded {self.version} is installed, but desk's fast search paths were verified "
            f"with {VERIFIED_VERSION} ({'; '.join(self.problems)}): searching and indexing use "
            f"Whoosh's slower public API (install whoosh-reloaded=={VERIFIED_VERSION} for the fast paths)"
        )


def _installed_version() -> str:
    import whoosh

    return ".".join(str(n) for n in whoosh.__version__)


def _find(dotted: str) -> object:
    module, _, name = dotted.partition(":")
    obj: object = import_module(module)
    for part in name.split("."):
        obj = getattr(obj, part)
    return obj


def _problems(version: str) -> list[str]:
    """Everything listed above that is not as verified (empty when all is)."""
    problems = [] if version == VERIFIED_VERSION else [f"version {version}"]
    for dotted, names in CLASS_ATTRIBUTES.items():
        try:
            cls = _find(dotted)
        except (ImportError, AttributeError):
            problems.append(f"no {dotted.replace(':', '.')}")
            continue
        missing = [n for n in names if not hasattr(cls, n)]
        if missing:
            problems.append(f"{dotted.partition(':')[2]} has no {', '.join(missing)}")
    try:
        from whoosh.codec.whoosh3 import W3TermInfo
        from whoosh.formats import _INT_SIZE, Positions
        from whoosh.system import pack_uint

        if _INT_SIZE != 4:
            problems.append(f"formats._INT_SIZE is {_INT_SIZE}")
        if getattr(getattr(W3TermInfo, "_struct", None), "format", None) != TERM_INFO_FORMAT:
            problems.append("W3TermInfo's row layout changed")
        if Positions().encode([3, 7]) != pack_uint(2) + dumps([3, 4], 2):
            problems.append("the Positions format's encoding changed")
    except Exception as exc:  # anything odd here means: do not trust the formats
        problems.append(f"formats: {exc}")
    return problems


@cache
def check() -> Verdict:
    """Check the installed Whoosh once per process; says so (log and stderr) when it is not as verified.

    First Whoosh's pickle readers are replaced by desk's data-only ones (``unpickling.py``).
    """
    install()
    left = raw_readers()
    if left:  # not a fast path: desk's wall against code in an index; say it loudly
        log.error("Whoosh still reads pickles unrestricted in %s", ", ".join(left))
    version = _installed_version()
    if os.environ.get(OFF_SWITCH) == "0":  # asked for: the public API alone, said in the log only
        verdict = Verdict(version, (f"turned off by {OFF_SWITCH}=0",))
        log.info("%s", verdict.message())
        return verdict
    verdict = Verdict(version, tuple(_problems(version)))
    if not verdict.ok:
        log.warning("%s", verdict.message())
        print(f"desk: {verdict.message()}", file=sys.stderr)
    return verdict


def fast() -> bool:
    """Whether desk's fast paths may use Whoosh's internals (see the module doc)."""
    return check().ok
