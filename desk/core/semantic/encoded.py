"""The library's sentence-encoder vectors (minilm.py): a derived store beside the LSA vectors.

``<library>/encoded/`` holds ``ids.npy`` and ``vectors.npy`` (int16 unit rows times
store.SCALE, as the LSA store keeps them), written by ``numpy.save`` and read with
``allow_pickle=False``, and ``encoded.json`` naming the store's version, the model, and each
file's CRC-32 and size. The manifest is written last and removed first: a build killed midway
reads as missing and is done again. ``ensure`` keeps the rows of papers still in the library,
encodes the papers added (CHUNK at a time, with progress) and drops the ones gone.

Encoding costs ~20-40 ms an abstract on two cores (the network is small, the abstracts are
many), so libraries past MAX_PAPERS are not encoded: their searches use LSA alone. Until the
store covers every paper of the index, searches use LSA alone too (``covers``).
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from desk.core.runtime.logs import logger
from desk.core.semantic import minilm
from desk.core.semantic.store import SCALE, file_crc, quantize

log = logger(__name__)
Progress = Callable[[int, int], None]
Abstracts = Callable[[Sequence[int]], dict[int, str]]

STORE_VERSION = 1
MODEL_NAME = "all-MiniLM-L6-v2"
DIR_NAME = "encoded"
MANIFEST_NAME = "encoded.json"
SWITCH = "DESK_SENTENCE_ENCODER"  # "0": no sentence encoder, even when its model is installed
MAX_TOKENS = 128  # an abstract's first 128 word pieces: its title-like opening and aims
MAX_PAPERS = 30_000  # ~15 minutes of both cores; a conference list is 3-7k abstracts
CHUNK = 256  # abstracts read and encoded between two progress reports
QUERIES_KEPT = 512  # query vectors kept, 1.5 KB each (typing a query searches its words again and again)
PROBLEM_PREFIX = "sentence-encoder vectors:"  # how each of ``problems`` begins
CHECKPOINT_CHUNKS = 8  # chunks encoded between two writes of the store (a kill loses at most these)


_MODELS: dict[Path, minilm.MiniLM] = {}  # model folder -> the encoder loaded from it
_MODELS_LOCK = threading.Lock()


class EncodedVectors:
    """The encoder store of one library folder; safe to use from several threads."""

    def __init__(self, directory: Path, model_folder: Path | bool | None = True) -> None:
        """Use the store in ``directory``; ``model_folder``: the model's files (True: the
        installed package's, False or None: no encoder, the store is never built)."""
        self.directory = Path(directory)
        if model_folder is True:  # DESK_SENTENCE_ENCODER=0 turns the encoder off (LSA alone)
            model_folder = minilm.model_folder() if os.environ.get(SWITCH, "1") != "0" else None
        self._folder = model_folder or None
        self._model: minilm.MiniLM | None = None
        self.ids: np.ndarray | None = None  # ascending, as stored
        self.vectors: np.ndarray | None = None  # int16 rows
        self._floats: np.ndarray | None = None
        self._queries: dict[str, np.ndarray] = {}  # query text -> its vector (QUERIES_KEPT at most)
        self._queries_lock = threading.Lock()
        self._covered: tuple[int, np.ndarray, bool] | None = None  # (id of store, ids array, covers)

    @property
    def available(self) -> bool:
        """Whether the encoder's model is installed (else searches use LSA alone)."""
        return self._folder is not None

    def model(self) -> minilm.MiniLM:
        """The encoder, loaded on first use (~90 MB of weights, read once a process)."""
        with _MODELS_LOCK:
            if self._model is None:
                if self._folder is None:
                    raise minilm.ModelError(f"the {MODEL_NAME} model is not installed")
                if self._folder not in _MODELS:
                    _MODELS[self._folder] = minilm.MiniLM(self._folder)
                self._model = _MODELS[self._folder]
            return self._model

    # ---- the store on disk ----------------------------------------------------------------

    def load(self) -> bool:
        """Read the store if it is sound and of this version; True when it was."""
        try:
            manifest = json.loads((self.directory / MANIFEST_NAME).read_text(encoding="utf-8"))
            if manifest.get("version") != STORE_VERSION or manifest.get("model") != MODEL_NAME:
                return False
            if manifest.get("max_tokens") != MAX_TOKENS:
                return False
            arrays = {}
            for name in ("ids", "vectors"):
                path = self.directory / f"{name}.npy"
                entry = manifest["files"][name]
                if path.stat().st_size != entry["size"] or file_crc(path) != entry["crc32"]:
                    return False
                arrays[name] = np.load(path, allow_pickle=False)
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return False
        ids, vectors = arrays["ids"], arrays["vectors"]
        shape = (len(ids), minilm.DIMENSIONS)
        if ids.dtype != np.int64 or vectors.dtype != np.int16 or vectors.shape != shape:
            return False
        self._set(ids, vectors)
        return True

    def _set(self, ids: np.ndarray, vectors: np.ndarray) -> None:
        self.ids, self.vectors = ids, vectors
        self._floats = None  # the vectors as float32, made when first needed
        self._covered = None

    def _write(self, ids: np.ndarray, vectors: np.ndarray) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        manifest_path = self.directory / MANIFEST_NAME
        manifest_path.unlink(missing_ok=True)  # removed first: a write cut short reads as missing
        files = {}
        for name, array in (("ids", ids), ("vectors", vectors)):
            path = self.directory / f"{name}.npy"
            partial = path.with_suffix(".npy.partial")
            with partial.open("wb") as f:
                np.save(f, array, allow_pickle=False)
                f.flush()
                os.fsync(f.fileno())
            os.replace(partial, path)
            files[name] = {"crc32": file_crc(path), "size": path.stat().st_size}
        manifest = {
            "version": STORE_VERSION,
            "model": MODEL_NAME,
            "max_tokens": MAX_TOKENS,
            "count": len(ids),
            "files": files,
        }
        partial = manifest_path.with_suffix(".json.partial")
        partial.write_text(json.dumps(manifest, indent=1), encoding="utf-8")
        os.replace(partial, manifest_path)

    # ---- keeping up with the database -----------------------------------------------------

    def wanted(self, ids: Sequence[int] | np.ndarray) -> bool:
        """Whether a library of ``ids`` is encoded at all (the model installed, not too large)."""
        return self.available and 0 < len(ids) <= MAX_PAPERS

    def pending(self, ids: Sequence[int] | np.ndarray) -> bool:
        """True when ``ensure`` has work to do for a library holding ``ids``."""
        if not self.wanted(ids):
            return False
        if self.ids is None and not self.load():
            return True
        assert self.ids is not None
        wanted = np.unique(np.asarray(ids, np.int64))
        return len(wanted) != len(self.ids) or bool(np.any(wanted != self.ids))

    def missing(self, ids: Sequence[int] | np.ndarray) -> int:
        """How many papers of ``ids`` the store has no vector for (0 when none are wanted)."""
        if not self.wanted(ids):
            return 0
        if self.ids is None and not self.load():
            return len(np.unique(np.asarray(ids, np.int64)))
        assert self.ids is not None
        return int(np.count_nonzero(~np.isin(np.asarray(ids, np.int64), self.ids)))

    def ensure(
        self,
        ids: Sequence[int] | np.ndarray,
        abstracts: Abstracts,
        progress: Progress | None = None,
        cancel: threading.Event | None = None,
    ) -> str | None:
        """Encode the papers of ``ids`` the store lacks, drop those gone; what was done or None.

        Raises OSError when the store cannot be written, ModelError when the model cannot be read.
        Setting ``cancel`` stops between chunks; the papers encoded so far are kept in memory.
        """
        if not self.pending(ids):
            return None
        wanted = np.unique(np.asarray(ids, np.int64))
        old_ids = self.ids if self.ids is not None else np.zeros(0, np.int64)
        old_vectors = self.vectors if self.vectors is not None else np.zeros((0, minilm.DIMENSIONS), np.int16)
        keep = np.isin(old_ids, wanted)
        missing = wanted[~np.isin(wanted, old_ids)]
        model = self.model() if len(missing) else None
        parts_ids, parts_vectors = [old_ids[keep]], [old_vectors[keep]]
        # Every core for the products: a one-shot command starts BLAS with one thread (blas.py).
        # Imported here: once loaded, BLAS products are limited around each call (blas.pinned).
        from threadpoolctl import threadpool_limits  # type: ignore[import-untyped]

        with threadpool_limits(os.cpu_count() or 1):
            for lo in range(0, len(missing), CHUNK):
                if cancel is not None and cancel.is_set():
                    return None
                chunk = missing[lo : lo + CHUNK]
                texts = abstracts(chunk.tolist())
                assert model is not None
                parts_ids.append(chunk)
                encoded = model.encode([texts.get(int(i), "") for i in chunk], MAX_TOKENS)
                parts_vectors.append(quantize(encoded))
                if progress is not None:
                    progress(min(lo + CHUNK, len(missing)), len(missing))
                if (lo // CHUNK + 1) % CHECKPOINT_CHUNKS == 0:  # a build cut short resumes from here
                    self._commit(parts_ids, parts_vectors)
        self._commit(parts_ids, parts_vectors)
        return "encoded" if len(old_ids) == 0 else "updated"

    def _commit(self, parts_ids: list[np.ndarray], parts_vectors: list[np.ndarray]) -> None:
        """Use and write the rows encoded so far (the parts joined in id order)."""
        all_ids = np.concatenate(parts_ids)
        order = np.argsort(all_ids, kind="stable")
        ids_sorted, vectors_sorted = all_ids[order], np.concatenate(parts_vectors)[order]
        self._set(ids_sorted, vectors_sorted)
        self._write(ids_sorted, vectors_sorted)

    def problems(self, ids: Sequence[int]) -> list[str]:
        """How the store on disk differs from a sound one for the papers ``ids`` (empty: agrees)."""
        if not self.wanted(ids):
            return []
        probe = EncodedVectors(self.directory, self._folder)
        if not probe.load():
            return [f"{PROBLEM_PREFIX} missing, damaged or of another version"]
        assert probe.ids is not None
        stored, wanted = set(probe.ids.tolist()), set(ids)
        problems = []
        for label, gone in (("missing from", wanted - stored), ("extra in", stored - wanted)):
            if gone:
                shown = ", ".join(map(str, sorted(gone)[:10])) + (" …" if len(gone) > 10 else "")
                problems.append(f"{PROBLEM_PREFIX} {len(gone)} papers {label} the store ({shown})")
        return problems

    # ---- queries --------------------------------------------------------------------------

    def covers(self, ids: np.ndarray, alive: np.ndarray) -> bool:
        """Whether every live paper of ``ids`` (an index's, with its ``alive`` mask) has a vector."""
        if self.ids is None:
            return False
        cached = self._covered
        if cached is not None and cached[0] == id(self.ids) and cached[1] is ids:
            return cached[2]
        live = ids[alive[: len(ids)]] if len(alive) >= len(ids) else ids
        rows = np.minimum(np.searchsorted(self.ids, live), max(0, len(self.ids) - 1))
        covered = bool(len(self.ids)) and bool(np.all(self.ids[rows] == live))
        self._covered = (id(self.ids), ids, covered)
        return covered

    def query_vector(self, text: str) -> np.ndarray | None:
        """The unit vector of a query's text (the last few kept: typing repeats them)."""
        text = " ".join(text.split())
        if not text or self._folder is None:
            return None
        with self._queries_lock:
            found = self._queries.get(text)
        return found if found is not None else self._encode_query(text)

    def _encode_query(self, text: str) -> np.ndarray:
        vec = self.model().encode([text], MAX_TOKENS)[0]
        with self._queries_lock:
            if len(self._queries) >= QUERIES_KEPT:
                self._queries.clear()
            self._queries[text] = vec
        return vec

    def cosines_of(self, vec: np.ndarray, ids: np.ndarray) -> np.ndarray:
        """Cosine of ``vec`` with each paper of ``ids`` (0 for a paper without a vector)."""
        stored_ids, vectors = self.ids, self.vectors
        ids = np.asarray(ids, np.int64)
        if stored_ids is None or vectors is None or not len(stored_ids) or not len(ids):
            return np.zeros(len(ids), np.float32)
        rows = np.minimum(np.searchsorted(stored_ids, ids), len(stored_ids) - 1)
        query = vec.astype(np.float32) / np.float32(SCALE)
        if len(rows) > len(stored_ids) // 8:  # most papers (a query that lets papers join): all at once
            floats = self._floats
            if floats is None or len(floats) != len(vectors):
                # float32 once, not at every query (at most MAX_PAPERS x 384: 46 MB)
                floats = self._floats = vectors.astype(np.float32)
            products = (floats @ query)[rows]
        else:
            products = vectors[rows].astype(np.float32) @ query
        return np.where(stored_ids[rows] == ids, products, np.float32(0)).astype(np.float32)
