"""The note editor: Markdown, saved while typing (at most 800 ms behind), with a visible state."""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt, QTimer, Signal
from PySide6.QtGui import QFontDatabase, QTextDocument
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QStackedWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from desk.core.text.note_math import render_note_math
from desk.gui import theme
from desk.gui.safe_text import SafeTextBrowser, disarm_links

# Saving waits at most this long after the first unsaved keystroke, however fast one types: a
# kill or a crash loses less than a second of typing.  (A pause-only debounce would never save
# during steady typing.)
AUTOSAVE_MS = 800
# Raw HTML in a note is shown as text: a pasted <img src=…> or <style> is not interpreted.
_MD = QTextDocument.MarkdownFeature
NOTE_MARKDOWN = _MD.MarkdownDialectGitHub | _MD.MarkdownNoHTML
RETRY_MS = 2000  # a save that failed (a busy library) is tried again after this, then less often
MAX_RETRY_MS = 30_000

SAVED = "Saved"
EDITING = "Editing…"
SAVING = "Saving…"
NO_PAPER = "No paper selected"
NO_NOTE = "No note yet: press N to write one"


class NoteEditor(QWidget):
    """Edits the note of one paper at a time.

    `saveRequested(paper_id, text)` asks the window to write the note; it answers, in the
    order asked, with `saved(paper_id, text)` or `save_failed(paper_id, message)`.  Switching
    paper or closing calls `flush()` first, so nothing typed is left behind; a save that fails
    (another desk holds the library) is tried again, even after moving to another paper.
    """

    saveRequested = Signal(int, str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.paper_id: int | None = None
        self._saved_text = ""
        self._sent_text: str | None = None
        self._loading = False
        self._sending: dict[int, list[str]] = {}  # texts asked to be saved, per paper, oldest first
        self._unsaved: dict[int, str] = {}  # failed saves of papers no longer in the editor

        self.editor = QPlainTextEdit()
        self.editor.setObjectName("noteEditor")
        self.editor.setAccessibleName("Note")
        self.editor.setPlaceholderText("Your note, in Markdown (saved as you type)")
        self.editor.setTabChangesFocus(True)
        self.editor.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.preview = SafeTextBrowser()
        self.preview.setObjectName("notePreview")
        self.stack = QStackedWidget()
        self.stack.addWidget(self.editor)
        self.stack.addWidget(self.preview)

        self.state = QLabel(NO_PAPER)
        self.state.setObjectName("noteState")
        self.state.setTextFormat(Qt.TextFormat.PlainText)
        self.preview_button = QToolButton()
        self.preview_button.setObjectName("notePreviewButton")
        self.preview_button.setText("Preview")
        self.preview_button.setCheckable(True)
        self.preview_button.setToolTip("Show the note rendered, or edit it (Ctrl+Shift+P)")
        self.preview_button.toggled.connect(self.set_preview)

        top = QHBoxLayout()
        top.setContentsMargins(0, 0, 0, 0)
        top.addWidget(self.state, 1)
        top.addWidget(self.preview_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.setSpacing(4)
        layout.addLayout(top)
        layout.addWidget(self.stack, 1)

        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(AUTOSAVE_MS)
        self._timer.timeout.connect(self.flush)
        self._retry = QTimer(self)
        self._retry.setSingleShot(True)
        self._retry.setInterval(RETRY_MS)
        self._retry.timeout.connect(self._try_again)
        self.editor.textChanged.connect(self._edited)
        self.set_paper(None, "")

    # -- state -------------------------------------------------------------------------------
    def text(self) -> str:
        return self.editor.toPlainText()

    def is_dirty(self) -> bool:
        """Typed text not yet confirmed as saved."""
        return self.paper_id is not None and self.text() != self._saved_text

    def state_text(self) -> str:
        return self.state.text()

    def _set_state(self, text: str) -> None:
        self.state.setText(text)
        self.state.setAccessibleDescription(text)

    # -- switching paper -------------------------------------------------------------------------
    def set_paper(self, paper_id: int | None, note: str) -> None:
        """Show another paper's note; the current one is saved first if it changed."""
        if paper_id is not None and paper_id == self.paper_id and (self.is_dirty() or note == self.text()):
            return  # a reload of the same paper keeps what is typed and where the cursor is
        self.flush()
        if paper_id != self.paper_id and self.is_preview():
            self.set_preview(False)  # the preview is for the note in view, not a mode for every paper
        self.paper_id = paper_id
        self._saved_text = note
        self._sent_text = None
        unsaved = self._unsaved.pop(paper_id, None) if paper_id is not None else None
        self._loading = True
        try:
            self.editor.setPlainText(note if unsaved is None else unsaved)
        finally:
            self._loading = False
        self.editor.setReadOnly(paper_id is None)
        self.editor.setEnabled(paper_id is not None)
        self._set_state(NO_PAPER if paper_id is None else SAVED if note.strip() else NO_NOTE)
        if unsaved is not None:  # what was typed and not yet saved comes back, and is saved
            self._edited()
        if self.stack.currentWidget() is self.preview:
            self._render_preview()

    # -- saving ------------------------------------------------------------------------------
    def _edited(self) -> None:
        if self._loading or self.paper_id is None:
            return
        if self.is_dirty():
            self._set_state(EDITING)
            if not self._timer.isActive():  # a deadline from the first unsaved key, not a debounce
                self._timer.start()
        else:
            self._timer.stop()
            self._set_state(SAVED)

    def flush(self, *, failed_too: bool = False) -> None:
        """Ask for the note to be saved now if it changed (and was not already sent).

        `failed_too` also sends again the notes of other papers whose save failed (on closing).
        """
        self._timer.stop()
        if failed_too:
            self._resend_failed()
        if not self._unsaved:  # the timer stays for failed saves of other papers
            self._retry.stop()
        if self.paper_id is None or not self.is_dirty():
            return
        text = self.text()
        if text == self._sent_text:
            return
        self._sent_text = text
        self._set_state(SAVING)
        self._send(self.paper_id, text)

    def _send(self, paper_id: int, text: str) -> None:
        self._sending.setdefault(paper_id, []).append(text)
        self.saveRequested.emit(paper_id, text)

    def _answered(self, paper_id: int) -> str | None:
        """The text of the oldest save of a paper still waiting for its answer."""
        texts = self._sending.get(paper_id)
        text = texts.pop(0) if texts else None
        if not texts:
            self._sending.pop(paper_id, None)
        return text

    def saved(self, paper_id: int, text: str) -> None:
        """The window confirms a note is in the library."""
        self._answered(paper_id)
        self._unsaved.pop(paper_id, None)  # a later text of that paper is in: the failed one is moot
        if not self._unsaved:
            self._retry.setInterval(RETRY_MS)
        if paper_id != self.paper_id:
            return
        self._saved_text = text
        if self._sent_text == text:
            self._sent_text = None
        if self.text() == text:
            self._set_state(SAVED)
        elif self._sent_text is None:
            self._set_state(EDITING)

    def save_failed(self, paper_id: int, message: str) -> None:
        """A save did not reach the library (busy, say): keep the text and try again shortly."""
        text = self._answered(paper_id)
        if paper_id == self.paper_id:
            self._sent_text = None
            self._set_state(f"Not saved yet, trying again: {message}")
        elif text is not None and paper_id not in self._sending:  # no later text of it on the way
            self._unsaved[paper_id] = text
        if not self._retry.isActive():
            self._retry.start()

    def _try_again(self) -> None:
        # Each failed attempt waited for the library's busy timeout: back off so searches still run.
        self._retry.setInterval(min(self._retry.interval() * 2, MAX_RETRY_MS))
        self.flush(failed_too=True)

    def _resend_failed(self) -> None:
        for paper_id, text in list(self._unsaved.items()):
            del self._unsaved[paper_id]
            self._send(paper_id, text)

    # -- preview -----------------------------------------------------------------------------
    def set_preview(self, on: bool) -> None:
        """Show the note rendered as Markdown (Qt's own renderer) or the editor."""
        if self.preview_button.isChecked() != on:
            self.preview_button.setChecked(on)  # re-enters through toggled
            return
        self.preview_button.setText("Edit" if on else "Preview")
        if on:
            self.flush()
            self._render_preview()
            self.stack.setCurrentWidget(self.preview)
        else:
            self.stack.setCurrentWidget(self.editor)

    def is_preview(self) -> bool:
        return self.stack.currentWidget() is self.preview

    def _render_preview(self) -> None:
        self.preview.document().setDefaultStyleSheet(theme.html_style(self.palette()))
        text = self.text()
        if text.strip():
            # Math as the abstracts show it ($\epsilon$ is ε); what is saved stays as written.
            self.preview.document().setMarkdown(render_note_math(text), NOTE_MARKDOWN)
            disarm_links(self.preview.document())  # only web links stay links
        else:
            muted = theme.colors(self.palette()).muted.name()
            self.preview.setHtml(f'<p style="color: {muted}; font-weight: normal;">{NO_NOTE}.</p>')

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange and self.is_preview():
            self._render_preview()

    def focus_editor(self) -> None:
        """Leave the preview and put the cursor in the note."""
        self.set_preview(False)
        self.editor.setFocus(Qt.FocusReason.ShortcutFocusReason)
