"""The Map window (View → Map, Ctrl+M): the library's map beside the main window, which reads.

The map is laid out by ``Library.atlas.ensure`` on a thread of its own (seconds at a few thousand
papers, minutes at 100k: never on the UI thread nor on the library executor's one worker, so
searches go on meanwhile); the window shows "Laying out the map…" until it comes. The paper the
highlight is on is shown in the main window's reading pane as it moves; Enter reads it there.
``s``/``r``/``e``/``t`` and the digits act on the rectangle's or the lasso's selection, else on
the highlighted paper, through the list's own PaperActions and a TagPicker of this window; the
current search's hits are lit and the rest dimmed; a cluster's label (or ``c``) puts
``cluster:N`` in the search, ``n`` ``near:ID`` (the papers nearest the highlighted one).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np
from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from desk.gui.map.painting import Scene
from desk.gui.map.view import MapView
from desk.gui.organize.selection import ALL_LIMIT, Target
from desk.gui.organize.tag_picker import TagPicker

if TYPE_CHECKING:
    from desk.core.atlas.store import PaperMap
    from desk.core.library.facade import Library
    from desk.core.records.page import PaperSummary
    from desk.gui.organize.bulk import PaperActions
    from desk.gui.workers import LibraryExecutor

log = logging.getLogger(__name__)
Later = Callable[[Callable[[], object]], None]


class _Delivery(QObject):
    """Carries the map from the builder's thread to the UI thread (a queued signal)."""

    built = Signal(object)  # PaperMap
    failed = Signal(str)


class MapWindow(QWidget):
    """The map of the library in a window of its own."""

    readRequested = Signal(int)  # Enter: read the paper in the main window's reading pane
    paperHighlighted = Signal(int)  # the highlight moved to this paper
    queryRequested = Signal(str)  # a cluster's papers in the list: the query to search

    def __init__(
        self, executor: LibraryExecutor, actions: PaperActions, later: Later, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent, Qt.WindowType.Window)
        self.setObjectName("mapWindow")
        self.setWindowTitle("desk — map of the library")
        self.resize(900, 700)
        self.executor = executor
        self.paper_actions = actions
        self.later = later
        self.view = MapView(self)
        self.status = QLabel("Laying out the map…")
        self.status.setObjectName("mapStatus")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 4)
        layout.addWidget(self.view, 1)
        layout.addWidget(self.status)
        self.picker = TagPicker(self)
        self.picker.chosen.connect(self._tag_chosen)
        self._picking: Target | None = None
        self.map: PaperMap | None = None
        self.query = ""
        self._delivery = _Delivery(self)
        self._delivery.built.connect(self._built)
        self._delivery.failed.connect(self.status.setText)
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self.view.currentChanged.connect(self.paperHighlighted)
        self.view.openRequested.connect(self.readRequested)
        self.view.actionRequested.connect(self._act)
        self.view.tagRequested.connect(self._toggle_nth)
        self.view.clusterRequested.connect(self._cluster)
        self.view.nearRequested.connect(self._near)
        self.view.selectionChanged.connect(self._selected)
        actions.rows.connect(self.apply)

    # -- the map -----------------------------------------------------------------------------
    def open(self) -> None:
        """Show the window (laying the map out first when it lags behind the library)."""
        self.show()
        self.raise_()
        self.activateWindow()
        self.view.setFocus()
        self.refresh()

    def refresh(self) -> None:
        """Bring the map up to date with the library, off the UI thread."""
        self.executor.submit(lambda lib: lib, self._start)

    def _start(self, lib: Library) -> None:
        if self._thread is not None and self._thread.is_alive():
            return
        self._thread = threading.Thread(target=self._build, args=(lib,), name="desk-map", daemon=True)
        self._thread.start()

    def _build(self, lib: Library) -> None:
        try:
            found = lib.atlas.current()
            if found is not None:
                self._delivery.built.emit(found)  # what was laid out before, while it catches up
            if found is None or lib.atlas.pending():
                self._delivery.built.emit(lib.atlas.ensure(cancel=self._stop))
        except Exception as exc:  # the library closed under it, no vectors: the rest of desk works
            log.warning("the map could not be laid out", exc_info=True)
            if not self._stop.is_set():
                self._delivery.failed.emit(f"The map could not be laid out: {exc}")

    def stop(self) -> None:
        """Stop a build under way (the window closes)."""
        self._stop.set()

    def _built(self, made: PaperMap) -> None:
        self.map = made
        self.view.set_scene(made.ids, Scene(made.xy, made.clusters, made.labels))
        self.status.setText(
            f"{len(made):,} papers in {len(made.labels)} clusters — arrows move, Enter reads, "
            "+/- zoom, drag selects (Ctrl+drag: a lasso), a label (or c) lists its cluster"
        )
        ids = made.ids
        self.executor.submit(lambda lib: lib.atlas.marks(ids), lambda marks: self._marks(ids, marks))
        self.set_query(self.query)

    def _marks(self, ids: np.ndarray, marks: dict[str, np.ndarray]) -> None:
        scene = self.view.scene
        if scene is None or self.map is None or self.map.ids is not ids:
            return
        scene.starred, scene.read = marks["starred"], marks["read"]
        scene.tagged, scene.noted = marks["tagged"], marks["noted"]
        self.view.update()

    def apply(self, summaries: dict[int, PaperSummary]) -> None:
        """Papers whose star, reading state, tags or note changed: their marks redrawn."""
        scene = self.view.scene
        if scene is None or scene.starred is None:
            return
        for pid, summary in summaries.items():
            row = self.view.row_of(pid)
            if row is None:
                continue
            scene.starred[row] = summary.starred
            if scene.read is not None:
                scene.read[row] = summary.read
            if scene.tagged is not None:
                scene.tagged[row] = bool(summary.tags)
            if scene.noted is not None:
                scene.noted[row] = summary.has_note
        self.view.update()

    # -- the search --------------------------------------------------------------------------
    def set_query(self, query: str) -> None:
        """Light the hits of the window's search (all papers bright when it is empty)."""
        self.query = query
        if self.map is None:
            return
        ids = self.map.ids
        if not query.strip():
            self._lit(ids, query, None)
            return

        def hits(lib: Library) -> np.ndarray:
            found = lib.search_ids(query, limit=ALL_LIMIT, typing=True).hits
            return np.fromiter((h.id for h in found), np.int64, len(found))

        self.executor.submit(hits, lambda found: self._lit(ids, query, found))

    def _lit(self, ids: np.ndarray, query: str, hits: np.ndarray | None) -> None:
        scene = self.view.scene
        if scene is None or self.map is None or self.map.ids is not ids or query != self.query:
            return
        scene.lit = None if hits is None else np.isin(ids, hits)
        self.view.update()

    # -- the keys ----------------------------------------------------------------------------
    def _target(self) -> Target:
        return Target(tuple(self.view.target_ids()))

    def _act(self, name: str) -> None:
        target = self._target()
        if name == "tag":
            self._picking = target
            self.picker.open_for(max(len(target.ids), 1), self.view)
            self.later(lambda: self.paper_actions.load_tags(target, self.picker.load))
        elif name == "done":
            self.later(lambda: self.paper_actions.mark_done(target))
        else:
            field = "starred" if name == "star" else "read"
            self.later(lambda: self.paper_actions.toggle(target, field))

    def _toggle_nth(self, n: int) -> None:
        target = self._target()
        self.later(lambda: self.paper_actions.toggle_nth(target, n))

    def _tag_chosen(self, name: str) -> None:
        target, self._picking = self._picking, None
        if target is not None:
            self.later(lambda: self.paper_actions.toggle_tag(target, name))

    def _cluster(self, cluster: int) -> None:
        if self.map is not None and 0 <= cluster < len(self.map.labels):
            self.queryRequested.emit(f"cluster:{cluster}")
            self.status.setText(f"Listing the cluster “{self.map.labels[cluster]}” (cluster:{cluster})")

    def _near(self, paper_id: int) -> None:
        self.queryRequested.emit(f"near:{paper_id}")
        self.status.setText(f"Listing the papers nearest paper {paper_id} on the map (near:{paper_id})")

    def _selected(self, count: int) -> None:
        if count:
            said = f"{count:,} papers selected — s, r, e, t and the digits act on them; Esc clears"
            self.status.setText(said)
