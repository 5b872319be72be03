"""The reading side of the window: the paper in view over its note and related papers, and what keys do to it.

`ReadingPane` owns the paper in view (`current_id`), loads it on the executor, and changes it
(star, read, note, title) there too.  It tells the window what changed through signals; it
never reaches into the window.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import QSplitter, QTabWidget, QWidget

from desk.core.records.detail import PaperDetail
from desk.core.records.page import PaperSummary
from desk.core.runtime.errors import PaperNotFound
from desk.gui.reading.note_editor import NoteEditor
from desk.gui.reading.note_sessions import NoteSessions
from desk.gui.reading.paper_view import PaperView, abstract_html, title_html
from desk.gui.reading.related import RelatedPanel
from desk.gui.workers import LibraryExecutor, plain_message

if TYPE_CHECKING:  # desk.core.library.facade loads Whoosh: only the worker thread imports it
    from desk.core.library.facade import Library
    from desk.core.search.model import Marks

PAPER_DELAY_MS = 40
STATE_WORDS = {"starred": ("Starred", "Unstarred"), "read": ("Marked read", "Marked unread")}


class ReadingPane(QSplitter):
    """The paper (title, meta, abstract) above tabs with its note and the related papers.

    `summariesChanged(dict)` after a change of papers (the list redraws their rows), `status(str)`
    for the status bar, `relatedChosen(id)` when a related paper is opened.
    """

    summariesChanged = Signal(object)  # dict[int, PaperSummary]
    status = Signal(str)
    relatedChosen = Signal(int)
    paperShown = Signal(object)  # PaperDetail: a paper is on screen (the history, the read marker)

    def __init__(
        self,
        executor: LibraryExecutor,
        terms: Callable[[], Sequence[str]],
        marks: Callable[[], Marks | None] = lambda: None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(Qt.Orientation.Vertical, parent)
        self.setObjectName("rightSplitter")
        self.executor = executor
        self.terms = terms  # the words of the search shown, to highlight
        self.marks = marks  # what that search marks (its phrases too), when known
        self.current_id: int | None = None
        self._note_after_load = False
        self.paper_view = PaperView()
        self.note = NoteEditor()
        self.related = RelatedPanel(executor)
        self.tabs = QTabWidget()
        self.tabs.setObjectName("paperTabs")
        self.tabs.addTab(self.note, "&Note")
        self.tabs.addTab(self.related, "&Related")
        self.addWidget(self.paper_view)
        self.addWidget(self.tabs)
        self.setStretchFactor(0, 3)
        self.setStretchFactor(1, 2)
        self.note.saveRequested.connect(self._save_note)
        self.sessions = NoteSessions(self.note, executor, self)  # one editing session, one undo step
        self.related.paperActivated.connect(self.relatedChosen)
        # Loads the highlighted paper a moment after the highlight moves (see `follow`).
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(PAPER_DELAY_MS)
        self._timer.timeout.connect(self.reload)

    # -- which paper -------------------------------------------------------------------------
    def follow(self, pid: int) -> None:
        """The highlight moved to `pid`: keys act on it at once, it is shown a moment later.

        The delay keeps typing and held-down j/k from being slowed by papers flashing past.
        """
        if pid != self.current_id:
            self.note.flush()
            self.current_id = pid
            self._timer.start()

    def reload(self) -> None:
        """Load the paper in view again (new highlights, or it changed)."""
        if self.current_id is not None:
            self.show_paper(self.current_id)

    def clear(self, message: str | None = None) -> None:
        """No paper in view (the list is empty); `message` says why, when given."""
        self.note.set_paper(None, "")
        self.current_id = None
        self.related.set_paper(None)
        if message is not None:
            self.paper_view.show_empty(message)

    def show_message(self, message: str) -> None:
        """A hint in place of the paper (opening, importing, nothing found)."""
        self.paper_view.show_empty(message)

    def show_paper(self, pid: int, *, focus: bool = False) -> None:
        """Load a paper (the note of the previous one is saved first); `focus` gives it the keys."""
        self._timer.stop()
        self.note.flush()
        self.current_id = pid
        terms, marks = tuple(self.terms()), self.marks()
        if self.paper_view.paper is None:
            self.paper_view.show_empty("")  # the paper follows in a moment

        def op(lib: Library) -> tuple[PaperDetail, str, str]:
            paper = lib.paper(pid)
            marker = None if marks is None else (lambda text: lib.marks_in(marks, [text])[0])
            return paper, abstract_html(paper, terms, marker), title_html(paper.title, marker)

        def done(loaded: tuple[PaperDetail, str, str]) -> None:
            paper, body, heading = loaded
            if pid != self.current_id:
                return
            self.paper_view.show_paper(paper, body, heading)
            self.note.set_paper(pid, paper.note)
            self.related.set_paper(pid)
            self.paperShown.emit(paper)
            if self._note_after_load:
                self._note_after_load = False
                self.note.focus_editor()
            elif focus:
                self.focus_abstract()

        def failed(exc: Exception) -> None:
            if pid == self.current_id:
                gone = isinstance(exc, PaperNotFound)
                self.paper_view.show_empty(
                    "This paper is no longer in the library." if gone else plain_message(exc)
                )
                self.note.set_paper(None, "")

        self.executor.submit(op, done, failed)

    def focus_abstract(self) -> None:
        self.paper_view.abstract.setFocus(Qt.FocusReason.ShortcutFocusReason)

    # -- changing papers ---------------------------------------------------------------------
    def _need_paper(self) -> int | None:
        if self.current_id is None:
            self.status.emit("Select a paper first.")
        return self.current_id

    def apply(self, summaries: dict[int, PaperSummary]) -> None:
        """Papers changed: update the one in view and tell the list."""
        for summary in summaries.values():
            self.paper_view.update_state(summary)
        self.summariesChanged.emit(summaries)

    def toggle(self, field: str) -> None:
        """`s` and `r`: flip the star or the reading state of the paper in view."""
        pid = self._need_paper()
        if pid is None:
            return

        def op(lib: Library) -> tuple[bool, dict[int, PaperSummary]]:
            now = lib.summaries([pid])
            if pid not in now:
                raise PaperNotFound(pid)
            value = not getattr(now[pid], field)
            (lib.set_starred if field == "starred" else lib.set_read)([pid], value)
            return value, lib.summaries([pid])

        def done(result: tuple[bool, dict[int, PaperSummary]]) -> None:
            value, summaries = result
            self.apply(summaries)
            words = STATE_WORDS[field]
            self.status.emit(words[0] if value else words[1])

        self.executor.submit(op, done)

    def _save_note(self, pid: int, text: str) -> None:
        session = self.sessions.for_save(pid)

        def op(lib: Library) -> dict[int, PaperSummary]:
            lib.set_note(pid, text, session(lib))
            return lib.summaries([pid])

        def done(summaries: dict[int, PaperSummary]) -> None:
            self.note.saved(pid, text)
            self.apply(summaries)

        # Urgent: a note is written within a second even while an import or a scan runs.
        self.executor.submit_urgent(op, done, lambda exc: self.note.save_failed(pid, plain_message(exc)))

    def edit_note(self) -> None:
        if self._need_paper() is None:
            return
        self.tabs.setCurrentWidget(self.note)
        if self.note.paper_id == self.current_id:
            self.note.focus_editor()
        else:
            self._note_after_load = True  # the paper is still loading: go there once it is in

    def toggle_preview(self) -> None:
        self.tabs.setCurrentWidget(self.note)
        self.note.set_preview(not self.note.is_preview())

    def show_related(self) -> None:
        if self._need_paper() is None:
            return
        self.tabs.setCurrentWidget(self.related)
        self.related.focus_list()

    def rename(self) -> None:
        pid = self._need_paper()
        paper = self.paper_view.paper
        if pid is None or paper is None or paper.id != pid:
            return

        def save(text: str) -> None:
            def op(lib: Library) -> dict[int, PaperSummary]:
                lib.set_title(pid, text or None)
                return lib.summaries([pid])

            def done(summaries: dict[int, PaperSummary]) -> None:
                self.apply(summaries)
                self.show_paper(pid)
                self.status.emit("Title saved (Ctrl+Z takes it back)")

            self.executor.submit(op, done)

        # In place of the title: Enter keeps it, Esc leaves it (no dialog over the paper).
        self.paper_view.title_edit.edit(paper.user_title or paper.title, save)
