"""The sentence encoder's rows kept compactly: int8 codes with one float32 scale a row.

A unit row of 384 float32 is 1,536 bytes; int16 (as the LSA store keeps its rows) is 768, and a
million papers' were 768 MB. Here a row is its largest component's scale and 384 int8 codes,
``row ≈ scale × codes`` with ``scale = max|component| / 127``: 388 bytes, a million rows 388 MB.
Measured on the dev corpus's real vectors (bench/neighbours_bench.py): each row's cosine with a
query within ~2e-3 of float32's, and its ten nearest neighbours the same ones (recall@10 ≥ 0.98).

The rows are one structured array (``ROW``), so that indexing, masks and concatenation carry a
row's scale with its codes; a store's file is a plain ``.npy`` of that dtype, mapped read-only,
never unpickled (``mapped``).
"""

from __future__ import annotations

import mmap
import os
from pathlib import Path
from typing import Any

import numpy as np

from desk.core.runtime import resident
from desk.core.semantic.store import npy_header

DIMENSIONS = 384  # minilm.DIMENSIONS (not imported: a search reads rows without the network's code)
LEVELS = 127.0  # int8 codes in [-127, 127]: symmetric, -128 unused
ROW = np.dtype([("scale", "<f4"), ("codes", "i1", (DIMENSIONS,))])
CHUNK_ROWS = 4096  # rows converted to float32 at once (6 MB): never a whole store's


def empty() -> np.ndarray:
    """No rows."""
    return np.zeros(0, ROW)


def quantize(vectors: np.ndarray) -> np.ndarray:
    """The rows of float rows (n × DIMENSIONS; a zero row stays zero), a chunk at a time."""
    vectors = np.asarray(vectors)
    if vectors.ndim != 2 or vectors.shape[1] != DIMENSIONS:
        raise ValueError(f"rows of {DIMENSIONS} components expected, not {vectors.shape}")
    out = np.zeros(len(vectors), ROW)
    for lo in range(0, len(vectors), CHUNK_ROWS):
        chunk = np.asarray(vectors[lo : lo + CHUNK_ROWS], dtype=np.float32)
        top = np.abs(chunk).max(axis=1) if len(chunk) else np.zeros(0, np.float32)
        scale = (top / np.float32(LEVELS)).astype(np.float32)
        safe = np.where(scale > 0, scale, np.float32(1))
        codes = np.rint(np.clip(chunk / safe[:, None], -LEVELS, LEVELS))
        out["scale"][lo : lo + len(chunk)] = scale
        out["codes"][lo : lo + len(chunk)] = codes
    return out


def floats(rows: np.ndarray) -> np.ndarray:
    """The float32 rows (n × DIMENSIONS) of ``rows``."""
    return np.asarray(rows["codes"], np.float32) * np.asarray(rows["scale"], np.float32)[:, None]


def products(rows: np.ndarray, query: np.ndarray, pages: Pages | None = None) -> np.ndarray:
    """Every row's dot product with ``query`` (float32), CHUNK_ROWS rows converted at a time; the
    mapped pages read are given back as it goes (``pages``)."""
    n = len(rows)
    out = np.empty(n, np.float32)
    q = np.asarray(query, np.float32)
    block = np.empty((min(CHUNK_ROWS, n), DIMENSIONS), np.float32)
    for lo in range(0, n, CHUNK_ROWS):
        chunk = rows[lo : lo + CHUNK_ROWS]
        part = block[: len(chunk)]
        np.copyto(part, chunk["codes"])
        np.dot(part, q, out=out[lo : lo + len(chunk)])
        out[lo : lo + len(chunk)] *= chunk["scale"]
        if pages is not None:
            pages.release(lo * ROW.itemsize, (lo + len(chunk)) * ROW.itemsize)
    return out


def products_at(rows: np.ndarray, at: np.ndarray, query: np.ndarray) -> np.ndarray:
    """The dot products of the rows ``at`` alone with ``query`` (float32)."""
    out = np.empty(len(at), np.float32)
    q = np.asarray(query, np.float32)
    for lo in range(0, len(at), CHUNK_ROWS):
        chunk = rows[at[lo : lo + CHUNK_ROWS]]
        out[lo : lo + len(chunk)] = (np.asarray(chunk["codes"], np.float32) @ q) * chunk["scale"]
    return out


class Pages:
    """The read-only mapping a store's rows are read from, whose pages a pass gives back: a
    product over a million rows would otherwise leave 388 MB of them in the window's resident
    memory, although the page cache holds them anyway (see store.Pages)."""

    def __init__(self, mapping: mmap.mmap, offset: int) -> None:
        """The mapping and where the rows start in it (after the .npy header)."""
        self.mapping = mapping
        self.offset = offset

    def release(self, start: int, stop: int) -> None:
        """Give back the pages holding bytes [start, stop) of the rows."""
        if stop > start:
            resident.release(self.mapping, self.offset + start, self.offset + stop)


def save(path: Path, rows: np.ndarray) -> None:
    """Write ``rows`` as a .npy file (no pickle), flushed to the disk."""
    with path.open("wb") as f:
        np.save(f, np.ascontiguousarray(rows, ROW), allow_pickle=False)
        f.flush()
        os.fsync(f.fileno())


def mapped(path: Path) -> tuple[np.ndarray, Pages | None]:
    """The rows of a .npy file of ``ROW``, mapped read-only (an empty file's: held); ValueError
    for any other dtype or shape, or a file shorter than its header says. Nothing is unpickled:
    a header naming another dtype (an object one included) is refused before any data is read."""
    with path.open("rb") as f:
        shape, fortran, dtype, offset = npy_header(f)
        if dtype != ROW or len(shape) != 1 or fortran:
            raise ValueError(f"{path.name} holds {dtype} {shape}, not the rows")
        count = int(shape[0])
        size = path.stat().st_size
        if size != offset + count * ROW.itemsize:
            raise ValueError(f"{path.name} is {size} bytes, not {offset + count * ROW.itemsize}")
        if not count:
            return empty(), None
        mapping = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    return np.frombuffer(mapping, ROW, count, offset), Pages(mapping, offset)


def from_int16(vectors: Any, scale: float) -> np.ndarray:
    """The rows of int16 unit rows times ``scale`` (the store's format before int8), a chunk at
    a time (never a whole million rows as float32)."""
    vectors = np.asarray(vectors)
    out = np.zeros(len(vectors), ROW)
    for lo in range(0, len(vectors), CHUNK_ROWS):
        chunk = np.asarray(vectors[lo : lo + CHUNK_ROWS], np.float32) / np.float32(scale)
        out[lo : lo + len(chunk)] = quantize(chunk)
    return out
