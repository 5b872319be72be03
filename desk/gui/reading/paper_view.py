"""The paper on the right: title, its authors (all of them), venue and year, short name, collections
and sources, and the abstract."""

from __future__ import annotations

import html
from collections.abc import Callable, Collection, Sequence

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QFont, QPalette, QResizeEvent
from PySide6.QtWidgets import QLabel, QTextEdit, QVBoxLayout, QWidget

from desk.core.records.detail import PaperDetail
from desk.core.records.page import PaperSummary
from desk.gui import theme
from desk.gui.reading.title_edit import TitleEdit
from desk.gui.safe_text import SafeTextBrowser, plain_label
from desk.gui.search.by_author import linked_author, linked_authors
from desk.gui.search.tag_chips import chip_labels

Marker = Callable[[str], Sequence[tuple[int, int]]]
MEASURE = 90  # characters a line of the abstract holds at most (a readable measure is 60–100)
_MARGINS = (8, 6, 8, 0)  # left, top, right, bottom around the title, details and abstract


def abstract_html(paper: PaperDetail, terms: Collection[str], marker: Marker | None = None) -> str:
    """The abstract as an HTML fragment, the search's words marked `.hl`.

    `marker(text)` says where the search's words and phrases stand (the library's `marks_in`);
    without it, words whose stem is in `terms` are marked.  The core escapes every character
    that came from the file and links only http(s) URLs.  Slow-ish (LaTeX parsing): call it on
    the worker, with the paper.
    """
    from desk.core.text import parse_spans, spans_to_html  # loaded on the worker thread

    return spans_to_html(parse_spans(paper.abstract_raw or paper.abstract), terms, marker)


def title_html(title: str, marker: Marker | None = None) -> str:
    """The title as escaped HTML, the search's words marked `.hl` (on the worker too)."""
    from desk.core.text.render import marked_html

    return marked_html(title, marker(title) if marker is not None else ())


class PaperView(QWidget):
    """Shows one paper; text from files is only ever shown as plain text or escaped HTML.

    `authorRequested(name)`: a click on one of the authors' names (the window searches them)."""

    authorRequested = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.paper: PaperDetail | None = None
        self._html = ""
        self._title = ""
        self._title_html = ""
        self.title = plain_label("paperTitle")
        font = QFont(self.title.font())
        font.setPointSizeF(font.pointSizeF() * 1.3)
        font.setBold(True)
        self.title.setFont(font)
        self.title_edit = TitleEdit()  # F2: the title edited in place
        self.title_edit.setFont(font)
        self.meta = plain_label("paperMeta")
        self.tags = QLabel()  # chips: the names escaped, our own markup around them
        self.tags.setObjectName("paperTags")
        self.tags.setTextFormat(Qt.TextFormat.RichText)
        self.tags.setWordWrap(True)
        self.tag_numbers: dict[str, int] = {}  # a tag's digit (the order tags were made)
        self._chips: tuple[str, ...] = ()
        self._tag_names: tuple[str, ...] = ()
        self.authors = QLabel()  # each name a link to its `author:` search; the names escaped
        self.authors.setObjectName("paperAuthors")
        self.authors.setTextFormat(Qt.TextFormat.RichText)
        self.authors.setOpenExternalLinks(False)
        self.authors.setTextInteractionFlags(Qt.TextInteractionFlag.LinksAccessibleByMouse)
        self.authors.setWordWrap(True)
        self.authors.linkActivated.connect(self._author_clicked)
        self.sources = plain_label("paperSources")
        self.abstract = SafeTextBrowser()
        self.abstract.setObjectName("abstractView")
        self.abstract.setAccessibleName("Abstract")
        self.abstract.document().setDocumentMargin(10)
        reading = QFont(self.abstract.font())
        reading.setPointSizeF(reading.pointSizeF() * 1.08)
        self.abstract.setFont(reading)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(*_MARGINS)
        layout.setSpacing(4)
        layout.addWidget(self.title)
        layout.addWidget(self.title_edit)
        layout.addWidget(self.authors)
        layout.addWidget(self.meta)
        layout.addWidget(self.tags)
        layout.addWidget(self.sources)
        layout.addWidget(self.abstract, 1)
        # A reading measure: lines of about MEASURE characters however wide the window is.
        self.abstract.setLineWrapMode(QTextEdit.LineWrapMode.FixedPixelWidth)
        self.abstract.viewport().installEventFilter(self)  # its size is known once it is resized
        self._fit_measure()
        self._restyle()
        self.show_empty("")

    def show_empty(self, message: str) -> None:
        """No paper: a hint instead."""
        self.paper = None
        self._title_html = ""
        self.title.setTextFormat(Qt.TextFormat.PlainText)  # a query or a path may be in it
        self.title.setText(message)
        self.meta.clear()
        self.meta.hide()
        self.authors.clear()
        self.authors.hide()
        self.sources.clear()
        self.sources.hide()
        self._show_chips(())
        self.abstract.clear()

    def show_paper(self, paper: PaperDetail, body_html: str, heading_html: str | None = None) -> None:
        """Show a paper; `body_html` is the abstract as the core rendered it (`abstract_html`),
        `heading_html` its title, escaped, the search's words marked (`title_html`)."""
        same = self.paper is not None and self.paper.id == paper.id
        scroll = self.abstract.verticalScrollBar().value() if same else 0
        self.paper = paper
        self._html = body_html
        self._show_title(paper.title, heading_html)
        c = paper.citation
        parts = (linked_authors(c.authors), html.escape(c.where)) if c is not None else ()
        byline = "&nbsp;&nbsp;·&nbsp;&nbsp;".join(p for p in parts if p)
        self.authors.setText(byline)
        self.authors.setVisible(bool(byline))
        self.update_state(paper)
        where = [s.place for s in paper.sources]  # "#1" the first abstract, as `desk show` says
        label = "Source" if len(where) == 1 else "Sources"
        self.sources.setText(f"{label}: " + ", ".join(where) if where else "")
        self.sources.setVisible(bool(where))
        self._render()
        self.abstract.verticalScrollBar().setValue(scroll)

    def _author_clicked(self, href: str) -> None:
        authors = self.paper.citation.authors if self.paper is not None and self.paper.citation else ()
        name = linked_author(href, authors)
        if name is not None:
            self.authorRequested.emit(name)

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
        if summary.copies > 1:
            parts.append(f"{summary.copies} copies (Ctrl+Shift+D reviews them)")
        self.meta.setText("  ·  ".join(parts))
        self.meta.show()
        self._tag_names = summary.tags
        self._show_chips(chip_labels(summary.tags, self.tag_numbers))
        if summary.title != self._title:
            self._show_title(summary.title, None)  # renamed: its marks are gone with the old title

    def set_tag_numbers(self, numbers: dict[str, int]) -> None:
        """The digits beside the tags changed: the chips again."""
        self.tag_numbers = dict(numbers)
        if self.paper is not None:
            self._show_chips(chip_labels(self._tag_names, self.tag_numbers))

    def chips(self) -> tuple[str, ...]:
        """The tags as their chips read ("1 reading group"), for tests and accessibility."""
        return self._chips

    def _show_chips(self, chips: tuple[str, ...]) -> None:
        self._chips = chips
        if not chips:
            self.tags.clear()
            self.tags.hide()
            return
        colors = theme.colors(self.palette())
        style = f"background-color: {colors.badge_background.name()}; color: {colors.badge_text.name()};"
        spans = (f'<span style="{style}">&nbsp;{html.escape(c)}&nbsp;</span>' for c in chips)
        self.tags.setText("&nbsp;&nbsp;".join(spans))
        self.tags.setAccessibleName("Tags: " + ", ".join(chips))
        self.tags.show()

    def _show_title(self, title: str, heading_html: str | None) -> None:
        self._title = title
        self._title_html = heading_html if heading_html is not None else html.escape(title)
        if '<span class="hl">' not in self._title_html:  # nothing marked: the title as plain text
            self.title.setTextFormat(Qt.TextFormat.PlainText)
            self.title.setText(title)
            return
        self.title.setTextFormat(Qt.TextFormat.RichText)  # escaped by the core (marked_html)
        self.title.setText(self._title_html.replace('<span class="hl">', theme.mark_span(self.palette())))

    def _render(self) -> None:
        if self.paper is None:
            return
        self.abstract.document().setDefaultStyleSheet(theme.html_style(self.palette()))
        self.abstract.setHtml(f"<p>{self._html}</p>")

    def _restyle(self) -> None:
        if self.paper is not None:
            self._show_title(self._title, self._title_html)
            self._show_chips(self._chips)
        pal = self.sources.palette()
        pal.setColor(QPalette.ColorRole.WindowText, theme.colors(self.palette()).muted)
        self.sources.setPalette(pal)
        self._render()

    def measure_px(self) -> int:
        """The widest line of the abstract, in pixels: MEASURE average characters."""
        return round(MEASURE * self.abstract.fontMetrics().averageCharWidth())

    def _fit_measure(self) -> None:
        margin = 2 * round(self.abstract.document().documentMargin()) + 4
        width = max(120, min(self.measure_px(), self.abstract.viewport().width() - margin))
        if self.abstract.lineWrapColumnOrWidth() != width:
            self.abstract.setLineWrapColumnOrWidth(width)

    def resizeEvent(self, event: QResizeEvent) -> None:
        """A pane wider than the measure (triage fills the window) centres the paper as one column."""
        super().resizeEvent(event)
        frame = self.abstract.width() - self.abstract.viewport().width()
        column = self.measure_px() + 2 * round(self.abstract.document().documentMargin()) + 4 + frame
        left, top, right, bottom = _MARGINS
        pad = max(0, (event.size().width() - left - right - column) // 2)
        layout = self.layout()
        if layout is not None and layout.contentsMargins().left() != left + pad:
            layout.setContentsMargins(left + pad, top, right + pad, bottom)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.abstract.viewport() and event.type() == QEvent.Type.Resize:
            self._fit_measure()
        return False

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange:
            self._restyle()
