"""Opening the window's library: the index repaired with progress, the sample lists on a first run.

`Startup` runs on the window's executor and importer and says how it goes through signals;
the window decides what to show.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal

from desk.core.records.detail import ImportReport
from desk.gui.dialogs.importing import ImportRunner
from desk.gui.workers import LibraryExecutor, ProgressRelay, plain_message

if TYPE_CHECKING:  # desk.core.library.facade loads Whoosh: only the worker thread imports it
    from desk.core.library.facade import Library


class Startup(QObject):
    """Opens the library folder; imports the bundled sample lists into an empty one first.

    `progress(text)` while it opens, `importingSamples()` when the first-run import starts,
    `ready(count, note)` once searches can run (`note` is worth a status line, or ""), and
    `failed(message)` when the library cannot be opened.
    """

    progress = Signal(str)
    importingSamples = Signal()
    ready = Signal(int, str)
    failed = Signal(str)

    def __init__(
        self,
        executor: LibraryExecutor,
        importer: ImportRunner,
        library_dir: Path,
        seeds: Path | None,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.executor = executor
        self.importer = importer
        self.library_dir = library_dir
        self.seeds = seeds
        self.importing_samples = False
        self._exposure = ""  # that the library can be read by others, for the status line once

    def open(self) -> None:
        relay = ProgressRelay(self)
        relay.progressed.connect(self._progressed)
        self.executor.open_library(
            self.library_dir,
            progress=lambda done, total: relay.report(done, total, ""),
            success=self._opened,
            failure=lambda exc: self.failed.emit(plain_message(exc)),
        )

    def _progressed(self, done: int, total: int, _name: str) -> None:
        if total:
            self.progress.emit(f"Preparing the search index… {done} of {total}")

    def _opened(self, lib: Library) -> None:
        repaired = getattr(lib, "repaired", None)
        exposure = getattr(lib, "exposure", None)
        self.executor.submit(lambda lib: lib.count(), lambda count: self._counted(count, repaired, exposure))

    def _counted(self, count: int, repaired: str | None, exposure: str | None = None) -> None:
        self._exposure = f"Note: {exposure[0].upper()}{exposure[1:]}." if exposure else ""
        if count == 0 and self.seeds is not None:
            self.importing_samples = True
            self.progress.emit("Importing the sample lists…")
            self.importingSamples.emit()
            self.importer.start([self.seeds], title="Importing the sample lists", summary=False)
            return
        # A new library has no index yet: nothing worth saying.
        note = f"The search index was rebuilt: {repaired}" if repaired and count else ""
        self.ready.emit(count, " ".join(filter(None, (note, self._exposure))))  # said once (privacy.py)

    def samples_imported(self, report: ImportReport) -> None:
        """The first-run import finished (the window passes the importer's report on)."""
        self.importing_samples = False
        done = f"Imported {report.added} sample abstracts; your library is ready."
        self.ready.emit(report.added, " ".join(filter(None, (done, self._exposure))))

    def samples_failed(self) -> None:
        """The first-run import failed (the importer said why): the empty library is usable anyway."""
        self.importing_samples = False
        self.ready.emit(0, self._exposure)
