"""The library's sentence-encoder vectors (minilm.py): a derived store beside the LSA vectors.

``<library>/encoded/`` holds each paper's id, the key of the text its row was computed from
(keys.py) and its int8 row (rows8.py, 388 bytes a paper, mapped, not read), checksummed, the
manifest written last (encoded_files.py): a build killed midway reads as missing and is done
again. ``ensure`` keeps the rows of papers still in the library with the text they were computed
from, encodes the papers lacking one (a chunk at a time, with progress; a paper absent when its
text is read is left for the next round, never encoded from an empty text) and drops the rest.

A store of version 2 (int16 rows, twice the size) is converted when read, never encoded again;
the conversion is written back inside the derived-store lock, unless the store changed meanwhile.

Encoding costs ~20-40 ms an abstract on two cores (the network is small, the abstracts are
many): a large library is hours of work, so every library is encoded, in the order a reader
needs (encoded_build.py: the papers in view, then unread before read, newest first), and
searches fuse the rows there are while the build goes on (fusion.mixed_cosines), once a query's
first hits all have theirs (fusion.ENCODED_HEAD). Those few are encoded on the spot
(``encode_now``), held in memory beside the store until the builder's rows hold them.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from desk.core.runtime.logs import logger
from desk.core.semantic import fusion, minilm, neighbours, rows8
from desk.core.semantic.encoded_build import (
    Checkpoints,
    build_order,
    chunk_size,
    encode_side_by_side,
    one_blas_thread,
)
from desk.core.semantic.encoded_files import (
    CONVERTED_VERSION,
    MANIFEST_NAME,
    ask_first,
    first_ids,
    first_stamp,
    manifest_stamp,
    read_store,
    write_store,
)
from desk.core.semantic.keys import Keys, Papers, key_problems, matching, write_lock

log = logger(__name__)
Progress = Callable[[int, int], None]

MODEL_NAME = "all-MiniLM-L6-v2"
DIR_NAME = "encoded"
SWITCH = "DESK_SENTENCE_ENCODER"  # "0": no sentence encoder, even when its model is installed
MAX_TOKENS = 128  # an abstract's first 128 word pieces: its title-like opening and aims
SPOT_MAX = fusion.ENCODED_HEAD  # a search's candidates encoded on the spot at most (~0.4 s on two cores)
QUERIES_KEPT = 512  # query vectors kept, 1.5 KB each (typing a query searches its words again and again)
PROBLEM_PREFIX = "sentence-encoder vectors:"  # how each of ``problems`` begins


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
        self.keys: np.ndarray | None = None  # the key of each row's text (keys.py)
        self.vectors: np.ndarray | None = None  # rows8.ROW rows, mapped from the store's file
        self._pages: rows8.Pages | None = None  # the mapping they are read from
        self.stamp = 0  # the CRC-32 of the rows' file: what an index of them was built from
        self.neighbours = neighbours.Neighbours(self.directory / neighbours.DIR_NAME)
        self._queries: dict[str, np.ndarray] = {}  # query text -> its vector (QUERIES_KEPT at most)
        self._queries_lock = threading.Lock()
        self._covered: tuple[int, np.ndarray, bool] | None = None  # (id of store, ids array, covers)
        # Rows encoded on the spot (encode_now) that the store does not hold: id -> (key, float32 unit row).
        self._spot: dict[int, tuple[int, np.ndarray]] = {}
        self._lock = threading.RLock()  # the arrays are swapped whole (load) while searches read them
        self._loaded: tuple[int, int] | None = None  # the manifest's (mtime, size) as last read

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
        """Read the store if it is sound and of this version (or the one before: converted);
        True when it was."""
        stored = read_store(self.directory, MODEL_NAME, MAX_TOKENS)
        if stored is None:
            return False
        self._set(stored.ids, stored.keys, stored.vectors, stored.pages)
        self.stamp = stored.stamp
        self._loaded = stored.loaded
        if stored.version == CONVERTED_VERSION:
            self._convert(stored.manifest)
        return True

    def changed(self) -> bool:
        """Whether the store on disk was written since it was read here (a builder's checkpoint)."""
        try:
            return manifest_stamp(self.directory) != self._loaded
        except OSError:
            return False

    def _convert(self, read: str) -> None:
        """Write the rows just converted from an older store in this version, unless the store
        changed since its manifest ``read`` was read (inside the derived-store lock, as every
        write of it: a builder's commit or ``desk restore``'s drop is not undone)."""
        assert self.ids is not None and self.keys is not None and self.vectors is not None
        try:
            with write_lock(self.directory.parent):
                if (self.directory / MANIFEST_NAME).read_text(encoding="utf-8") != read:
                    return
                self._write(self.ids, self.keys, self.vectors)
            self._loaded = manifest_stamp(self.directory)  # its own write: nothing to load again
        except OSError:  # a read-only folder: converted again at the next read
            log.debug("the sentence-encoder vectors could not be written converted", exc_info=True)

    def _set(
        self, ids: np.ndarray, keys: np.ndarray, vectors: np.ndarray, pages: rows8.Pages | None = None
    ) -> None:
        with self._lock:
            self.ids, self.keys, self.vectors, self._pages = ids, keys, vectors, pages
            self._covered = None
            if self._spot:  # rows encoded on the spot that the store now holds are its own
                spot_ids = np.array(sorted(self._spot), np.int64)
                spot_keys = np.array([self._spot[i][0] for i in spot_ids.tolist()], np.int64)
                held = set(ids[matching(ids, keys, spot_ids, spot_keys)].tolist())
                self._spot = {i: row for i, row in self._spot.items() if i not in held}

    def _arrays(self) -> tuple[np.ndarray | None, np.ndarray | None]:
        """The ids and the rows, read together (a load swaps them from another thread)."""
        with self._lock:
            return self.ids, self.vectors

    def _write(self, ids: np.ndarray, keys: np.ndarray, vectors: np.ndarray) -> None:
        self.stamp = write_store(self.directory, ids, keys, vectors, MODEL_NAME, MAX_TOKENS)

    # ---- keeping up with the database -----------------------------------------------------

    def wanted(self, ids: Sequence[int] | np.ndarray) -> bool:
        """Whether a library of ``ids`` is encoded at all (the model installed, any paper: every
        library is encoded, whatever its size)."""
        return self.available and len(ids) > 0

    def _kept(self, ids: Sequence[int] | np.ndarray, keys: np.ndarray | None) -> np.ndarray:
        """Which rows held are of a paper of ``ids`` (ascending when ``keys`` is given) and, with
        ``keys``, of its text now."""
        assert self.ids is not None and self.keys is not None
        if keys is None:
            return np.isin(self.ids, np.asarray(ids, np.int64))
        return matching(self.ids, self.keys, np.asarray(ids, np.int64), keys)

    def pending(self, ids: Sequence[int] | np.ndarray, keys: np.ndarray | None = None) -> bool:
        """True when ``ensure`` has work to do for a library holding ``ids`` (with the ``keys``
        of their texts, ascending ids then, when given)."""
        if not self.wanted(ids):
            return False
        if self.ids is None and not self.load():
            return True
        assert self.ids is not None
        wanted = np.unique(np.asarray(ids, np.int64))
        if len(wanted) != len(self.ids):
            return True
        return not bool(np.all(self._kept(wanted, keys) if keys is not None else wanted == self.ids))

    def missing(self, ids: Sequence[int] | np.ndarray, keys: np.ndarray | None = None) -> int:
        """How many papers of ``ids`` the store has no vector for, of their text now when
        ``keys`` are given (0 when none are wanted)."""
        if not self.wanted(ids):
            return 0
        if self.ids is None and not self.load():
            return len(np.unique(np.asarray(ids, np.int64)))
        assert self.ids is not None
        return len(np.unique(np.asarray(ids, np.int64))) - int(np.count_nonzero(self._kept(ids, keys)))

    def ensure(
        self,
        papers: Papers,
        progress: Progress | None = None,
        cancel: threading.Event | None = None,
        known: Keys | None = None,
        read: np.ndarray | None = None,
    ) -> str | None:
        """Encode the library's ``papers`` the store lacks a row of their text for, drop the
        other rows; what was done or None. ``known``: ``papers.keys()`` just read; ``read``: the
        ids of the papers read (encoded after the unread: ``build_order``).

        Raises OSError when the store cannot be written, ModelError when the model cannot be read.
        Setting ``cancel`` stops between chunks; the papers encoded so far are kept in memory.
        A paper absent when its chunk is read (in the trash meanwhile) is not encoded: the store
        stays pending, and the next round (build.py) encodes it if it is back.
        """
        wanted, wanted_keys = known if known is not None else papers.keys()
        if not self.pending(wanted, wanted_keys):
            return None
        old_ids = self.ids if self.ids is not None else np.zeros(0, np.int64)
        old_keys = self.keys if self.keys is not None else np.zeros(0, np.int64)
        old_vectors = self.vectors if self.vectors is not None else rows8.empty()
        keep = matching(old_ids, old_keys, wanted, wanted_keys)
        missing = wanted[~np.isin(wanted, old_ids[keep])]
        model = self.model() if len(missing) else None
        parts_ids, parts_keys, parts_vectors = [old_ids[keep]], [old_keys[keep]], [old_vectors[keep]]
        read_ids = np.asarray(read if read is not None else np.zeros(0, np.int64), np.int64)
        first, first_seen = self.first(), first_stamp(self.directory)
        queue = build_order(missing, read_ids, first)
        size, done, checkpoints = chunk_size(), 0, Checkpoints()
        with one_blas_thread():
            while len(queue):
                if cancel is not None and cancel.is_set():
                    return None
                if first_stamp(self.directory) != first_seen:  # the window shows other papers now
                    first, first_seen = self.first(), first_stamp(self.directory)
                    queue = build_order(queue, read_ids, first)
                chunk, queue = queue[:size], queue[size:]
                texts = papers.texts(chunk.tolist())  # each text read with its key, in one snapshot
                present = [i for i in chunk.tolist() if i in texts]
                assert model is not None
                if present:
                    parts_ids.append(np.array(present, np.int64))
                    parts_keys.append(np.array([texts[i][0] for i in present], np.int64))
                    parts_vectors.append(
                        rows8.quantize(encode_side_by_side(model, [texts[i][1] for i in present], MAX_TOKENS))
                    )
                done += len(chunk)
                if progress is not None:
                    progress(done, len(missing))
                due = checkpoints.chunk_done()
                if due and len(queue):  # a build cut short resumes here
                    started = time.monotonic()
                    self._commit(papers, parts_ids, parts_keys, parts_vectors)
                    checkpoints.wrote(started)
        self._commit(papers, parts_ids, parts_keys, parts_vectors)
        return "encoded" if len(old_ids) == 0 else "updated"

    # ---- what to encode first -------------------------------------------------------------

    def first(self) -> list[int]:
        """The ids a window asked to have encoded first (the papers in view; [] when none)."""
        return first_ids(self.directory)

    def ask_first(self, ids: Sequence[int]) -> None:
        """Have a builder at work encode the papers ``ids`` before the others (those in view);
        nothing when the store's folder cannot be written (encoded_files.ask_first)."""
        ask_first(self.directory, ids)

    def _commit(
        self,
        papers: Papers,
        parts_ids: list[np.ndarray],
        parts_keys: list[np.ndarray],
        parts_vectors: list[np.ndarray],
    ) -> None:
        """Use and write the rows encoded so far (the parts joined in id order), less those whose
        paper changed since its text was read: checked and written inside the library's
        derived-store lock, which ``desk restore`` holds while it drops the stores (keys.py)."""
        all_ids = np.concatenate(parts_ids)
        order = np.argsort(all_ids, kind="stable")
        ids = all_ids[order]
        keys = np.concatenate(parts_keys)[order]
        vectors = np.concatenate(parts_vectors)[order]
        with write_lock(self.directory.parent):
            now_ids, now_keys = papers.keys()
            ok = matching(ids, keys, now_ids, now_keys)
            if not bool(np.all(ok)):
                ids, keys, vectors = ids[ok], keys[ok], vectors[ok]
            self._set(ids, keys, vectors)
            self._write(ids, keys, vectors)

    def problems(self, ids: Sequence[int] | np.ndarray, keys: np.ndarray | None = None) -> list[str]:
        """How the store on disk differs from a sound one for the papers ``ids`` (ascending, with
        the ``keys`` of their texts when given; empty: agrees)."""
        if not self.wanted(ids):
            return []
        probe = EncodedVectors(self.directory, self._folder)
        if not probe.load():
            return [f"{PROBLEM_PREFIX} missing, damaged or of another version"]
        assert probe.ids is not None and probe.keys is not None
        return key_problems(PROBLEM_PREFIX, probe.ids, probe.keys, ids, keys)

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

    def count(self) -> int:
        """How many papers have a vector here (the store's rows and those encoded on the spot)."""
        ids, _ = self._arrays()
        return (len(ids) if ids is not None else 0) + len(self._spot)

    def held(self, ids: np.ndarray) -> np.ndarray:
        """Which papers of ``ids`` have a vector (a mask)."""
        stored_ids, _ = self._arrays()
        ids = np.asarray(ids, np.int64)
        if stored_ids is None or not len(stored_ids):
            out = np.zeros(len(ids), bool)
        else:
            rows = np.minimum(np.searchsorted(stored_ids, ids), len(stored_ids) - 1)
            out = stored_ids[rows] == ids
        spot = self._spot
        if spot:
            out |= np.isin(ids, np.fromiter(spot, np.int64, len(spot)))
        return out

    def cosines_of(self, vec: np.ndarray, ids: np.ndarray) -> np.ndarray:
        """Cosine of ``vec`` with each paper of ``ids`` (0 for a paper without a vector)."""
        ids = np.asarray(ids, np.int64)
        out = self._stored_cosines(vec, ids)
        spot = self._spot
        if spot and len(ids):
            query = vec.astype(np.float32)
            for at in np.flatnonzero(np.isin(ids, np.fromiter(spot, np.int64, len(spot)))).tolist():
                out[at] = spot[int(ids[at])][1] @ query
        return out

    def _stored_cosines(self, vec: np.ndarray, ids: np.ndarray) -> np.ndarray:
        with self._lock:  # the arrays of one store, not of a load's half-way point
            stored_ids, vectors, pages = self.ids, self.vectors, self._pages
        if stored_ids is None or vectors is None or not len(stored_ids) or not len(ids):
            return np.zeros(len(ids), np.float32)
        rows = np.minimum(np.searchsorted(stored_ids, ids), len(stored_ids) - 1)
        query = vec.astype(np.float32)
        if len(rows) > len(stored_ids) // 8:  # most papers (a query that lets papers join): all at once
            products = rows8.products(vectors, query, pages)[rows]
        else:
            products = rows8.products_at(vectors, rows, query)
        return np.where(stored_ids[rows] == ids, products, np.float32(0)).astype(np.float32)

    def encode_now(self, papers: Papers, ids: Sequence[int], limit: int = SPOT_MAX) -> int:
        """Encode at once the papers of ``ids`` (at most ``limit``, in the order given) that have
        no vector yet: a search's best candidates while a build is under way. Held in memory
        beside the store (a builder writes the store; its rows replace these when loaded).
        Returns how many were encoded (0 without the model)."""
        if self._folder is None or not len(ids):
            return 0
        wanted = np.asarray(list(ids), np.int64)
        lacking = wanted[~self.held(wanted)][:limit]
        if not len(lacking):
            return 0
        texts = papers.texts(lacking.tolist())
        present = [i for i in lacking.tolist() if i in texts]
        if not present:
            return 0
        # One batch, on this thread, with BLAS as the process has it (a window's: every core).
        rows = self.model().encode([texts[i][1] for i in present], MAX_TOKENS).astype(np.float32)
        with self._lock:
            spot = dict(self._spot)
            spot.update((i, (texts[i][0], rows[n])) for n, i in enumerate(present))
            self._spot = spot  # replaced whole: a search reading the old dict meanwhile is unharmed
        return len(present)

    def unit_rows(self) -> np.ndarray:
        """Every row as float32 (n × 384, in id order): for the map, which lays out all of them."""
        if self.vectors is None:
            return np.zeros((0, minilm.DIMENSIONS), np.float32)
        return rows8.floats(self.vectors)

    def vector_of(self, paper_id: int) -> np.ndarray | None:
        """The stored unit vector of a paper (float32), or None."""
        ids, vectors = self.ids, self.vectors
        if ids is None or vectors is None or not len(ids):
            return None
        row = int(np.searchsorted(ids, paper_id))
        if row >= len(ids) or ids[row] != paper_id:
            return None
        vec = rows8.floats(vectors[row : row + 1])[0]
        if self._pages is not None:  # one row read maps the pages around it (large folios): given back
            self._pages.release(0, len(vectors) * rows8.ROW.itemsize)
        return vec

    def nearest(self, vec: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        """(ids, cosines) of the ``k`` papers nearest the unit vector ``vec``, nearest first:
        exact products up to neighbours.EXACT_MAX papers, the index above once it is built."""
        ids, vectors = self.ids, self.vectors
        if ids is None or vectors is None or not len(ids) or k <= 0:
            return np.zeros(0, np.int64), np.zeros(0, np.float32)
        query = np.asarray(vec, np.float32)
        at, cosines = self.neighbours.nearest(vectors, self.stamp, query, k, self._pages)
        return ids[at], cosines

    def neighbours_due(self) -> bool:
        """Whether the store is large enough for an index of its rows and none sound is built."""
        return self.vectors is not None and self.neighbours.due(self.stamp, len(self.vectors))

    def ensure_neighbours(self, cancel: threading.Event | None = None) -> bool:
        """Build the index of the rows when due (a builder's work: a minute or two at a million);
        True when one was written. Raises OSError, neighbours.Cancelled."""
        if self.vectors is None:
            return False
        return self.neighbours.ensure(self.vectors, self.stamp, cancel=cancel)
