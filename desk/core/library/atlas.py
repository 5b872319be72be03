"""``Library.atlas``: the map of the library — every paper a point laid out by meaning, in named clusters.

The work is desk/core/atlas/'s; this service picks the vectors (the sentence encoder's where they
cover the library, else LSA's), keeps the map in memory and in ``<library>/cache/map.npz``, and
says when it lags behind the library. ``ensure`` is the slow part (seconds at a few thousand
papers, minutes at 100k): the window runs it off its UI thread, ``desk map`` in the command.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from desk.core.atlas import store
from desk.core.atlas.store import PaperMap
from desk.core.edits import tags as tagging
from desk.core.runtime import failures
from desk.core.runtime.errors import DeskError
from desk.core.semantic.keys import DatabasePapers

if TYPE_CHECKING:
    from desk.core.library.discovery import Discovery
    from desk.core.store import Database

log = logging.getLogger(__name__)
NEAR_COUNT = 50  # papers ``near:ID`` finds, the paper itself among them
Progress = Callable[[int, int], None]


class MapCancelled(Exception):
    """The map's build was asked to stop."""


class Atlas:
    """The library's map (``lib.atlas``); safe to use from several threads."""

    unwritable: str | None = None  # why the last map built could not be kept on disk

    def __init__(self, db: Database, cache: Path, discovery: Discovery) -> None:
        self.db = db
        self.path = cache / store.FILE_NAME
        self.discovery = discovery
        self._map: PaperMap | None = None
        self._read = False  # the file was read once (a missing one is not looked for at every filter)
        self._lock = threading.Lock()  # one build at a time
        self._state = threading.Lock()  # the map in memory

    def current(self) -> PaperMap | None:
        """The map as last built (from memory, else from its file), or None when there is none.
        It may lag behind the library: ``pending`` says so, ``ensure`` brings it up to date."""
        with self._state:
            if self._map is None and not self._read:
                self._read = True
                self._map = store.read(self.path)
            return self._map

    def pending(self) -> bool:
        """True when ``ensure`` has work to do (no map, papers added or removed since, or the
        sentence encoder's vectors now cover a library mapped from LSA's)."""
        found = self.current()
        ids, keys = DatabasePapers(self.db).keys()
        if found is None:
            return True
        # build.py (the layout: scipy, ~0.1 s of imports) is loaded where a map is checked or
        # made, not by every Library: `desk import` and the window's start open one.
        from desk.core.atlas import build

        added, removed = build.changes(found, ids)
        return bool(len(added) or len(removed)) or found.source != self._best_source(ids, keys)

    def _best_source(self, ids: np.ndarray, keys: np.ndarray) -> str:
        """ "minilm" when the sentence encoder's vectors cover every paper's text now, else "lsa"."""
        encoded = self.discovery.encoded
        if not encoded.wanted(ids):
            return "lsa"
        if encoded.ids is None:
            encoded.load()
        covered = encoded.ids is not None and encoded.vectors is not None and not encoded.pending(ids, keys)
        return "minilm" if covered else "lsa"

    def _vectors(self, ids: np.ndarray, source: str) -> np.ndarray:
        """The unit rows of the papers ``ids`` (ascending) from ``source``'s store."""
        if source == "minilm":
            return self.discovery.encoded.unit_rows()
        data = self.discovery.vectors.current
        if data is None or not np.array_equal(data.ids, ids):
            raise DeskError("The map needs the semantic vectors, which could not be built here.")
        return data.rows(slice(None))

    def ensure(self, progress: Progress | None = None, cancel: threading.Event | None = None) -> PaperMap:
        """The map, up to date with the library: laid out again when it changed much (or better
        vectors cover it), else updated in place (build.py); kept on disk when it can be.
        ``cancel`` set stops the work (MapCancelled). DeskError when no vectors can be had."""

        def ticking(done: int, total: int) -> None:
            if cancel is not None and cancel.is_set():
                raise MapCancelled
            if progress is not None:
                progress(done, total)

        from desk.core.atlas import build

        with self._lock:
            self.discovery.ensure_vectors(detach=True)
            papers = DatabasePapers(self.db)
            ids, keys = papers.keys()
            source = self._best_source(ids, keys)
            old = self.current()
            if old is not None and not build.needs_layout(old, ids, source):
                made = build.update(old, ids, self._vectors(ids, source))
            else:
                vectors = self._vectors(ids, source)
                texts = papers.texts([int(i) for i in ids])
                abstracts = [texts[int(i)][1] if int(i) in texts else "" for i in ids]
                made = build.build(ids, vectors, abstracts, source, progress=ticking)
            if made is not old:
                self._keep(made)
            return made

    def _keep(self, made: PaperMap) -> None:
        with self._state:
            self._map = made
            self._read = True
        self.unwritable = None
        try:
            store.write(self.path, made)
        except OSError as exc:  # derived: used from memory, laid out again by the next process
            log.info("the map could not be written: %s", exc)
            self.unwritable = failures.reason(exc)

    def marks(self, ids: np.ndarray) -> dict[str, np.ndarray]:
        """For each paper of ``ids`` (ascending, a map's): whether it is ``starred``, ``read``,
        ``tagged`` and ``noted`` (bool arrays in the order of ``ids``), read in one snapshot."""
        ids = np.asarray(ids, np.int64)
        out = {name: np.zeros(len(ids), bool) for name in ("starred", "read", "tagged", "noted")}
        with self.db.reading() as session:
            raw = session.connection().connection.driver_connection
            assert raw is not None
            rows = raw.execute("SELECT id, starred, read, note != '' FROM paper").fetchall()
            tagged = np.asarray(tagging.paper_ids(session, None), np.int64)
        if rows and len(ids):
            table = np.asarray(rows, np.int64)
            at = np.searchsorted(ids, table[:, 0])
            ok = (at < len(ids)) & (ids[np.minimum(at, len(ids) - 1)] == table[:, 0])
            for column, name in ((1, "starred"), (2, "read"), (3, "noted")):
                out[name][at[ok]] = table[ok, column] != 0
        out["tagged"] = np.isin(ids, tagged)
        return out

    def members(self, name: str) -> Sequence[int]:
        """The ids of the papers in the cluster ``name`` (its number, or its label in any case)
        of the current map; none when there is no map or no such cluster (``cluster:``)."""
        found = self.current()
        if found is None:
            return ()
        wanted = " ".join(name.split()).casefold()
        number = next((n for n, label in enumerate(found.labels) if label.casefold() == wanted), None)
        if number is None and wanted.isdigit():
            number = int(wanted)
        if number is None:
            return ()
        return tuple(int(i) for i in found.members(number))

    def nearest(self, name: str, count: int = NEAR_COUNT) -> Sequence[int]:
        """The ids of the ``count`` papers nearest on the current map to the paper whose id
        ``name`` is (``near:``), nearest first, that paper first of all; none when there is no
        map, ``name`` is not a number or its paper is not on the map."""
        found = self.current()
        wanted = name.strip()
        if found is None or not wanted.isascii() or not wanted.isdigit() or not len(found):
            return ()
        paper = int(wanted)
        row = int(np.searchsorted(found.ids, paper))
        if row >= len(found.ids) or int(found.ids[row]) != paper:
            return ()
        d2 = ((found.xy - found.xy[row]) ** 2).sum(axis=1)
        d2[row] = -1.0  # the paper itself first, even beside another at the same place
        count = max(1, min(count, len(d2)))
        closest = np.argpartition(d2, count - 1)[:count]
        closest = closest[np.lexsort((found.ids[closest], d2[closest]))]
        return tuple(int(i) for i in found.ids[closest])
