"""The encoder store's files in ``<library>/encoded/``: a sound store read, a store written whole,
and the papers-in-view file a window leaves for a builder.

``ids.npy``, ``keys.npy`` and ``vectors.npy`` (int8 rows: rows8.py, mapped, not read) are
written by ``numpy.save`` and read with ``allow_pickle=False``; ``encoded.json`` names the
store's version, the model and its word pieces, and each file's CRC-32 and size. The manifest is
written last and removed first: a write cut short reads as missing. A store of version 2 (int16
rows) is converted as it is read (``Stored.version`` says so; encoded.py writes it back).
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from desk.core.semantic import minilm, rows8
from desk.core.semantic.store import SCALE, file_crc

STORE_VERSION = 3  # 2: rows keyed by the text they were computed from; 3: int8 rows (rows8.py)
CONVERTED_VERSION = 2  # an older store read and converted, not encoded again
MANIFEST_NAME = "encoded.json"
ARRAYS = ("ids", "keys", "vectors")
FIRST_NAME = "first.json"  # the ids of the papers in view, encoded before the others (build_order)
FIRST_KEPT = 1000  # ids of FIRST_NAME read at most


@dataclass(frozen=True)
class Stored:
    """A sound store as read: its arrays (the rows mapped from ``pages``, or converted), the
    CRC-32 of its rows' file, its version, and its manifest's text and (mtime, size)."""

    ids: np.ndarray
    keys: np.ndarray
    vectors: np.ndarray
    pages: rows8.Pages | None
    stamp: int
    version: int
    manifest: str
    loaded: tuple[int, int]


def manifest_stamp(directory: Path) -> tuple[int, int]:
    """The (mtime, size) of the store's manifest in ``directory``: it changes with each write.
    Raises OSError (no store)."""
    stat = (directory / MANIFEST_NAME).stat()
    return (stat.st_mtime_ns, stat.st_size)


def read_store(directory: Path, model: str, max_tokens: int) -> Stored | None:
    """The store in ``directory`` if it is sound, of this version or the one before (converted),
    and of ``model`` at ``max_tokens`` word pieces; else None."""
    try:
        loaded = manifest_stamp(directory)
        text = (directory / MANIFEST_NAME).read_text(encoding="utf-8")
        manifest = json.loads(text)
        version = manifest.get("version")
        if version not in (STORE_VERSION, CONVERTED_VERSION) or manifest.get("model") != model:
            return None
        if manifest.get("max_tokens") != max_tokens:
            return None
        arrays = {}
        pages = None
        for name in ARRAYS:
            path = directory / f"{name}.npy"
            entry = manifest["files"][name]
            if path.stat().st_size != entry["size"] or file_crc(path) != entry["crc32"]:
                return None
            if name == "vectors" and version == STORE_VERSION:
                arrays[name], pages = rows8.mapped(path)
            else:
                arrays[name] = np.load(path, allow_pickle=False)
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
    ids, keys, vectors = arrays["ids"], arrays["keys"], arrays["vectors"]
    if version == CONVERTED_VERSION:
        if vectors.dtype != np.int16 or vectors.shape != (len(ids), minilm.DIMENSIONS):
            return None
        vectors = rows8.from_int16(vectors, SCALE)
    if ids.dtype != np.int64 or vectors.dtype != rows8.ROW or vectors.shape != ids.shape:
        return None
    if keys.dtype != np.int64 or keys.shape != ids.shape:
        return None
    stamp = int(manifest["files"]["vectors"]["crc32"])
    return Stored(ids, keys, vectors, pages, stamp, version, text, loaded)


def write_store(
    directory: Path, ids: np.ndarray, keys: np.ndarray, vectors: np.ndarray, model: str, max_tokens: int
) -> int:
    """Write the store whole in ``directory`` (of ``model`` at ``max_tokens`` word pieces), the
    manifest last; the CRC-32 of the rows' file written. Raises OSError."""
    directory.mkdir(parents=True, exist_ok=True)
    manifest_path = directory / MANIFEST_NAME
    manifest_path.unlink(missing_ok=True)  # removed first: a write cut short reads as missing
    files = {}
    partials = [directory / f"{name}.npy.partial" for name in ARRAYS]
    partials.append(manifest_path.with_suffix(".json.partial"))
    try:
        for name, array in zip(ARRAYS, (ids, keys, vectors), strict=True):
            path = directory / f"{name}.npy"
            partial = path.with_suffix(".npy.partial")
            if name == "vectors":
                rows8.save(partial, array)
            else:
                with partial.open("wb") as f:
                    np.save(f, array, allow_pickle=False)
                    f.flush()
                    os.fsync(f.fileno())
            os.replace(partial, path)
            files[name] = {"crc32": file_crc(path), "size": path.stat().st_size}
        manifest = {
            "version": STORE_VERSION,
            "model": model,
            "max_tokens": max_tokens,
            "count": len(ids),
            "files": files,
        }
        partial = manifest_path.with_suffix(".json.partial")
        partial.write_text(json.dumps(manifest, indent=1), encoding="utf-8")
        os.replace(partial, manifest_path)
        return int(files["vectors"]["crc32"])
    finally:  # a full disk or a kill's next writer: no half-written file is left behind
        for partial in partials:
            partial.unlink(missing_ok=True)


def first_stamp(directory: Path) -> tuple[int, int] | None:
    """The (mtime, size) of the papers-in-view file (None: there is none): a builder reads the
    file again when it changed."""
    try:
        stat = (directory / FIRST_NAME).stat()
    except OSError:
        return None
    return (stat.st_mtime_ns, stat.st_size)


def first_ids(directory: Path) -> list[int]:
    """The ids a window asked to have encoded first (the papers in view; [] when none)."""
    try:
        found = json.loads((directory / FIRST_NAME).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    if not isinstance(found, list):
        return []
    return [int(i) for i in found[:FIRST_KEPT] if isinstance(i, int) and not isinstance(i, bool)]


def ask_first(directory: Path, ids: Sequence[int]) -> None:
    """Have a builder at work encode the papers ``ids`` before the others (those in view).

    Written beside the store (not part of it) and replaced whole; a builder reads it between
    two chunks. Does nothing when the store's folder cannot be written."""
    wanted = [int(i) for i in ids[:FIRST_KEPT]]
    if wanted == first_ids(directory):
        return
    partial = directory / (FIRST_NAME + ".partial")
    try:
        directory.mkdir(parents=True, exist_ok=True)
        partial.write_text(json.dumps(wanted), encoding="utf-8")
        os.replace(partial, directory / FIRST_NAME)
    except OSError:
        partial.unlink(missing_ok=True)
