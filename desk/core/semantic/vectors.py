"""SemanticVectors: the library's paper vectors, kept in step with the database, and queries over them.

The vectors are derived data, built after an import (never on its critical path): until they
are ready, search and related papers answer from words alone. ``ensure`` brings the store up
to date: a missing, corrupt or old-version store is refitted from every abstract; papers added
since are placed by the fitted model (fold-in), papers gone are dropped; once the library has
more than doubled since the fit, the model is refitted on it. Each row is keyed by the paper's
id and the key of the text it was computed from (keys.py): a row whose paper is gone or holds
another text is dropped and the paper placed again; a paper absent when its text is read (in
the trash meanwhile) is left for the next ``ensure``, never placed from an empty text.
"""

from __future__ import annotations

import contextlib
import sys
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, Literal

import numpy as np

from desk.core.runtime.logs import logger
from desk.core.semantic import blas, lsa, store
from desk.core.semantic.keys import Keys, Papers, Texts, key_problems, matching, write_lock
from desk.core.semantic.store import StoreError, StoreState, Vectors

log = logger(__name__)  # logging imported when something is logged (desk/core/runtime/logs.py)
Progress = Callable[[int, int], None]

FIT_SAMPLE = 5000  # papers the model is fitted on at most (a seeded sample beyond): bounds the fit's cost
CHUNK = 2000  # papers read and encoded at once
COSINES_KEPT = 4  # query vectors whose cosines with every paper are kept (4 bytes a paper each)
#: Ids arrays (an index generation's) whose store rows are kept: 17 bytes a paper each, and each
#: holds its array (a window's edits make a generation each; nine held 150 MB at a million papers).
MAPS_KEPT = 2
REFIT_GROWTH = 2.0  # refit when the library holds this many times the papers the model saw


class SemanticVectors:
    """The vector store of one library folder; safe to use from several threads."""

    def __init__(self, directory: Path) -> None:
        """Use the store in directory (nothing is read until load or ensure)."""
        self.directory = Path(directory)
        self._current: Vectors | None = None
        self._building = threading.Lock()
        # id(ids array), id(store) -> (that array, its rows, which have one); the array is held
        # so its id cannot be reused by another while cached
        self._maps: dict[tuple[int, int], tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
        # (query vector's bytes, id of the ids, id of the store) -> (ids, store, cosines)
        self._cosines: OrderedDict[tuple[bytes, int, int], tuple[np.ndarray, Vectors, np.ndarray]]
        self._cosines = OrderedDict()

    @property
    def current(self) -> Vectors | None:
        """The vectors in use, or None before they are loaded or built."""
        return self._current

    def load(self, verify: bool | Literal["changed"] = True) -> StoreState:
        """Read the store from disk if it is sound (it may still lag behind the database);
        ``verify``: as store.read's ("changed": a one-shot search's)."""
        try:
            self._set(store.read(self.directory, verify))
        except StoreError as exc:
            return exc.state
        except OSError:
            log.debug("semantic vectors unreadable", exc_info=True)
            return StoreState.CORRUPT
        return StoreState.OK

    def _set(self, data: Vectors | None) -> None:
        self._current = data
        self._maps.clear()
        self._cosines.clear()

    # ---- keeping up with the database -----------------------------------------------------

    def pending(self, ids: Sequence[int] | np.ndarray, keys: np.ndarray | None = None) -> bool:
        """True when ``ensure`` has work to do for a library holding ``ids`` (distinct), with the
        ``keys`` of their texts (keys.py; ascending ids then) when given."""
        data = self._current
        if data is None:
            return True
        if keys is not None:
            wanted_ids = np.asarray(ids, np.int64)
            return len(wanted_ids) != len(data.ids) or not bool(
                np.all(matching(data.ids, data.row_keys, wanted_ids, keys))
            )
        wanted = np.sort(np.asarray(ids, np.int64))  # not sorted(): a million numpy scalars
        return len(wanted) != len(data.ids) or bool(np.any(wanted != data.ids))

    def ensure(
        self, papers: Papers, progress: Progress | None = None, known: Keys | None = None
    ) -> str | None:
        """Bring the store up to date for the library's ``papers``; what was done ("built", …)
        or None. ``known``: ``papers.keys()`` just read.

        Raises OSError when the store cannot be written (the vectors in memory are still used).
        """
        ids, keys = known if known is not None else papers.keys()
        with self._building:
            if self._current is None:
                found = self.load()
                if found is not StoreState.OK and not len(ids):
                    return None
            else:
                found = StoreState.OK
            if not self.pending(ids, keys):
                if self._current is not None and store.stored_as_floats(self.directory):
                    # Written as floats before: the same vectors again as int16, read as they are
                    # from now on (not a change of the vectors: nothing to say).
                    with contextlib.suppress(OSError):
                        store.write(self.directory, self._current)
                        self._map_written()
                return None
            data = self._current
            stale = 0 if data is None else _stale(data, ids, keys)
            if data is None or len(ids) > REFIT_GROWTH * max(1, data.fitted_on):
                reason = "built" if found is StoreState.MISSING or data is None else "refitted"
                if found not in (StoreState.OK, StoreState.MISSING):
                    reason = f"rebuilt ({found.name.lower().replace('_', ' ')})"
                fresh = _build(ids, papers, progress)
            else:
                reason = "updated"
                fresh = _update(data, ids, keys, papers, progress)
            if stale:
                reason = f"rebuilt ({stale} papers' vectors were computed from another text)"
            self._write_checked(fresh, papers)
            return reason

    def _write_checked(self, fresh: Vectors, papers: Papers) -> None:
        """Use ``fresh`` and write it, less any row whose paper changed since its text was read:
        checked and written inside the library's derived-store lock, which ``desk restore`` holds
        while it drops the stores (keys.py)."""
        with write_lock(self.directory.parent):
            now_ids, now_keys = papers.keys()
            ok = matching(fresh.ids, fresh.row_keys, now_ids, now_keys)
            if not bool(np.all(ok)):
                fresh = Vectors(
                    fresh.ids[ok], fresh.vectors[ok], fresh.model, fresh.fitted_on, keys=fresh.row_keys[ok]
                )
            self._set(fresh)
            store.write(self.directory, fresh)
        self._map_written()

    def stored_as_floats(self) -> bool:
        """Whether the store on disk holds float vectors (written before int16): ``ensure`` writes
        them again as int16, which are mapped, not held whole (see store.read)."""
        return store.stored_as_floats(self.directory)

    def _map_written(self) -> None:
        """Use the store just written from its file (mapped: see store.read) instead of the
        arrays built in memory (a million papers' vectors are 384 MB)."""
        try:
            self._set(store.read(self.directory, verify=False))
        except (StoreError, OSError):
            log.debug("the semantic vectors just written could not be read back", exc_info=True)

    def problems(self, ids: Sequence[int] | np.ndarray, keys: np.ndarray | None = None) -> list[str]:
        """How the store on disk differs from a sound store of the papers ``ids`` (ascending,
        with the ``keys`` of their texts when given; empty: agrees)."""
        try:
            data = store.read(self.directory)
        except StoreError as exc:
            if exc.state is StoreState.MISSING and not len(ids):
                return []
            return [f"semantic vectors: {exc}"]
        return key_problems("semantic vectors:", data.ids, data.row_keys, ids, keys)

    # ---- queries --------------------------------------------------------------------------

    def query_vector(self, stems: Sequence[str]) -> np.ndarray | None:
        """The unit vector of a query's stemmed words, or None (no vectors yet, or no known word)."""
        data = self._current
        if data is None or not stems:
            return None
        vec = data.model.encode_terms([list(stems)])[0]
        return vec if float(np.dot(vec, vec)) > 0 else None

    def vector_of(self, paper_id: int) -> np.ndarray | None:
        """The stored vector of a paper, or None."""
        data = self._current
        if data is None:
            return None
        row = int(np.searchsorted(data.ids, paper_id))
        if row >= len(data.ids) or data.ids[row] != paper_id:
            return None
        vec = data.rows(row)
        return vec if float(np.dot(vec, vec)) > 0 else None

    def cosines(self, vec: np.ndarray, ids: np.ndarray) -> np.ndarray:
        """Cosine of ``vec`` with each paper of ``ids`` (0 for a paper without a vector; read-only).

        The answers for the last few query vectors are kept: as the last word of a query is
        typed letter by letter (a prefix, not yet a word of the vector), the vector stays the
        same, and the product over every paper's vector is the search's largest single cost.
        """
        data = self._current
        if data is None:
            return np.zeros(len(ids), np.float32)
        query = vec.astype(np.float32)
        key = (query.tobytes(), id(ids), id(data))
        kept = self._cosines.get(key)
        if kept is not None and kept[0] is ids and kept[1] is data:
            self._cosines.move_to_end(key)
            return kept[2]
        rows, known = self._rows(data, ids)
        if not len(data.ids):
            return np.zeros(len(ids), np.float32)
        with one_blas_thread():  # one pass over the contiguous store, a chunk converted at a time
            by_row = data.products(query)
        out = np.where(known, by_row[rows], np.float32(0)).astype(np.float32)
        out.setflags(write=False)
        self._cosines[key] = (ids, data, out)
        if len(self._cosines) > COSINES_KEPT:
            self._cosines.popitem(last=False)
        return out

    def cosines_of(self, vec: np.ndarray, ids: np.ndarray) -> np.ndarray:
        """Cosine of ``vec`` with the papers ``ids`` alone (0 for a paper without a vector).

        Reads only those papers' rows: a search whose words found a page of papers needs their
        cosines, not the product over every paper (a million rows, most of a search's time).
        """
        data = self._current
        ids = np.asarray(ids, dtype=np.int64)
        if data is None or not len(data.ids) or not len(ids):
            return np.zeros(len(ids), np.float32)
        rows = np.minimum(np.searchsorted(data.ids, ids), len(data.ids) - 1)
        known = data.ids[rows] == ids
        products = data.products_at(rows, vec)
        return np.where(known, products, np.float32(0)).astype(np.float32)

    def _rows(self, data: Vectors, ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Store rows of ``ids`` and which have one (cached per ids array and store)."""
        key = (id(ids), id(data))
        cached = self._maps.get(key)
        if cached is not None and cached[0] is ids:
            return cached[1], cached[2]
        rows = np.searchsorted(data.ids, ids)
        rows = np.minimum(rows, max(0, len(data.ids) - 1))
        known = (data.ids[rows] == ids) if len(data.ids) else np.zeros(len(ids), bool)
        if len(self._maps) >= MAPS_KEPT:
            self._maps.clear()
        self._maps[key] = (ids, rows, known)
        return rows, known


#: threadpoolctl's controller and len(sys.modules) when it was made: it lists the BLAS libraries
#: loaded then, so it is made again once modules were imported since (SciPy brings its own OpenBLAS).
_CONTROLLER: list[tuple[int, Any]] = []


@contextlib.contextmanager
def one_blas_thread() -> Iterator[None]:
    """BLAS on one thread for a query's product: a matrix-vector product is memory-bound, and
    OpenBLAS's second thread spins against the window's threads and other processes on a busy
    2-core machine (10k x 192 under load: ~4 ms on one thread, 16-80 ms on two)."""
    if blas.pinned():  # OpenBLAS started with one thread (the command line): nothing to limit
        yield
        return
    try:
        if not _CONTROLLER or _CONTROLLER[0][0] != len(sys.modules):
            from threadpoolctl import ThreadpoolController  # type: ignore[import-untyped]

            _CONTROLLER[:] = [(len(sys.modules), ThreadpoolController())]
        limit = _CONTROLLER[0][1].limit(limits=1, user_api="blas")
    except Exception:  # pragma: no cover - without threadpoolctl the product runs as BLAS likes
        yield
        return
    with limit:
        yield


def _stale(data: Vectors, ids: np.ndarray, keys: np.ndarray) -> int:
    """How many rows of ``data`` hold a paper of ``ids`` computed from another text than its own."""
    present = np.isin(data.ids, ids)
    return int(np.count_nonzero(present & ~matching(data.ids, data.row_keys, ids, keys)))


def _terms_of(ids: np.ndarray, papers: Papers) -> tuple[np.ndarray, np.ndarray, list[list[str]]]:
    """(ids present, their keys, their terms) of the papers ``ids``: those gone meanwhile are left out."""
    texts: Texts = papers.texts([int(i) for i in ids])
    present = np.array([i for i in ids.tolist() if i in texts], np.int64)
    keys = np.array([texts[i][0] for i in present.tolist()], np.int64)
    return present, keys, [lsa.terms(texts[i][1]) for i in present.tolist()]


def _encode(
    model: lsa.LsaModel,
    ids: np.ndarray,
    papers: Papers,
    progress: Progress | None,
    done: int,
    total: int,
    known: dict[int, tuple[int, list[str]]] | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(ids, keys, vectors) of the papers ``ids`` still present, in chunks; ``known`` holds the
    keys and terms already read (the fit's sample)."""
    id_parts, key_parts, parts = [np.zeros(0, np.int64)], [np.zeros(0, np.int64)], []
    for start in range(0, len(ids), CHUNK):
        chunk = ids[start : start + CHUNK]
        missing = chunk if not known else np.array([i for i in chunk.tolist() if i not in known], np.int64)
        read: dict[int, tuple[int, list[str]]] = {}
        if len(missing):
            present, keys, terms = _terms_of(missing, papers)
            read = dict(zip(present.tolist(), zip(keys.tolist(), terms, strict=True), strict=True))
        placed = [i for i in chunk.tolist() if (known and i in known) or i in read]
        docs = [(known[i] if known and i in known else read[i]) for i in placed]
        if docs:
            id_parts.append(np.array(placed, np.int64))
            key_parts.append(np.array([key for key, _ in docs], np.int64))
            parts.append(model.encode_terms([terms for _, terms in docs]))
        if progress is not None:
            progress(done + start + len(chunk), total)
    k = model.components.shape[1]
    vectors = np.concatenate(parts) if parts else np.zeros((0, k), np.float32)
    return np.concatenate(id_parts), np.concatenate(key_parts), vectors


def _build(ids: np.ndarray, papers: Papers, progress: Progress | None) -> Vectors:
    """Fit the model on (a sample of) the papers and place every one of them (each read once)."""
    sample = ids
    if len(ids) > FIT_SAMPLE:
        sample = np.sort(np.random.default_rng(lsa.SEED).choice(ids, FIT_SAMPLE, replace=False))
    total = len(ids) + len(sample)
    present, keys, sample_terms = _terms_of(sample, papers)
    model = _fit(sample_terms)
    if progress is not None:
        progress(len(sample), total)
    known = dict(zip(present.tolist(), zip(keys.tolist(), sample_terms, strict=True), strict=True))
    placed, placed_keys, vectors = _encode(model, ids, papers, progress, len(sample), total, known)
    return Vectors(placed, vectors, model, len(present), keys=placed_keys)


def _fit(docs: list[list[str]]) -> lsa.LsaModel:
    if blas.pinned():  # one thread already (the command line)
        return lsa.fit(docs)
    try:  # OpenBLAS's threads fight other processes for the cores: one thread is faster then
        from threadpoolctl import threadpool_limits  # type: ignore[import-untyped]
    except ImportError:  # pragma: no cover - a dependency, but the fit works without it
        return lsa.fit(docs)
    with threadpool_limits(1):
        return lsa.fit(docs)


def _update(
    data: Vectors, ids: np.ndarray, keys: np.ndarray, papers: Papers, progress: Progress | None
) -> Vectors:
    """The store for the papers ``ids`` with ``keys``: rows of papers gone or of another text
    dropped, the papers lacking a row placed by the fitted model."""
    keep = matching(data.ids, data.row_keys, ids, keys)
    added = ids[~np.isin(ids, data.ids[keep])]
    placed, placed_keys, new = _encode(data.model, added, papers, progress, 0, len(added))
    all_ids = np.concatenate([data.ids[keep], placed])
    all_keys = np.concatenate([data.row_keys[keep], placed_keys])
    all_vecs = np.concatenate([data.vectors[keep], store.quantize(new)])
    order = np.argsort(all_ids, kind="stable")
    return Vectors(all_ids[order], all_vecs[order], data.model, data.fitted_on, keys=all_keys[order])
