"""The nearest rows of a vector among a store's int8 rows (rows8.py): exact, or through an index.

Up to EXACT_MAX rows a query is one pass over every row (~40 ms at 200k on one core). Above, an
inverted-file index (IVF) answers: the rows are split into LISTS_PER_SQRT × √n lists by
spherical k-means on a sample; a query reads the lists of its PROBES nearest centroids (~2 % of
the rows at a million) and ranks their rows exactly. The index keeps its own copy of the rows,
list by list (``rows.npy``, mapped): a list is one contiguous range of it. Read from the store,
a query's rows lie all over the file, and the kernel maps pages around each one touched (large
folios): a query of 16k scattered rows of a million mapped the whole 388 MB file into the
window's resident memory; from the copy it maps the ~6 MB it reads, given back after it. So the
index costs as much disk as the store (392 bytes a row with the row order). Its recall@10
against the exact products and its time a query are measured by bench/neighbours_bench.py on
vectors with the structure of real ones.

The index is derived data, kept in ``<library>/encoded/neighbours/``: ``centroids.npy``,
``order.npy``, ``starts.npy``, ``rows.npy`` and ``neighbours.json`` naming its version, the *stamp* of the
rows it was built from (the CRC-32 of the store's vectors file, as the store's manifest records
it) and each file's CRC-32 and size. An index of other rows, another version, damaged or cut
short is not used: queries take the exact path until the builder (build.py) has made it again.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from desk.core.runtime.logs import logger
from desk.core.semantic import rows8
from desk.core.semantic.store import file_crc

log = logger(__name__)

EXACT_MAX = 200_000  # rows past which a query goes through the index (when it is built)
LISTS_PER_SQRT = 1.0  # lists: this times √(rows)
PROBES = 16  # lists read a query (recall@10 0.996 at 1M, 0.998 at 200k: bench/README.md)
TRAIN_SAMPLE = 40_000  # rows the centroids are fitted on
TRAIN_ROUNDS = 8  # k-means rounds
ASSIGN_CHUNK = 16_384  # rows assigned to their list at once (a 16k × lists float32 block)
SEED = 11
VERSION = 1
DIR_NAME = "neighbours"  # inside the encoder store's folder
MANIFEST_NAME = "neighbours.json"
ARRAYS = ("centroids", "order", "starts", "rows")

Progress = Callable[[int, int], None]


class Cancelled(Exception):
    """The index's build was stopped (``cancel`` set)."""


def top(scores: np.ndarray, k: int) -> np.ndarray:
    """Positions of the ``k`` highest ``scores``, highest first (ties by position)."""
    k = min(k, len(scores))
    if k <= 0:
        return np.zeros(0, np.int64)
    part = np.argpartition(-scores, k - 1)[:k] if k < len(scores) else np.arange(len(scores))
    return part[np.lexsort((part, -scores[part]))].astype(np.int64)


def exact(
    rows: np.ndarray, query: np.ndarray, k: int, pages: rows8.Pages | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """(rows, cosines) of the ``k`` rows nearest ``query`` (a unit vector), nearest first."""
    scores = rows8.products(rows, query, pages)
    best = top(scores, k)
    return best, scores[best]


@dataclass(frozen=True)
class Ivf:
    """An inverted-file index of a store's rows."""

    centroids: np.ndarray  # lists × DIMENSIONS float32, unit rows
    order: np.ndarray  # int32: the store's row of each of ``rows``, list by list
    starts: np.ndarray  # int64, lists + 1: list i is order[starts[i]:starts[i+1]]
    rows: np.ndarray  # rows8.ROW: the store's rows in that order (a copy)
    pages: rows8.Pages | None = None  # the mapping ``rows`` is read from, if mapped

    @property
    def count(self) -> int:
        """Rows indexed."""
        return len(self.order)

    def search(self, query: np.ndarray, k: int, probes: int = PROBES) -> tuple[np.ndarray, np.ndarray]:
        """(store rows, cosines) of the ``k`` rows nearest ``query`` among the lists of its
        ``probes`` nearest centroids, nearest first: the rows read are ranked by their exact
        products (the same codes as the store's: the same cosines)."""
        q = np.asarray(query, np.float32)
        lists = np.sort(top(self.centroids @ q, probes))  # in file order: the mapping read forward
        at, scores = [np.zeros(0, np.int64)], [np.zeros(0, np.float32)]
        for i in lists.tolist():
            lo, hi = int(self.starts[i]), int(self.starts[i + 1])
            at.append(self.order[lo:hi].astype(np.int64))
            scores.append(rows8.products(self.rows[lo:hi], q))
        if self.pages is not None:
            self.pages.release(0, len(self.rows) * rows8.ROW.itemsize)
        candidates, products = np.concatenate(at), np.concatenate(scores)
        best = top(products, k)
        return candidates[best], products[best]


def _unit(x: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    return (x / np.where(norms > 0, norms, 1)).astype(np.float32)


def _check(cancel: threading.Event | None) -> None:
    if cancel is not None and cancel.is_set():
        raise Cancelled


def build(
    rows: np.ndarray,
    progress: Progress | None = None,
    cancel: threading.Event | None = None,
    lists: int | None = None,
) -> Ivf:
    """The index of ``rows`` (rows8.ROW): centroids by spherical k-means on a seeded sample,
    then every row in the list of its nearest centroid. Raises Cancelled when ``cancel`` is set."""
    n = len(rows)
    lists = max(1, min(n, lists or round(LISTS_PER_SQRT * np.sqrt(n))))
    rng = np.random.default_rng(SEED)
    sample_at = np.sort(rng.choice(n, min(n, max(TRAIN_SAMPLE, 32 * lists)), replace=False))
    sample = rows8.floats(rows[sample_at])
    centroids = sample[rng.choice(len(sample), lists, replace=False)].copy()
    for _ in range(TRAIN_ROUNDS):
        _check(cancel)
        nearest = np.argmax(sample @ centroids.T, axis=1)
        sums = np.zeros_like(centroids)
        np.add.at(sums, nearest, sample)
        empty = np.bincount(nearest, minlength=lists) == 0
        sums[empty] = sample[rng.choice(len(sample), int(empty.sum()))]  # an empty list starts again
        centroids = _unit(sums)
    assigned = np.empty(n, np.int32)
    for lo in range(0, n, ASSIGN_CHUNK):
        _check(cancel)
        block = rows8.floats(rows[lo : lo + ASSIGN_CHUNK])
        assigned[lo : lo + len(block)] = np.argmax(block @ centroids.T, axis=1)
        if progress is not None:
            progress(min(n, lo + ASSIGN_CHUNK), n)
    order = np.argsort(assigned, kind="stable").astype(np.int32)
    starts = np.zeros(lists + 1, np.int64)
    np.cumsum(np.bincount(assigned, minlength=lists), out=starts[1:])
    listed = np.empty(n, rows8.ROW)
    for lo in range(0, n, ASSIGN_CHUNK):  # the copy, gathered a chunk at a time
        _check(cancel)
        listed[lo : lo + ASSIGN_CHUNK] = rows[order[lo : lo + ASSIGN_CHUNK]]
    return Ivf(centroids, order, starts, listed)


def write(folder: Path, index: Ivf, stamp: int) -> None:
    """Write ``index`` of the rows stamped ``stamp`` to ``folder``: manifest removed first, written
    last (a write cut short reads as missing)."""
    folder.mkdir(parents=True, exist_ok=True)
    manifest_path = folder / MANIFEST_NAME
    manifest_path.unlink(missing_ok=True)
    files: dict[str, dict[str, int]] = {}
    partial = manifest_path.with_suffix(".json.partial")
    try:
        for name in ARRAYS:
            path = folder / f"{name}.npy"
            if name == "rows":
                rows8.save(path, index.rows)
            else:
                np.save(path, getattr(index, name), allow_pickle=False)
            files[name] = {"crc32": file_crc(path), "size": path.stat().st_size}
        manifest = {"version": VERSION, "stamp": stamp, "count": index.count, "files": files}
        partial.write_text(json.dumps(manifest), encoding="utf-8")
        os.replace(partial, manifest_path)
    finally:
        partial.unlink(missing_ok=True)


def read(folder: Path, stamp: int, count: int) -> Ivf | None:
    """The index in ``folder`` when it is sound, of this version and of the ``count`` rows stamped
    ``stamp``; None otherwise (nothing is unpickled: arrays load with allow_pickle=False)."""
    try:
        manifest = json.loads((folder / MANIFEST_NAME).read_text(encoding="utf-8"))
        if (
            manifest.get("version") != VERSION
            or manifest.get("stamp") != stamp
            or manifest.get("count") != count
        ):
            return None
        arrays = {}
        pages = None
        for name in ARRAYS:
            path = folder / f"{name}.npy"
            entry = manifest["files"][name]
            if path.stat().st_size != entry["size"] or file_crc(path) != entry["crc32"]:
                return None
            if name == "rows":
                arrays[name], pages = rows8.mapped(path)
            else:
                arrays[name] = np.load(path, allow_pickle=False)
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
    centroids, order, starts, rows = arrays["centroids"], arrays["order"], arrays["starts"], arrays["rows"]
    lists = len(centroids)
    if centroids.dtype != np.float32 or centroids.ndim != 2 or centroids.shape[1] != rows8.DIMENSIONS:
        return None
    if (
        order.dtype != np.int32
        or order.shape != (count,)
        or rows.shape != (count,)
        or starts.dtype != np.int64
        or starts.shape != (lists + 1,)
    ):
        return None
    if starts[0] != 0 or starts[-1] != count or bool(np.any(np.diff(starts) < 0)):
        return None
    if count and (int(order.min()) < 0 or int(order.max()) >= count or bool(np.any(np.bincount(order) != 1))):
        return None  # every row once
    return Ivf(centroids, order, starts, rows, pages)


class Neighbours:
    """The nearest rows of a store of the encoder's rows: exact up to EXACT_MAX, else through its
    index once built (read from ``folder`` when first needed, again when rewritten); thread-safe."""

    def __init__(self, folder: Path) -> None:
        """The index kept in ``folder``."""
        self.folder = Path(folder)
        self._lock = threading.Lock()
        self._held: tuple[tuple[int, int, int], Ivf | None] | None = None  # (stamp, count, mtime) -> index

    def _manifest_time(self) -> int:
        try:
            return (self.folder / MANIFEST_NAME).stat().st_mtime_ns
        except OSError:
            return -1

    def index(self, stamp: int, count: int) -> Ivf | None:
        """The index of the ``count`` rows stamped ``stamp``, when one sound is on disk."""
        key = (stamp, count, self._manifest_time())
        with self._lock:
            if self._held is None or self._held[0] != key:
                self._held = (key, read(self.folder, stamp, count) if key[2] >= 0 else None)
            return self._held[1]

    def due(self, stamp: int, count: int) -> bool:
        """Whether rows this many want an index and none sound is on disk."""
        return count > EXACT_MAX and self.index(stamp, count) is None

    def nearest(
        self, rows: np.ndarray, stamp: int, query: np.ndarray, k: int, pages: rows8.Pages | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """(rows, cosines) of the ``k`` rows nearest ``query``, nearest first: exact up to
        EXACT_MAX rows or while no index is built, else the index's."""
        index = self.index(stamp, len(rows)) if len(rows) > EXACT_MAX else None
        if index is None:
            return exact(rows, query, k, pages)
        return index.search(query, k)

    def ensure(
        self,
        rows: np.ndarray,
        stamp: int,
        progress: Progress | None = None,
        cancel: threading.Event | None = None,
    ) -> bool:
        """Build and write the index of ``rows`` when it is due; True when one was written.
        Raises OSError when it cannot be written, Cancelled when ``cancel`` is set."""
        if not self.due(stamp, len(rows)):
            return False
        index = build(rows, progress, cancel)
        write(self.folder, index, stamp)
        log.info("the nearest-neighbour index of %d papers was built", len(rows))
        return True
