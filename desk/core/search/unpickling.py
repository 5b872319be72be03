"""Whoosh's pickles read as data: only the classes desk's own index holds may be named.

Whoosh keeps its table of contents (the schema and the segment list), each compound
segment's directory, its posting blocks and its stored fields as pickles. A pickle can name
any importable callable and call it, so an ``index/`` folder planted in a library (handed over,
synced, unpacked from an archive) would run code as soon as desk opened it. desk's manifest
(``manifest.py``) refuses an index it did not sign before Whoosh reads a byte of it; this is
the second wall behind it: every pickle Whoosh (and desk's own fast paths) read goes through
:func:`loads`, whose ``find_class`` knows only :data:`ALLOWED` — what an index desk writes
names (found by recording a real index's pickles; ``tests/core/search/test_index_trust.py`` checks
the list against one). Anything else is an ``UnpicklingError``: the index reads as damaged
and is rebuilt from the database.

:func:`install` swaps Whoosh's module-level references to ``pickle.loads``, ``pickle.load``
and the ``pickle`` module for these (``whoosh_internals.py`` lists them); it is idempotent and
runs before any index is opened.
"""

from __future__ import annotations

import io
import pickle
import re
import sys
import types
from typing import IO, Any

#: (module, name) of every global an index desk writes holds in its pickles.
ALLOWED: frozenset[tuple[str, str]] = frozenset(
    {
        # builtins, as protocol 2 and 4 name them
        ("builtins", "int"), ("builtins", "bytes"), ("builtins", "bytearray"), ("builtins", "set"),
        ("builtins", "frozenset"), ("builtins", "float"), ("builtins", "complex"),
        ("__builtin__", "int"), ("__builtin__", "long"), ("__builtin__", "bytes"),
        ("__builtin__", "set"), ("__builtin__", "frozenset"), ("__builtin__", "float"),
        ("_codecs", "encode"),  # protocol 2's bytes: encode(text, "latin1")
        ("collections", "defaultdict"), ("collections", "OrderedDict"),
        ("re", "_compile"),  # a tokenizer's compiled pattern
        ("copyreg", "_reconstructor"),
        # the schema: fields, formats, analyzers
        ("whoosh.fields", "Schema"), ("whoosh.fields", "TEXT"), ("whoosh.fields", "ID"),
        ("whoosh.fields", "NUMERIC"), ("whoosh.fields", "BOOLEAN"), ("whoosh.fields", "COLUMN"),
        ("whoosh.fields", "STORED"), ("whoosh.fields", "KEYWORD"),
        ("whoosh.formats", "Existence"), ("whoosh.formats", "Frequency"), ("whoosh.formats", "Positions"),
        ("whoosh.columns", "NumericColumn"), ("whoosh.columns", "VarBytesColumn"),
        ("whoosh.columns", "RefBytesColumn"), ("whoosh.columns", "BitColumn"),
        ("whoosh.columns", "CompressedBytesColumn"),
        ("whoosh.analysis.analyzers", "CompositeAnalyzer"),
        ("whoosh.analysis.tokenizers", "RegexTokenizer"), ("whoosh.analysis.tokenizers", "IDTokenizer"),
        ("whoosh.analysis.filters", "LowercaseFilter"), ("whoosh.analysis.filters", "StopFilter"),
        ("whoosh.analysis.morph", "StemFilter"),
        ("whoosh.lang.porter", "stem"),
        # the segment list and the codec
        ("whoosh.codec.whoosh3", "W3Segment"), ("whoosh.codec.whoosh3", "W3Codec"),
        ("desk.core.search.schema", "DeskCodec"), ("desk.core.search.schema", "cached_stem"),
    }
)  # fmt: skip


class _DataOnly(pickle.Unpickler):
    """An unpickler that resolves only :data:`ALLOWED` names (exact module and name: no dotted paths)."""

    def find_class(self, module: str, name: str) -> Any:
        if (module, name) not in ALLOWED:
            raise pickle.UnpicklingError(f"the search index names {module}.{name}, which desk never writes")
        return super().find_class(module, name)


# Pickles of plain lists or tuples of small ints (a posting's positions, Whoosh's block
# tuples of ids) are the hot case: when the bytes are exactly that grammar (each opcode's
# argument has a fixed length, so the match is unambiguous), no name can be in them and
# the C ``pickle.loads`` reads them at full speed. The repeats are possessive: the grammar's
# tokens never need to give one back, and a pickle that is not a plain list (a protocol-2
# posting block starts as a tuple of ints) then fails in one pass, not after backtracking
# over every int (22 ns a posting of such a block).
_INT = rb"(?:K.|M..|J....)"
_MEMO = rb"(?:q.|r....|\x94)?+"
_PLAIN_INTS = re.compile(
    rb"(?:\x80[\x02-\x05])?(?:\]" + _MEMO + rb"(?:\(" + _INT + rb"*+e|" + _INT + rb"a)*+"
    rb"|\(" + _INT + rb"*+t" + _MEMO + rb"|\)" + _MEMO + rb")\.",
    re.DOTALL,
)
# Protocols 4 and 5 open with a frame (FRAME and its 8-byte length) once a pickle holds 4 bytes
# or more: the unpickler then reads a whole frame with one read() and runs its opcodes from
# memory, so over a plain BytesIO the data-only reader is within ~4 % of ``pickle.loads``
# (desk's posting blocks, schema.BLOCK_PROTOCOL). A grammar check for them (a regex with a
# branch per length of a bytes value) cost 12-45 ns a posting: more than the whole gap.
_FRAMED = (b"\x80\x04\x95", b"\x80\x05\x95")


def loads(data: bytes | bytearray | memoryview, /, **kwargs: Any) -> Any:
    """``pickle.loads`` that refuses every global not in :data:`ALLOWED`."""
    raw = bytes(data)
    if _PLAIN_INTS.fullmatch(raw):
        return pickle.loads(raw, **kwargs)
    if raw.startswith(_FRAMED):
        return _DataOnly(io.BytesIO(raw), **kwargs).load()
    # Not framed: a buffered reader, so the C unpickler peeks ahead in blocks instead of calling
    # read() per opcode (3x slower on a protocol-2 posting block than pickle.loads; buffered,
    # within 10 %).
    return _DataOnly(io.BufferedReader(io.BytesIO(raw)), **kwargs).load()


def load(file: IO[bytes], /, **kwargs: Any) -> Any:
    """``pickle.load`` that refuses every global not in :data:`ALLOWED`."""
    return _DataOnly(file, **kwargs).load()


def _shim() -> types.ModuleType:
    """The ``pickle`` module as Whoosh sees it: the same, but its readers are these."""
    shim = types.ModuleType("pickle")
    shim.__dict__.update(pickle.__dict__)
    shim.loads = loads  # type: ignore[attr-defined]
    shim.load = load  # type: ignore[attr-defined]
    shim.Unpickler = _DataOnly  # type: ignore[attr-defined]
    return shim


_SHIM = _shim()
_RAW = {id(pickle.loads): loads, id(pickle.load): load, id(pickle): _SHIM, id(pickle.Unpickler): _DataOnly}
#: The Whoosh modules that read pickles (imported before patching, so none is missed).
READERS = (
    "whoosh.compat",
    "whoosh.index",
    "whoosh.filedb.fileindex",
    "whoosh.filedb.structfile",
    "whoosh.filedb.compound",
    "whoosh.filedb.filetables",
    "whoosh.codec.whoosh3",
    "whoosh.columns",
    "whoosh.formats",
)


def install() -> list[str]:
    """Point every loaded Whoosh module's pickle readers at these; returns what was replaced
    (``module.name``), empty when nothing was left to replace."""
    from importlib import import_module

    for name in READERS:
        import_module(name)
    replaced: list[str] = []
    for modname, module in list(sys.modules.items()):
        if module is None or not (modname == "whoosh" or modname.startswith("whoosh.")):
            continue
        for attr, value in list(vars(module).items()):
            new = _RAW.get(id(value))
            if new is not None and value in (pickle.loads, pickle.load, pickle, pickle.Unpickler):
                setattr(module, attr, new)
                replaced.append(f"{modname}.{attr}")
    return replaced


def raw_readers() -> list[str]:
    """Whoosh module attributes still holding the unrestricted readers (empty once installed)."""
    held = (pickle.loads, pickle.load, pickle, pickle.Unpickler)
    ids = {id(h) for h in held}  # ``value is h`` for one of them, without a generator per attribute
    return [
        f"{modname}.{attr}"
        for modname, module in list(sys.modules.items())
        if module is not None and (modname == "whoosh" or modname.startswith("whoosh."))
        for attr, value in list(vars(module).items())
        if id(value) in ids
    ]
