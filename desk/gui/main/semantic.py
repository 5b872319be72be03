"""Building the semantic vectors in the background, after the library opens and after each import.

Then, the same way, the flat postings of index segments an older desk wrote without them.

The build (seconds at 10k papers for LSA's vectors; then minutes for the sentence encoder's, in
a second process, while LSA's serve) runs on a thread of its own, never on the UI thread nor on the
library executor's one worker, so searches go on meanwhile, from words alone; the searches after
it use the meaning of the words too. It starts a moment after the library is ready or an import
ended (the first keystrokes do not share the processor with it); ``finished`` says it ended. The
list on screen keeps its order (nothing moves under the user's keys); the window says that the
next search ranks by meaning too.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal

if TYPE_CHECKING:  # desk.core.library.facade loads Whoosh: only worker threads import it
    from desk.core.library.facade import Library

log = logging.getLogger(__name__)
SPOT_WINDOW = 20  # a search's first hits looked at for vectors to encode on the spot


class VectorBuilder(QObject):
    """Runs ``Library.ensure_vectors_elsewhere`` (a build process, waited for) on a thread.

    One build at a time; a request made during a build runs once it ends. ``finished(what)``
    carries what was done ("" for nothing)."""

    finished = Signal(str)
    progress = Signal(int, int)  # papers with an encoder vector, papers (while a builder works)
    spotted = Signal(str)  # a query whose best candidates were just encoded (encode_now)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._again = False
        self._stopped = threading.Event()
        self.encoding = False  # a builder is encoding the abstracts (the window waits for it)
        self._spotting = threading.Lock()  # one on-the-spot encoding at a time

    def start(self, lib: Library) -> None:
        """Bring the vectors up to date (callable from any thread)."""
        with self._lock:
            if self._stopped.is_set():
                return
            if self._thread is not None and self._thread.is_alive():
                self._again = True
                return
            self._thread = threading.Thread(target=self._run, args=(lib,), name="desk-vectors", daemon=True)
            self._thread.start()

    def _run(self, lib: Library) -> None:
        while True:
            try:
                done = lib.discovery.ensure_vectors_elsewhere(self._stopped) or ""
            except Exception:  # the library closed under it, a full disk: words alone still work
                log.warning("the semantic vectors could not be built", exc_info=True)
                done = ""
            try:  # an index an older desk wrote: its segments' flat postings, once
                lib.complete_index_elsewhere(self._stopped)
            except Exception:  # derived and optional: searches read Whoosh's blocks meanwhile
                log.warning("the search index's flat postings could not be written", exc_info=True)
            with contextlib.suppress(RuntimeError):  # the window closed meanwhile
                self.finished.emit(done)
            try:  # the sentence encoder's (minutes to hours): LSA's and the rows there serve meanwhile
                self.encoding = True
                encoded = lib.discovery.ensure_encoded_elsewhere(self._stopped, self._progress) or ""
            except Exception:  # derived and optional, as above
                log.warning("the sentence-encoder vectors could not be built", exc_info=True)
                encoded = ""
            finally:
                self.encoding = False
            with contextlib.suppress(RuntimeError):
                self.progress.emit(-1, -1)  # not under way now
            if encoded:
                with contextlib.suppress(RuntimeError):
                    self.finished.emit(encoded)
            with self._lock:
                if not self._again or self._stopped.is_set():
                    self._thread = None
                    return
                self._again = False

    def _progress(self, done: int, total: int) -> None:
        with contextlib.suppress(RuntimeError):  # the window closed meanwhile
            self.progress.emit(done, total)

    def encode_now(self, lib: Library, query: str, ids: list[int], best: int = SPOT_WINDOW) -> None:
        """While a build is under way: have the papers ``ids`` (those in view, best first)
        encoded before the others, and the few of the ``best`` first lacking a vector encoded
        now, on a thread of their own (~0.4 s; neither the UI thread nor the library's worker
        waits for it); ``spotted(query)`` says when some were. Callable from any thread."""
        if not self.encoding or self._stopped.is_set() or not self._spotting.acquire(blocking=False):
            return

        def run() -> None:
            try:
                lib.discovery.encode_first(ids)
                if lib.discovery.encode_now(ids[:best]) and not self._stopped.is_set():
                    with contextlib.suppress(RuntimeError):
                        self.spotted.emit(query)
            except Exception:  # derived and optional: the list stays as it is
                log.warning("the search's best papers could not be encoded", exc_info=True)
            finally:
                self._spotting.release()

        threading.Thread(target=run, name="desk-encode-now", daemon=True).start()

    def stop(self, wait_s: float = 5.0) -> None:
        """The window is closing: kill a build under way (it is redone next time) and start no
        more; a detached builder goes on (background.py) and the next open uses its rows."""
        self._stopped.set()
        with self._lock:
            thread = self._thread
        if thread is not None:
            thread.join(wait_s)
