"""The paper on the right: title, short name, collections and sources, and the abstract."""

from __future__ import annotations

from collections.abc import Collection

from PySide6.QtCore import QEvent, Qt, QUrl, Signal
from PySide6.QtGui import QDesktopServices, QFont, QPalette, QTextCharFormat, QTextCursor, QTextDocument
from PySide6.QtWidgets import QLabel, QSizePolicy, QTextBrowser, QVBoxLayout, QWidget

from desk.core.records import PaperDetail, PaperSummary
from desk.gui import theme

SAFE_SCHEMES = frozenset({"http", "https"})


def open_external(url: QUrl) -> bool:
    """Open a web link in the system browser; anything else (file:, javascript:, …) is ignored."""
    if url.scheme().lower() in SAFE_SCHEMES and url.isValid():
        return QDesktopServices.openUrl(url)
    return False


def disarm_links(document: QTextDocument) -> int:
    """Make every link that is not http(s) plain text (a note's [x](javascript:…)); returns how many."""
    unsafe: list[tuple[int, int]] = []
    block = document.begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            fragment = it.fragment()
            fmt = fragment.charFormat()
            if fmt.isAnchor() and QUrl(fmt.anchorHref()).scheme().lower() not in SAFE_SCHEMES:
                unsafe.append((fragment.position(), fragment.length()))
            it += 1
        block = block.next()
    cursor = QTextCursor(document)
    for start, length in unsafe:
        cursor.setPosition(start)
        cursor.setPosition(start + length, QTextCursor.MoveMode.KeepAnchor)
        fmt = QTextCharFormat(cursor.charFormat())
        fmt.setAnchor(False)
        fmt.setAnchorHref("")
        cursor.setCharFormat(fmt)
    return len(unsafe)


class SafeTextBrowser(QTextBrowser):
    """A text browser that never loads anything: no images, no style sheets, no navigation.

    Links go to the system browser (http/https only) through `anchorClicked`.
    """

    linkOpened = Signal(QUrl)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setOpenLinks(False)
        self.setOpenExternalLinks(False)
        self.anchorClicked.connect(self._clicked)

    def loadResource(self, type: int, name: QUrl | str) -> object:
        return None

    def _clicked(self, url: QUrl) -> None:
        if open_external(url):
            self.linkOpened.emit(url)


def abstract_html(paper: PaperDetail, terms: Collection[str]) -> str:
    """The abstract as an HTML fragment, words whose stem is in `terms` marked `.hl`.

    The core escapes every character that came from the file and links only http(s)
    URLs.  Slow-ish (LaTeX parsing): call it on the worker, with the paper.
    """
    from desk.core.text import parse_spans, spans_to_html  # loaded on the worker thread

    return spans_to_html(parse_spans(paper.abstract_raw or paper.abstract), terms)


def plain_label(object_name: str, *, wrap: bool = True) -> QLabel:
    """A selectable label that shows text as text: file text is never markup."""
    label = QLabel()
    label.setObjectName(object_name)
    label.setTextFormat(Qt.TextFormat.PlainText)  # text from files is never markup
    label.setWordWrap(wrap)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    label.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Minimum)
    return label


class PaperView(QWidget):
    """Shows one paper; text from files is only ever shown as plain text or escaped HTML."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.paper: PaperDetail | None = None
        self._html = ""
        self.title = plain_label("paperTitle")
        font = QFont(self.title.font())
        font.setPointSizeF(font.pointSizeF() * 1.3)
        font.setBold(True)
        self.title.setFont(font)
        self.meta = plain_label("paperMeta")
        self.sources = plain_label("paperSources")
        self.abstract = SafeTextBrowser()
        self.abstract.setObjectName("abstractView")
        self.abstract.setAccessibleName("Abstract")
        self.abstract.document().setDocumentMargin(10)
        reading = QFont(self.abstract.font())
        reading.setPointSizeF(reading.pointSizeF() * 1.08)
        self.abstract.setFont(reading)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 6, 8, 0)
        layout.setSpacing(4)
        layout.addWidget(self.title)
        layout.addWidget(self.meta)
        layout.addWidget(self.sources)
        layout.addWidget(self.abstract, 1)
        self._restyle()
        self.show_empty("")

    def show_empty(self, message: str) -> None:
        """No paper: a hint instead."""
        self.paper = None
        self.title.setText(message)
        self.meta.clear()
        self.meta.hide()
        self.sources.clear()
        self.sources.hide()
        self.abstract.clear()

    def show_paper(self, paper: PaperDetail, body_html: str) -> None:
        """Show a paper; `body_html` is the abstract as the core rendered it (`abstract_html`)."""
        same = self.paper is not None and self.paper.id == paper.id
        scroll = self.abstract.verticalScrollBar().value() if same else 0
        self.paper = paper
        self._html = body_html
        self.title.setText(paper.title)
        self.update_state(paper)
        where = [f"{s.file} #{s.index}" for s in paper.sources]
        label = "Source" if len(where) == 1 else "Sources"
        self.sources.setText(f"{label}: " + ", ".join(where) if where else "")
        self.sources.setVisible(bool(where))
        self._render()
        self.abstract.verticalScrollBar().setValue(scroll)

    def update_state(self, summary: PaperSummary) -> None:
        """Refresh the line with short name, collections and the star/read/note state."""
        if self.paper is None or self.paper.id != summary.id:
            return
        parts = []
        if summary.short_name:
            parts.append(summary.short_name)
        parts.extend(summary.collections)
        parts.append("★ starred" if summary.starred else "not starred")
        parts.append("read" if summary.read else "unread")
        if summary.has_note:
            parts.append("has a note")
        self.meta.setText("  ·  ".join(parts))
        self.meta.show()
        if summary.title != self.title.text():
            self.title.setText(summary.title)

    def _render(self) -> None:
        if self.paper is None:
            return
        self.abstract.document().setDefaultStyleSheet(theme.html_style(self.palette()))
        self.abstract.setHtml(f"<p>{self._html}</p>")

    def _restyle(self) -> None:
        pal = self.sources.palette()
        pal.setColor(QPalette.ColorRole.WindowText, theme.colors(self.palette()).muted)
        self.sources.setPalette(pal)
        self._render()

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange:
            self._restyle()
