"""One editing session of a note is one undo step, whatever the autosave wrote meanwhile.

A session runs from the moment the note editor gets the keys until they leave it (Esc, Tab,
a click elsewhere) or another paper comes into the editor. Every save of the session passes the
core's session token (`Library.begin_note_session`), so the saves extend one step of the undo
history; leaving flushes what is typed and ends the session (`end_note_session`), so Ctrl+Z
then takes the note back to what it was before the session.

The tokens live on the thread that writes notes (`submit_urgent`): saves and the end of a
session run there in the order asked, so a session never ends before its last save.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QFocusEvent

from desk.gui.reading.note_editor import NoteEditor
from desk.gui.workers import LibraryExecutor

if TYPE_CHECKING:  # desk.core.library.facade loads Whoosh: only the worker thread imports it
    from desk.core.library.facade import Library

# The focus leaving for a menu or a context menu does not end the session.
_STAYING = (Qt.FocusReason.PopupFocusReason,)
Session = Callable[["Library"], "str | None"]


class NoteSessions(QObject):
    """`for_save(paper_id)` gives each save its session (a function of the library, run with the save)."""

    def __init__(self, note: NoteEditor, executor: LibraryExecutor, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.note = note
        self.executor = executor
        self.editing = False  # the editor has the keys
        self._paper: int | None = None  # the paper of the open session
        self._number = 0  # the open session, when _paper is set
        self._tokens: dict[int, str] = {}  # session number → token (only on the notes thread)
        note.editor.installEventFilter(self)

    def for_save(self, paper_id: int) -> Session:
        """The session a save of `paper_id`'s note belongs to (none outside an editing session)."""
        if not self.editing or paper_id != self.note.paper_id:
            return lambda _lib: None  # a retried save of another paper: a step of its own
        if self._paper != paper_id:
            self.end()
            self._paper = paper_id
            self._number += 1
        number = self._number

        def token(lib: Library) -> str:
            if number not in self._tokens:
                self._tokens[number] = lib.begin_note_session(paper_id)
            return self._tokens[number]

        return token

    def end(self) -> None:
        """Close the open session: the next save is a new step."""
        if self._paper is None:
            return
        number = self._number
        self._paper = None

        def close(lib: Library) -> None:
            token = self._tokens.pop(number, None)
            if token is not None:
                lib.end_note_session(token)

        self.executor.submit_urgent(close)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.note.editor and isinstance(event, QFocusEvent):
            if event.type() == QEvent.Type.FocusIn:
                self.editing = True
            elif event.type() == QEvent.Type.FocusOut and event.reason() not in _STAYING:
                self.note.flush()  # what is typed goes in this session
                self.editing = False
                self.end()
        return False
