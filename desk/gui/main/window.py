"""The main window: the search bar on top, the result list left, the reading pane right, a status bar.

The window builds the panes and wires them together; each pane does its own work and talks
back through signals:

- `SearchBar` (search/bar.py): the box, the filters, the hint line;
- `SearchController` (search/controller.py): runs the searches and fills the list's model;
- `ResultList` (search/results.py): the hits and the highlighted one;
- `ReadingPane` (reading/pane.py): the paper in view, its note and related papers;
- `ResultFlow` (main/result_flow.py): the list as searches land, the keys that wait for them;
- `Startup` (main/startup.py): opening the library, the sample lists on a first run;
- `DuplicatesReview`, `ImportRunner`, `Exporter`: the review and the two dialogs' work.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import (
    QApplication,
    QMainWindow,
    QMessageBox,
    QSplitter,
    QStackedWidget,
    QStatusBar,
    QVBoxLayout,
    QWidget,
)

from desk import version
from desk.core.records.detail import ImportReport
from desk.core.runtime.paths import bundled_seeds_dir
from desk.gui import theme
from desk.gui.dialogs.export import Exporter, ask_export
from desk.gui.dialogs.importing import FileDropFilter, ImportRunner, choose_files, choose_folder
from desk.gui.dialogs.shortcut_sheet import ShortcutSheet
from desk.gui.duplicates.review import DuplicatesReview
from desk.gui.keymap import build_actions
from desk.gui.main import placement
from desk.gui.main.appearance import appearance_menu
from desk.gui.main.external_changes import ExternalChanges
from desk.gui.main.focus import FocusModel
from desk.gui.main.meaning import MeaningProgress
from desk.gui.main.opening import FileOpener
from desk.gui.main.result_flow import ResultFlow, counted_title
from desk.gui.main.semantic import VectorBuilder
from desk.gui.main.startup import Startup
from desk.gui.main.undo_keys import UndoKeys
from desk.gui.main.welcome import WelcomeNote
from desk.gui.map.launcher import MapLauncher
from desk.gui.map.menu import add_map_action
from desk.gui.organize.actions import Organizer
from desk.gui.organize.history_nav import PaperTrail
from desk.gui.organize.keys import PaperKeys
from desk.gui.organize.places import DOCK_WIDTH, Places
from desk.gui.organize.read_marker import ReadMarker
from desk.gui.organize.sort_menu import SortMenu
from desk.gui.organize.tag_numbers import TagNumbers, add_digit_keys
from desk.gui.organize.triage import TriageView
from desk.gui.reading.citation_keys import CitationKeys
from desk.gui.reading.pane import ReadingPane
from desk.gui.search.bar import SearchBar
from desk.gui.search.controller import SearchController
from desk.gui.search.results import EMPTY_LIBRARY, ResultList
from desk.gui.settings import WindowSettings
from desk.gui.workers import LibraryExecutor

STATUS_MS = 5000
DUPLICATES_DELAY_MS = 300


class MainWindow(QMainWindow):
    """One library, one window.  Every library call goes through `self.executor`."""

    def __init__(
        self, library_dir: Path, *, seeds: Path | bool | None = True, files: Sequence[Path] = ()
    ) -> None:
        """``seeds``: the sample lists a first run imports (True: the ones desk ships); ``files``:
        list files to import and show once the library is open (then a first run imports them
        instead of the samples)."""
        super().__init__()
        self.library_dir = library_dir
        self.ready = False
        self.open_error: str | None = None
        self._closed = False
        self._sheet: ShortcutSheet | None = None
        self.executor = LibraryExecutor(self)
        self.settings = WindowSettings(library_dir)
        # Qt adds " — desk" (the application's name) to a title not ending in it.
        name = library_dir.name
        self.base_title = "desk" if name.lower() == "desk" else f"{name} — desk"
        self.setWindowTitle(self.base_title)
        self.setAcceptDrops(True)
        self.installEventFilter(FileDropFilter(self.import_paths, self))  # files dropped on the window
        self._build()
        self.named_actions = build_actions(self, self._handlers(), (self.search_box, self.results_view))
        self.sorting.install(self.menuBar(), self.statusBar())
        self.read_marker.add_menu(self)
        self.appearance = appearance_menu(self, self.settings.scheme, self.set_scheme)
        self.map_action = add_map_action(self, self.open_map)
        self.map = MapLauncher(
            self.executor,
            self.paper_keys.actions,
            self.flow.after_search,
            self.controller,
            self.show_paper,
            self._read_from_map,
            self._search_for,
            self,
        )
        if self.settings.scheme != "system":  # "system": as the application started (follow_system)
            self.set_scheme(self.settings.scheme)
        self.importer = ImportRunner(self.executor, self)
        self.column.insertWidget(2, self.importer.panel)  # under the search bar and the welcome note
        self.exporter = Exporter(self.executor, self)
        self.citation_keys = CitationKeys(  # Ctrl+O: its link; a: its authors' papers
            self.results_view,
            self.paper_view,
            lambda: self.current_id,
            lambda: self.focus.where() == "list",
            self,
        )
        self.duplicates = DuplicatesReview(
            self.executor, self, self.named_actions["duplicates"], before_change=self.note.flush
        )
        self.statusBar().insertPermanentWidget(0, self.duplicates.badge)
        samples = bundled_seeds_dir() if seeds is True else (seeds or None)
        self.startup = Startup(self.executor, self.importer, library_dir, None if files else samples)
        self.opener = FileOpener(self.importer, self)
        self._connect()
        self.external = ExternalChanges(self.executor, self, self.refresh)  # other processes' writes
        self._restore()
        self.controller.set_filter(self.settings.filter)  # the sidebar and the buttons follow it
        self.controller.text = self.search_box.text()
        self.focus_search()
        self.startup.open()
        if files:
            self.opener.open(files)

    # -- building ----------------------------------------------------------------------------
    def _build(self) -> None:
        self.search_bar = SearchBar()
        self.results_view = ResultList()
        self.model = self.results_view.results
        self.controller = SearchController(self.executor, self.model, self)
        self.reading = ReadingPane(
            self.executor, lambda: self.controller.terms, lambda: self.controller.marks
        )
        self.flow = ResultFlow(
            self.controller,
            self.results_view,
            self.search_bar,
            self.reading,
            self.executor,
            lambda: self.ready,
            self,
        )
        # The widgets tests and scripts look at, by the names they have always had.
        self.search_box = self.search_bar.box
        self.query_message = self.search_bar.hint
        self.suggestion_label = self.search_bar.suggestion
        self.filter_buttons = self.search_bar.filter_buttons
        self.paper_view = self.reading.paper_view
        self.abstract_view = self.paper_view.abstract
        self.note = self.reading.note
        self.note_editor = self.note.editor
        self.related = self.reading.related
        self.tabs = self.reading.tabs
        self.right_splitter = self.reading
        self.focus = FocusModel(
            self.search_box,
            self.results_view,
            (self.abstract_view, self.related.list),
            self.note,
            (self.search_box, self.results_view, self.abstract_view, self.note_editor, self.note.preview),
            lambda rows: self.flow.after_search(lambda: self.move_selection(rows)),
            self,
        )

        self.undo_keys = UndoKeys((self.search_box, self.note_editor), self)  # Ctrl+Z: typing or library

        self.main_splitter = QSplitter(Qt.Orientation.Horizontal)
        self.main_splitter.setObjectName("mainSplitter")
        self.main_splitter.addWidget(self.results_view)
        self.main_splitter.addWidget(self.reading)
        self.main_splitter.setStretchFactor(0, 2)
        self.main_splitter.setStretchFactor(1, 3)
        self.welcome = WelcomeNote()  # the first run's note on the sample lists
        self.welcome.closed.connect(self._welcome_closed)
        central = QWidget()
        layout = QVBoxLayout(central)
        layout.setContentsMargins(6, 6, 6, 0)
        layout.addWidget(self.search_bar)
        layout.addWidget(self.welcome)
        self.column = layout  # the import's panel joins it (under the search bar)
        self.triage_view = TriageView(self.executor)
        self.pages = QStackedWidget()
        self.pages.addWidget(self.main_splitter)
        self.pages.addWidget(self.triage_view)
        layout.addWidget(self.pages, 1)
        self.setCentralWidget(central)
        self.organizer = Organizer(
            self.executor, self, lambda: self.current_id, lambda: self.controller.shown_query
        )
        self.paper_keys = PaperKeys(  # star, read, done, tags, delete, copy over the selection
            self.executor,
            self,
            self.results_view,
            lambda: self.focus.where() == "list",
            lambda: self.current_id,
            lambda: self.triage_view.current_id if self.triaging else None,
            self.triage_view,
            lambda: self.controller.shown_query,
            lambda: self.model.total,
            self.flow.after_search,
        )
        self.trail = PaperTrail(lambda pid: self.show_paper(pid, select=True), self)  # Alt+← / Alt+→
        self.read_marker = ReadMarker(
            self.executor, self.settings, self.focus.where, lambda: self.current_id, self
        )
        self.places = Places(
            self.executor,
            self,
            self.controller,
            self.set_filter,
            self.focus,
            self.settings,
            self.pages,
            self.search_bar,
        )
        self.sidebar = self.places.sidebar
        self.splitters = {"main": self.main_splitter, "right": self.reading}  # kept between runs
        self.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, self.places.dock)
        self.resizeDocks([self.places.dock], [DOCK_WIDTH], Qt.Orientation.Horizontal)
        self.sorting = SortMenu(self.executor, self, self.controller, self.settings)
        self.tag_numbers = TagNumbers(self.executor, self)  # the digits beside the tags' chips

        status = QStatusBar()
        status.setObjectName("statusBar")
        self.setStatusBar(status)
        self.hits_label = self.flow.hits_label
        status.addPermanentWidget(self.paper_keys.count_label)
        status.addPermanentWidget(self.hits_label)  # not hidden by passing messages

    def set_scheme(self, choice: str) -> None:
        """Light, dark or the system's (kept for next time)."""
        self.settings.scheme = choice
        app = QApplication.instance()
        if isinstance(app, QApplication):
            theme.choose_scheme(app, choice)

    def _handlers(self) -> dict[str, Callable[[], object]]:
        r, later = self.reading, self.flow.after_search
        return {
            "import_files": lambda: self.import_paths(choose_files(self)),
            "import_folder": lambda: self.import_paths(choose_folder(self)),
            "export": self.export,
            "quit": self.close,
            "focus_search": self.focus_search,
            "filter_all": lambda: self.set_filter("all"),
            "filter_starred": lambda: self.set_filter("starred"),
            "filter_unread": lambda: self.set_filter("unread"),
            "filter_notes": lambda: self.set_filter("notes"),
            "use_suggestion": self.flow.use_suggestion,
            "open": self.flow.open_current,
            "next": lambda: later(lambda: self.move_selection(1)),
            "previous": lambda: later(lambda: self.move_selection(-1)),
            **self.paper_keys.handlers(),
            "paper_back": self.trail.back,
            "paper_forward": self.trail.forward,
            "note": lambda: later(r.edit_note),
            "preview": r.toggle_preview,
            "rename": lambda: later(r.rename),
            "triage": self.organizer.triage,
            "undo": self.organizer.undo,
            "redo": self.organizer.redo,
            "related": lambda: later(r.show_related),
            "open_link": lambda: later(self.citation_keys.open_link),
            "by_author": lambda: later(self.citation_keys.by_author),
            "duplicates": lambda: self.duplicates.open(),
            "back": self.back,
            "shortcuts": self.show_shortcuts,
            "about": self.about,
            **self.places.handlers(),
            **self.sorting.handlers(),
        }

    def _connect(self) -> None:
        bar, results, reading = self.search_bar, self.results_view, self.reading
        bar.textEdited.connect(self.controller.set_text)
        bar.filterChosen.connect(self.set_filter)
        self.controller.filterChanged.connect(bar.check_filter)  # the buttons and the chip follow
        bar.stepRequested.connect(self._step_from_box)
        bar.suggestionChosen.connect(self.flow.use_suggestion)
        drop = FileDropFilter(self.import_paths, self)
        for w in (self.search_box, self.abstract_view.viewport(), self.note_editor.viewport()):
            w.installEventFilter(drop)
        self.note.preview.viewport().installEventFilter(drop)
        results.paperChanged.connect(reading.follow)
        results.openRequested.connect(self.flow.open_current)
        self.model.modelReset.connect(self.flow.results_reset)
        self.controller.searched.connect(self.flow.searched)
        self.flow.counted.connect(
            lambda query, total: self.setWindowTitle(counted_title(self.base_title, query, total))
        )
        self.controller.failed.connect(self.show_status)
        self.controller.failed.connect(lambda _m: self.flow.run_deferred())
        self.executor.failed.connect(self.show_status)
        reading.summariesChanged.connect(self.model.set_summaries)
        reading.relatedChosen.connect(lambda pid: self.show_paper(pid, focus=True, select=True))
        self.startup.progress.connect(self.hits_label.setText)
        self.startup.importingSamples.connect(
            lambda: reading.show_message("Importing the sample lists that come with desk…")
        )
        self.startup.ready.connect(self._library_ready)
        self.startup.failed.connect(self._library_failed)
        self.importer.finished.connect(self._imported)
        self.vectors = VectorBuilder(self)
        self.meaning = MeaningProgress(
            self.vectors,
            self.executor,
            self.controller,
            self.model.ids,
            self.search_box.hasFocus,
            self.statusBar(),
            self,
        )
        self.encoding_label = self.meaning.label
        self.flow.landed.connect(self.meaning.searched)
        self.vectors.finished.connect(lambda _done: self.map.refresh())  # the map follows the import
        self.importer.failed.connect(self._import_failed)
        self.opener.show.connect(self.show_list)
        self.duplicates.changed.connect(self.refresh)
        org = self.organizer
        org.rows.connect(reading.apply)
        org.everything.connect(self.refresh)
        org.triageReady.connect(self.start_triage)
        self.paper_keys.changed.connect(reading.apply)
        self.paper_keys.changed.connect(lambda _rows: self.tag_numbers.look())
        # The sidebar's counts follow a change made here at once, not at its next poll.
        for changed in (self.paper_keys.changed, org.rows, self.read_marker.marked, reading.summariesChanged):
            changed.connect(lambda _rows: self.places.soon())
        self.controller.searched.connect(lambda _outcome: self.tag_numbers.look())
        self.tag_numbers.changed.connect(self.model.set_tag_numbers)
        self.tag_numbers.changed.connect(self.paper_view.set_tag_numbers)
        self.citation_keys.search.connect(self._search_for)
        self.paper_keys.gone.connect(lambda _ids: self.refresh())
        self.paper_keys.gone.connect(self.trail.forget)
        reading.paperShown.connect(self.trail.visited)
        reading.paperShown.connect(self.read_marker.shown)
        self.read_marker.marked.connect(reading.apply)
        self.places.triageRequested.connect(org.triage)
        for says in (  # what each piece says goes to the status bar
            reading.status,
            self.importer.said,
            self.opener.status,
            org.status,
            self.meaning.said,
            self.paper_keys.status,
            self.citation_keys.status,
            self.trail.status,
            self.places.status,
            self.sorting.status,
            self.triage_view.status,
        ):
            says.connect(self.show_status)
        self.triage_view.left.connect(self.leave_triage)
        add_digit_keys(self, self.paper_keys.toggle_nth)  # 1-9: the tags, in the digits' order
        self.exporter.exported.connect(
            lambda n, path: self.show_status(f"Exported {n} paper{'s' if n != 1 else ''} to {path}")
        )
        self.exporter.failed.connect(
            lambda msg: self.show_message("Export failed", f"Nothing was written: {msg}")
        )

    # -- the library -------------------------------------------------------------------------
    @property
    def current_id(self) -> int | None:
        """The paper in view (the keys act on it)."""
        return self.reading.current_id

    def _welcome_closed(self) -> None:
        self.settings.welcome = False  # not again for this library

    def _library_ready(self, count: int, note: str) -> None:
        if self.settings.welcome and count:
            self.welcome.show_for(count)
        self.ready = True
        self.controller.enabled = True
        if note:
            self.show_status(note)
        if count == 0:
            self.reading.show_message(EMPTY_LIBRARY)
        self.controller.run_now()
        self.duplicates.refresh(delay_ms=DUPLICATES_DELAY_MS)  # after the first search, not before it
        self.meaning.build_soon()
        self.opener.library_ready()

    def _library_failed(self, message: str) -> None:
        self.open_error = message
        self.hits_label.setText("The library could not be opened")
        self.reading.show_message(f"The library in {self.library_dir} could not be opened: {message}")
        self.show_message("desk cannot open the library", message, QMessageBox.Icon.Critical)

    def _imported(self, report: ImportReport) -> None:
        if self.startup.importing_samples:
            self.settings.welcome = True
            self.startup.samples_imported(report)
            return
        if report.added:
            self.welcome.dismiss()  # the user's own lists are in
        self.refresh()
        self.duplicates.refresh()
        self.meaning.build_soon()

    def _import_failed(self, _message: str) -> None:
        if self.startup.importing_samples:  # the importer said why; the empty library is usable
            self.startup.samples_failed()

    def refresh(self) -> None:
        """Show what changed elsewhere (another process, a merge, an import): search again."""
        self.related.invalidate()
        self.controller.run_now()

    def import_paths(self, paths: list[Path]) -> None:
        if not paths:
            return
        if not self.ready:
            self.show_status("The library is still opening; try again in a moment.")
        elif not self.importer.start(paths):
            self.show_status("An import is already running.")

    def open_files(self, files: Sequence[Path]) -> None:
        """Import list files and show them (`desk-gui FILE`, another start's hand-over), as soon
        as the library is open and no other import runs."""
        self.opener.open(files)

    def show_list(self, name: str) -> None:
        """Show a whole list: the filter ``name`` (`in:"…"` for a collection), nothing typed."""
        self.search_box.setText("")
        self.controller.set_text("")
        self.set_filter(name)

    def export(self) -> None:
        if not self.ready:
            return
        query = self.controller.shown_query  # what the list shows, even if the box holds more
        total = self.model.total

        target = self.paper_keys.target(from_list=self.focus.where() == "list")  # the selected papers

        def counted(starred: int) -> None:
            chosen = lambda what, path, fmt: self.exporter.export(what, query, path, target.resolve, fmt)  # noqa: E731
            ask_export(self, query, total, starred, chosen, self.paper_keys.selection.count_of(target))

        self.executor.submit(lambda lib: len(lib.paper_ids(starred=True)), counted)

    # -- search and the result list (the list as searches land: main/result_flow.py) ---------
    def _step_from_box(self, step: int) -> None:
        """↑/↓ in the search box: move the highlight, and the keys into the list."""
        self.flow.after_search(lambda: self.move_selection(step))
        self.focus.to_list()

    def set_filter(self, name: str) -> None:
        self.search_bar.check_filter(name)
        self.controller.set_filter(name)

    def move_selection(self, step: int) -> None:
        """Move the highlight in the result list `step` rows."""
        self.results_view.move_highlight(step)

    def show_paper(self, pid: int, *, focus: bool = False, select: bool = False) -> None:
        """Load a paper into the reading pane; `select` highlights it in the list too."""
        self.reading.show_paper(pid, focus=focus)
        if select:
            self.results_view.select_paper(pid)

    def focus_search(self) -> None:
        """Ctrl+K or /: the search box, the query selected (typing replaces it)."""
        self.focus.to_search(select_all=True)

    def back(self) -> None:
        """Esc: note or abstract → result list → search box."""
        self.note.flush()
        self.focus.back()

    # -- the map -----------------------------------------------------------------------------
    def open_map(self) -> None:
        """View → Map: the library's map in a window of its own (desk/gui/map/)."""
        self.map.open()

    def _read_from_map(self, pid: int) -> None:
        """Enter on the map: the paper in the reading pane, the keys there."""
        self.show_paper(pid, focus=True, select=True)
        self.raise_()
        self.activateWindow()

    def _search_for(self, query: str) -> None:
        self.search_box.setText(query)
        self.controller.set_text(query)
        self.controller.run_now()

    # -- triage ------------------------------------------------------------------------------
    def start_triage(self, ids: list[int]) -> None:
        """The paper fills the window; one key a decision (organize/triage.py)."""
        self.note.flush()
        self.pages.setCurrentWidget(self.triage_view)
        self.search_bar.setEnabled(False)
        self.triage_view.start(ids)

    def leave_triage(self, decided: int) -> None:
        """Esc in triage: back to the list, which shows the decisions."""
        self.pages.setCurrentWidget(self.main_splitter)
        self.search_bar.setEnabled(True)
        self.show_status(f"Triage: {decided} decision{'s' if decided != 1 else ''}")
        self.refresh()
        self.focus.to_list()

    @property
    def triaging(self) -> bool:
        """Whether triage mode fills the window."""
        return self.pages.currentWidget() is self.triage_view

    # -- dialogs and messages ----------------------------------------------------------------
    def show_shortcuts(self) -> None:
        if self._sheet is None:
            self._sheet = ShortcutSheet(self.named_actions, self)
        self._sheet.show()
        self._sheet.raise_()
        self._sheet.activateWindow()

    def about(self) -> None:
        self.show_message(
            "About desk",
            f"desk {version()}\n\n"
            "An offline, keyboard-driven reading list for research-paper abstracts.\n\n"
            f"Library: {self.library_dir}\n\nPress ? or F1 for the keyboard shortcuts.",
            QMessageBox.Icon.Information,
        ).setObjectName("aboutBox")

    def show_status(self, text: str) -> None:
        self.statusBar().showMessage(text, STATUS_MS)

    def show_message(
        self, title: str, text: str, icon: QMessageBox.Icon = QMessageBox.Icon.Warning
    ) -> QMessageBox:
        box = QMessageBox(icon, title, text, QMessageBox.StandardButton.Ok, self)
        box.setTextFormat(Qt.TextFormat.PlainText)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.open()
        return box

    # -- state kept between runs -------------------------------------------------------------
    def _restore(self) -> None:
        placement.restore(self, self.settings, self.places.dock, self.splitters)
        self.tabs.setCurrentIndex(min(max(self.settings.note_tab, 0), 1))
        self.search_bar.check_filter(self.settings.filter)
        self.search_box.setText(self.settings.last_query)
        self.flow.last_paper = self.settings.last_paper

    def _save_settings(self) -> None:
        placement.save(self, self.settings, self.splitters)
        self.settings.last_query = self.search_box.text()
        self.settings.last_paper = self.current_id
        self.settings.filter = self.controller.filter
        self.settings.note_tab = self.tabs.currentIndex()
        self.settings.sync()

    # -- palette, closing ---------------------------------------------------------------------
    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange:
            self.results_view.viewport().update()
            self.focus.restyle()

    def closeEvent(self, event: QCloseEvent) -> None:
        if self._closed:
            event.accept()
            return
        self._closed = True
        self.note.flush(failed_too=True)
        self._save_settings()
        self.importer.cancel()
        self.duplicates.close()
        self.vectors.stop()
        self.map.close()
        self.executor.shutdown()
        event.accept()
