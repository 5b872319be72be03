"""Data-only files for derived stores (caches): numeric arrays, a format version and a checksum.

A library folder may come from anywhere (a synced folder, a colleague's copy), so nothing in it
may run code when read: these files are numpy ``.npz`` archives read with
``allow_pickle=False`` (an object array is refused, never unpickled), carrying a small JSON
header with the store's kind, its version and a SHA-256 of every array. A file that does not
verify reads as absent, and the caller rebuilds what it held.

A store may also name *parts*: a few of its arrays with their own SHA-256, so that a reader
wanting only those (the near-duplicate links, without every paper's words) loads and checks
just them; the archive's other members are never read.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Collection, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from desk.core.runtime.logs import logger

log = logger(__name__)  # logging loads only when something is logged (a command's search reads here)
_META = "__meta__"


def _digest(arrays: dict[str, np.ndarray]) -> str:
    h = hashlib.sha256()
    for name in sorted(arrays):
        a = np.ascontiguousarray(arrays[name])
        h.update(f"{name}\0{a.dtype.str}\0{a.shape}\0".encode())
        h.update(a.tobytes())
    return h.hexdigest()


def write_arrays(
    path: Path,
    kind: str,
    version: int,
    arrays: dict[str, np.ndarray],
    parts: Mapping[str, Collection[str]] | None = None,
) -> None:
    """Write ``arrays`` to ``path`` atomically (a temporary file renamed over it); OSError on failure.

    ``parts``: named subsets of the arrays that read_part() can load and verify alone.
    """
    if _META in arrays or any(a.dtype.hasobject for a in arrays.values()):
        raise ValueError("derived arrays must be plain numeric arrays")
    described: dict[str, dict[str, Any]] = {}
    for part, names in (parts or {}).items():
        chosen = sorted(names)
        if not set(chosen) <= arrays.keys():
            raise ValueError(f"part {part!r} names arrays the store does not hold")
        described[part] = {"arrays": chosen, "sha256": _digest({n: arrays[n] for n in chosen})}
    header = {"kind": kind, "version": version, "sha256": _digest(arrays), "parts": described}
    meta = json.dumps(header).encode()
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f"{path.name}.{os.getpid()}.part")
    try:
        with tmp.open("wb") as fh:
            payload = {**arrays, _META: np.frombuffer(meta, dtype=np.uint8)}
            savez: Any = np.savez  # its stubs type **kwds as its own options, not as arrays
            savez(fh, **payload)
            fh.flush()
            os.fsync(fh.fileno())
        tmp.replace(path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def _meta_of(archive: Any) -> dict[str, Any] | None:
    if _META not in archive.files:
        return None
    raw = archive[_META]
    try:
        meta = json.loads(bytes(raw).decode()) if raw.dtype == np.uint8 else None
    except (UnicodeDecodeError, ValueError):
        meta = None
    return meta if isinstance(meta, dict) else None


def read_part(path: Path, kind: str, version: int, part: str) -> dict[str, np.ndarray] | None:
    """Only the arrays of ``part`` in ``path``, if the store is this kind and version, names that
    part and the part's checksum holds; else None (the caller reads the whole store instead)."""
    try:
        with path.open("rb") as fh, np.load(fh, allow_pickle=False) as archive:
            if not hasattr(archive, "files"):
                return None
            meta = _meta_of(archive)
            if meta is None or meta.get("kind") != kind or meta.get("version") != version:
                return None
            parts = meta.get("parts")
            described = parts.get(part) if isinstance(parts, dict) else None
            if not isinstance(described, dict) or not isinstance(described.get("arrays"), list):
                return None
            names = [str(n) for n in described["arrays"]]
            if _META in names or not set(names) <= set(archive.files):
                return None
            arrays = {name: archive[name] for name in names}
    except FileNotFoundError:
        return None
    except Exception:  # zip damage, an object array, truncation: the whole read decides
        log.debug("derived store %s: part %s unreadable", path, part, exc_info=True)
        return None
    if described.get("sha256") != _digest(arrays):
        log.debug("derived store %s: part %s fails its checksum", path, part)
        return None
    return arrays


def has_part(path: Path, part: str) -> bool:
    """Whether the store at ``path`` names ``part`` (its header alone is read)."""
    try:
        with path.open("rb") as fh, np.load(fh, allow_pickle=False) as archive:
            meta = _meta_of(archive) if hasattr(archive, "files") else None
    except Exception:
        return False
    return meta is not None and isinstance(meta.get("parts"), dict) and part in meta["parts"]


def read_arrays(path: Path, kind: str, version: int) -> dict[str, np.ndarray] | None:
    """The arrays in ``path`` if it is this kind and version of store and its checksum holds,
    else None (missing, damaged, planted or from another version: the caller rebuilds)."""
    try:
        with path.open("rb") as fh, np.load(fh, allow_pickle=False) as archive:
            if not hasattr(archive, "files"):
                return None  # a bare .npy, not an archive of ours
            meta = _meta_of(archive)
            arrays = {name: archive[name] for name in archive.files if name != _META}
    except FileNotFoundError:
        return None
    except Exception:  # zip damage, an object array, truncation: all only mean "rebuild"
        log.debug("derived store %s unreadable; rebuilding", path, exc_info=True)
        return None
    if meta is None or meta.get("kind") != kind or meta.get("version") != version:
        log.debug("derived store %s is another kind or version; rebuilding", path)
        return None
    if meta.get("sha256") != _digest(arrays):
        log.debug("derived store %s fails its checksum; rebuilding", path)
        return None
    return arrays
