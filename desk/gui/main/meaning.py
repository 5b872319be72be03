"""The library's vectors as the window builds and shows them: when they are built, how far the
sentence encoder's build is, and what it does for a search.

The vectors are built a moment after the library is ready or an import landed (``build_soon``),
off the UI thread; the status bar says when better matches are ready (``said``). While the
sentence encoder's build is under way, the status bar says "Meaning: N of M papers"; each search
asks for its papers in view to be encoded first and its best few now (``VectorBuilder.encode_now``).
When those land, the list re-ranks only if the user is still in the search box: once they are
in the list, its rows never move under their keys.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtWidgets import QLabel, QStatusBar, QWidget

from desk.gui.main.semantic import VectorBuilder
from desk.gui.search.controller import SearchController
from desk.gui.workers import LibraryExecutor

VECTORS_DELAY_MS = 1500  # the semantic vectors are built a moment after the library is ready
FIRST_IN_VIEW = 100  # the list's first papers the encoder's build is asked to do first
PROGRESS_TIP = (
    "The sentence encoder is reading the abstracts in the background; searches use the"
    " papers it has read, and words and LSA for the others."
)


class MeaningProgress(QObject):
    """The vectors' build, its progress label in ``status``, and the on-the-spot encoding of a
    search; ``said(text)``: what the status bar says when a build ends."""

    said = Signal(str)

    def __init__(
        self,
        vectors: VectorBuilder,
        executor: LibraryExecutor,
        controller: SearchController,
        shown_ids: Callable[[], list[int]],
        in_search_box: Callable[[], bool],
        status: QStatusBar,
        parent: QWidget,
    ) -> None:
        super().__init__(parent)
        self.vectors = vectors
        self.executor = executor
        self.controller = controller
        self.shown_ids = shown_ids
        self.in_search_box = in_search_box
        self.label = QLabel(parent)  # how far the sentence encoder's build is
        self.label.setObjectName("encodingProgress")
        self.label.hide()
        status.addPermanentWidget(self.label)
        vectors.finished.connect(self._built)
        vectors.progress.connect(self.show_progress)
        vectors.spotted.connect(self._spotted)

    def build_soon(self) -> None:
        """Semantic vectors off the UI thread: the list is usable at once, meaning joins when ready."""
        QTimer.singleShot(VECTORS_DELAY_MS, self, lambda: self.executor.submit(self.vectors.start))

    def _built(self, done: str) -> None:
        # A list the user is looking at never reorders by itself (a fast typist's ↓↓s would star
        # what moved into those rows): meaning joins from the next change of query or filter.
        if done and not done.startswith("could not") and self.controller.shown_query.strip():
            self.said.emit("Better matches by meaning are ready: they show from your next search.")
        elif done == "built":
            self.said.emit("Searches now find papers by meaning too.")

    def show_progress(self, done: int, total: int) -> None:
        """ "Meaning: N of M papers" while the build is under way; nothing otherwise."""
        if done < 0 or total <= 0 or done >= total:
            self.label.hide()
            return
        self.label.setText(f"Meaning: {done:,} of {total:,} papers")
        self.label.setToolTip(PROGRESS_TIP)
        self.label.show()

    def searched(self) -> None:
        """A search landed: while the build is under way, its papers in view go first and its
        best few are encoded now."""
        controller = self.controller
        if self.vectors.encoding and controller.sort == "relevance" and controller.shown_query.strip():
            query, ids = controller.shown_query, self.shown_ids()[:FIRST_IN_VIEW]
            self.executor.submit(lambda lib: self.vectors.encode_now(lib, query, ids))

    def _spotted(self, query: str) -> None:
        controller = self.controller
        if query == controller.shown_query and self.in_search_box() and not controller.pending():
            controller.rerank(self.in_search_box)
