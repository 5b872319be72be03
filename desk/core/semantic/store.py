"""The semantic vectors on disk: a derived, versioned, checksummed folder of .npy files.

``<library>/vectors/`` holds one array per file, written by ``numpy.save`` and read back with
``allow_pickle=False`` (a library folder from elsewhere runs no code): each row's paper id and
the key of the text it was computed from (keys.py), the rows, the model's arrays, and ``vectors.json``
naming the store's version, the arrays' shapes and each file's CRC-32, size and modification
time as written. The manifest is written last and removed first, so a build killed midway reads
as corrupt and is rebuilt from the database, like the search index.

Reading checks every file's CRC-32 (the window, ``desk check``). A one-shot search from the
command line reads with ``verify="changed"``: a file whose size and time are those the manifest
recorded is taken as written, as the index's freshness stamp takes its segments (at 100k papers
the CRCs of 47 MB cost ~15 ms of every `desk search`); any other file is checked as always.
"""

from __future__ import annotations

import contextlib
import enum
import json
import mmap
import os
import shutil
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO, Literal

import numpy as np

from desk.core.runtime import resident
from desk.core.semantic.lsa import LsaModel, Vocabulary

#: Bump when the files, the tokenisation or the model change: an older store is rebuilt.
STORE_VERSION = 3  # 2: words stemmed by Snowball English (desk.core.text.stemming); 3: rows keyed by text
DIR_NAME = "vectors"
MANIFEST_NAME = "vectors.json"
BUILD_PREFIX = "build-"
ARRAYS = ("ids", "keys", "vectors", "words", "idf", "components")


class StoreState(enum.Enum):
    """What is on disk."""

    OK = "ok"
    MISSING = "missing"
    CORRUPT = "corrupt"
    OLD_VERSION = "old_version"


class StoreError(Exception):
    """The store could not be read; ``state`` says why."""

    def __init__(self, state: StoreState, detail: str) -> None:
        super().__init__(detail)
        self.state = state


#: A unit vector's components are kept times SCALE, rounded, as int16: half of float32's memory
#: (1M x 192: 384 MB, not 768) and a cosine within 5e-5 of float32's. A product converts
#: CHUNK_ROWS rows at a time, so it reads half the bytes at float32's speed (1M: ~75 ms).
SCALE = 32767.0
CHUNK_ROWS = 4096


def quantize(vectors: np.ndarray) -> np.ndarray:
    """int16 rows of float rows with components in [-1, 1] (unit or zero), a chunk at a time."""
    out = np.empty(vectors.shape, np.int16)
    for lo in range(0, len(vectors), CHUNK_ROWS):
        chunk = np.asarray(vectors[lo : lo + CHUNK_ROWS], dtype=np.float32) * np.float32(SCALE)
        out[lo : lo + CHUNK_ROWS] = np.rint(np.clip(chunk, -SCALE, SCALE))
    return out


def _chunk_product(block: np.ndarray, query: np.ndarray, out: np.ndarray) -> None:
    np.dot(block, query, out=out)


class Pages:
    """The read-only mapping of a store's vectors file, whose pages a pass over it gives back.

    A search's product reads every row; mapped pages it touched would stay in the window's
    resident memory (384 MB at a million papers) although the file's page cache holds them
    anyway. ``release`` tells the kernel the process is done with a range (Linux's
    MADV_DONTNEED on a shared file mapping: the next read maps the cached page again); where
    madvise is missing the pages stay mapped, as any file mapping's do, and the kernel may
    still reclaim them: they are clean.
    """

    def __init__(self, mapping: mmap.mmap, offset: int) -> None:
        self.mapping = mapping
        self.offset = offset  # where the array's data starts in the file (after the .npy header)

    def release(self, start: int, stop: int) -> None:
        """Give back the pages holding bytes [start, stop) of the array's data."""
        if stop > start:
            resident.release(self.mapping, self.offset + start, self.offset + stop)


@dataclass(frozen=True)
class Vectors:
    """One paper vector per id, and the model that places a query among them."""

    ids: np.ndarray  # int64, ascending
    vectors: np.ndarray
    """len(ids) × k int16: unit rows times SCALE (zero for an abstract of unknown words). Float
    rows given are quantized."""
    model: LsaModel
    fitted_on: int  # papers the model was fitted on (a refit is due when the library doubles)
    pages: Pages | None = field(default=None, compare=False, repr=False)
    """The file mapping ``vectors`` reads from (store.read), or None when they are held."""
    keys: np.ndarray | None = field(default=None, compare=False, repr=False)
    """int64, one a row: the key of the text each row was computed from (keys.py). None: unknown
    texts, kept as zeros, which no paper's key equals (such rows are never trusted)."""

    def __post_init__(self) -> None:
        if self.vectors.dtype != np.int16:
            object.__setattr__(self, "vectors", quantize(self.vectors))
        if self.keys is None:
            object.__setattr__(self, "keys", np.zeros(len(self.ids), np.int64))

    @property
    def row_keys(self) -> np.ndarray:
        """The rows' keys (int64; zeros where the texts were unknown)."""
        assert self.keys is not None  # set by __post_init__
        return self.keys

    @property
    def dims(self) -> int:
        """Dimensions of a vector."""
        return int(self.vectors.shape[1])

    def rows(self, at: Any) -> np.ndarray:
        """The float32 vectors of the rows ``at`` (an index, a slice or an array of rows)."""
        out = np.asarray(self.vectors[at], dtype=np.float32) / np.float32(SCALE)
        if self.pages is not None:
            self.pages.release(0, self.vectors.nbytes)
        return out

    def products_at(self, rows: np.ndarray, query: np.ndarray) -> np.ndarray:
        """The dot products of the rows ``rows`` alone with ``query``, as ``products`` computes them."""
        out = np.empty(len(rows), np.float32)
        if len(rows):
            q = (np.asarray(query, dtype=np.float32) / np.float32(SCALE)).astype(np.float32)
            # CHUNK_ROWS rows at a time, as products() does: the rows of a common word's matches
            # at once were an int16 and a float32 copy of each (~110 MB for 100k of a million).
            for lo in range(0, len(rows), CHUNK_ROWS):
                block = np.asarray(self.vectors[rows[lo : lo + CHUNK_ROWS]], dtype=np.float32)
                _chunk_product(block, q, out[lo : lo + len(block)])
            if self.pages is not None and resident.over_budget():
                self.pages.release(0, self.vectors.nbytes)
        return out

    def products(self, query: np.ndarray) -> np.ndarray:
        """Every row's dot product with ``query`` (float32), CHUNK_ROWS rows converted at a time."""
        n = len(self.vectors)
        out = np.empty(n, np.float32)
        if not n:
            return out
        q = (np.asarray(query, dtype=np.float32) / np.float32(SCALE)).astype(np.float32)
        buffer = np.empty((min(CHUNK_ROWS, n), self.vectors.shape[1]), np.float32)
        row_bytes = self.vectors.shape[1] * self.vectors.itemsize
        for lo in range(0, n, CHUNK_ROWS):
            chunk = self.vectors[lo : lo + CHUNK_ROWS]
            block = buffer[: len(chunk)]
            np.copyto(block, chunk)
            if self.pages is not None:  # read once into the buffer: the mapped pages go back
                self.pages.release(lo * row_bytes, (lo + len(chunk)) * row_bytes)
            _chunk_product(block, q, out[lo : lo + len(chunk)])
        if self.pages is not None:  # and those a fault mapped ahead of the last chunk (a large folio)
            self.pages.release(0, self.vectors.nbytes)
        return out


def _written(path: Path) -> dict[str, int]:
    """A file's size and modification time (ns), as the manifest records them."""
    info = path.stat()
    return {"size": info.st_size, "mtime_ns": info.st_mtime_ns}


def _unchanged(path: Path, entry: dict[str, Any]) -> bool:
    """Whether ``path`` has the size and time its manifest entry recorded when it was written."""
    recorded = {k: entry.get(k) for k in ("size", "mtime_ns")}
    return all(isinstance(v, int) for v in recorded.values()) and _written(path) == recorded


def file_crc(path: Path) -> int:
    """The CRC-32 of a file's bytes, read a megabyte at a time."""
    value = 0
    with path.open("rb") as f:
        while chunk := f.read(1 << 20):
            value = zlib.crc32(chunk, value)
    return value


def write(directory: Path, data: Vectors) -> None:
    """Replace the store in ``directory`` with ``data`` (a kill midway leaves it CORRUPT, never wrong)."""
    directory.mkdir(parents=True, exist_ok=True)
    sweep(directory)
    build = directory / f"{BUILD_PREFIX}{os.getpid()}"
    shutil.rmtree(build, ignore_errors=True)
    build.mkdir()
    try:
        arrays: dict[str, np.ndarray] = {
            "ids": data.ids.astype(np.int64),
            "keys": data.row_keys.astype(np.int64),
            # int16 as held in memory: a search reads the file as it is (converting 100k x 192
            # half floats cost ~130 ms of every `desk search`, ~1.3 s at 1M).
            "vectors": data.vectors,
            "words": np.array(data.model.vocabulary.words, dtype=str),
            "idf": data.model.vocabulary.idf.astype(np.float32),
            "components": data.model.components.astype(np.float32),
        }
        files: dict[str, dict[str, object]] = {}
        for name, array in arrays.items():
            path = build / f"{name}.npy"
            np.save(path, array, allow_pickle=False)
            files[name] = {"shape": list(array.shape), "crc32": file_crc(path)}
        manifest = {"version": STORE_VERSION, "fitted_on": data.fitted_on, "files": files}
        with contextlib.suppress(FileNotFoundError):
            (directory / MANIFEST_NAME).unlink()
        for name in arrays:
            os.replace(build / f"{name}.npy", directory / f"{name}.npy")
            files[name].update(_written(directory / f"{name}.npy"))
        tmp = directory / f"{MANIFEST_NAME}.tmp"
        try:
            tmp.write_text(json.dumps(manifest), encoding="utf-8")
            os.replace(tmp, directory / MANIFEST_NAME)
        finally:  # a full disk leaves no half-written manifest behind
            tmp.unlink(missing_ok=True)
    finally:
        shutil.rmtree(build, ignore_errors=True)


def _manifest(directory: Path) -> dict[str, object]:
    path = directory / MANIFEST_NAME
    if not path.is_file():
        if directory.is_dir() and any(directory.glob("*.npy")):
            raise StoreError(StoreState.CORRUPT, "the semantic vectors are incomplete")
        raise StoreError(StoreState.MISSING, "there are no semantic vectors")
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise StoreError(StoreState.CORRUPT, f"the semantic vectors' manifest is unreadable ({exc})") from exc
    if not isinstance(manifest, dict) or not isinstance(manifest.get("files"), dict):
        raise StoreError(StoreState.CORRUPT, "the semantic vectors' manifest is unreadable")
    if manifest.get("version") != STORE_VERSION:
        raise StoreError(
            StoreState.OLD_VERSION,
            f"the semantic vectors are of version {manifest.get('version')}, not {STORE_VERSION}",
        )
    return manifest


def npy_header(f: BinaryIO) -> tuple[tuple[int, ...], bool, np.dtype[Any], int]:
    """(shape, Fortran order, dtype, where the data starts) of the .npy file open in ``f``, read
    from its header alone: nothing is unpickled, whatever dtype the header names."""
    fmt = np.lib.format
    version = fmt.read_magic(f)
    header = fmt.read_array_header_1_0 if version == (1, 0) else fmt.read_array_header_2_0
    shape, fortran, dtype = header(f)
    return shape, fortran, np.dtype(dtype), f.tell()


def _mapped(
    path: Path, kind: type[np.generic] = np.int16, any_order: bool = False
) -> tuple[np.ndarray, Pages] | None:
    """The rows (``kind``: int16, the vectors') of a .npy file, mapped read-only instead of read, or
    None when the file holds another dtype (a float store written before: read whole and
    quantized) or no rows, or its array in Fortran order unless ``any_order`` (the components
    are written in the order their product left them: np.load would give that order too).

    The mapping keeps the file it opened: a store written again replaces the file (os.replace),
    so the rows held stay those of the store read. Raises ValueError for a file too short."""
    with path.open("rb") as f:
        shape, fortran, dtype, offset = npy_header(f)
        if (fortran and not any_order) or np.dtype(dtype) != np.dtype(kind) or len(shape) != 2 or 0 in shape:
            return None
        mapping = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    count = int(shape[0]) * int(shape[1])
    flat = np.frombuffer(mapping, kind, count, offset)  # read-only
    array = flat.reshape(shape, order="F" if fortran else "C")
    return array, Pages(mapping, offset)


def read(directory: Path, verify: bool | Literal["changed"] = True) -> Vectors:
    """The store in ``directory``; raises StoreError (MISSING, CORRUPT, OLD_VERSION).

    ``verify`` compares each file's CRC-32 with the manifest's before loading it; "changed":
    only for a file whose size or time is not the one recorded (see the module's doc). The
    int16 vectors (and the float32 components) are mapped from their file, not read
    (``_mapped``): a window holds the pages a product is reading, not the whole store.
    """
    manifest = _manifest(directory)
    files = manifest["files"]
    assert isinstance(files, dict)
    arrays: dict[str, np.ndarray] = {}
    pages: Pages | None = None
    for name in ARRAYS:
        path = directory / f"{name}.npy"
        entry = files.get(name)
        if not isinstance(entry, dict) or not path.is_file():
            raise StoreError(StoreState.CORRUPT, f"the semantic vectors lack {name}.npy")
        checked = verify is True or (verify == "changed" and not _unchanged(path, entry))
        if checked and file_crc(path) != entry.get("crc32"):
            raise StoreError(StoreState.CORRUPT, f"the semantic vectors' {name}.npy fails its checksum")
        try:
            found = _mapped(path) if name == "vectors" else None
            if found is not None:
                array, pages = found
            elif name == "components" and (rows := _mapped(path, np.float32, any_order=True)) is not None:
                # A query reads the rows of its few words: reading the whole file (6.7 MB at
                # 10k papers) was ~3 ms of a `desk search`, the copy and the fresh pages.
                array = rows[0]
            elif name == "keys":  # read by a build or a check, never by a search: mapped
                array = np.load(path, mmap_mode="r", allow_pickle=False)
            else:
                array = np.load(path, allow_pickle=False)
        except (OSError, ValueError) as exc:
            raise StoreError(StoreState.CORRUPT, f"the semantic vectors' {name}.npy is unreadable") from exc
        if list(array.shape) != entry.get("shape"):
            raise StoreError(StoreState.CORRUPT, f"the semantic vectors' {name}.npy has the wrong shape")
        arrays[name] = array
    ids, vectors, components = arrays["ids"], arrays["vectors"], arrays["components"]
    words, idf, keys = arrays["words"], arrays["idf"], arrays["keys"]
    if (
        vectors.ndim != 2
        or len(vectors) != len(ids)
        or keys.shape != ids.shape
        or components.ndim != 2
        or components.shape[0] != len(words)
        or len(idf) != len(words)
        or (len(vectors) and vectors.shape[1] != components.shape[1])
        or (len(ids) > 1 and bool(np.any(np.diff(ids) <= 0)))
    ):
        raise StoreError(StoreState.CORRUPT, "the semantic vectors' arrays do not fit together")
    model = LsaModel(Vocabulary([str(w) for w in words.tolist()], idf.astype(np.float32)), components)
    fitted = manifest.get("fitted_on")
    return Vectors(
        ids.astype(np.int64, copy=False),
        vectors,  # int16; a float16 or float32 store written before is quantized (Vectors)
        model,
        int(fitted) if isinstance(fitted, int) else len(ids),
        pages,
        keys.astype(np.int64, copy=False),
    )


def stored_as_floats(directory: Path) -> bool:
    """Whether the store's vectors file holds floats (float16 or float32, as written before int16;
    read only its header)."""
    try:
        with (directory / "vectors.npy").open("rb") as f:
            fmt = np.lib.format
            version = fmt.read_magic(f)
            header = fmt.read_array_header_1_0 if version == (1, 0) else fmt.read_array_header_2_0
            return bool(np.dtype(header(f)[2]).kind == "f")
    except (OSError, ValueError):
        return False


def state(directory: Path) -> StoreState:
    """OK, MISSING, CORRUPT or OLD_VERSION (reads and verifies every file)."""
    try:
        read(directory)
    except StoreError as exc:
        return exc.state
    return StoreState.OK


def sweep(directory: Path) -> None:
    """Remove build folders left by processes that are gone."""
    if not directory.is_dir():
        return
    for p in directory.glob(f"{BUILD_PREFIX}*"):
        pid = p.name[len(BUILD_PREFIX) :]
        if pid.isdigit() and int(pid) != os.getpid() and _alive(int(pid)):
            continue
        shutil.rmtree(p, ignore_errors=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True
