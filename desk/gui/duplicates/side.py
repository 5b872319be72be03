"""One side of the duplicates review: a paper's title, collections, sources and marked abstract.

Also the marks themselves: the words only one copy has, struck through on the left and
underlined on the right.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont, QPalette
from PySide6.QtWidgets import QVBoxLayout, QWidget

from desk.core.records.detail import PaperDetail
from desk.gui import theme
from desk.gui.duplicates.data import Side
from desk.gui.reading.paper_view import SafeTextBrowser, plain_label


def diff_marks(palette: QPalette) -> dict[str, str]:
    """CSS for the words only one copy has: struck through on the left, underlined on the right.

    Colour is not the only cue: strike-through and underline read without it.
    """
    if theme.is_dark(palette):
        deleted, inserted = ("#5c2328", "#ffd9d4"), ("#1f4a2c", "#d4f8dc")
    else:
        deleted, inserted = ("#ffd6d3", "#82101a"), ("#c8efd2", "#0b4a1b")
    return {
        "del": f"background-color: {deleted[0]}; color: {deleted[1]}; text-decoration: line-through;",
        "ins": f"background-color: {inserted[0]}; color: {inserted[1]}; text-decoration: underline;",
    }


def diff_style(palette: QPalette) -> str:
    """The style sheet of the two abstract views' marks."""
    return "".join(f".{name} {{ {css} }}\n" for name, css in diff_marks(palette).items())


def paper_meta(paper: PaperDetail) -> str:
    parts = [paper.short_name] if paper.short_name else []
    parts.extend(paper.collections)
    parts.append("★ starred" if paper.starred else "not starred")
    parts.append("read" if paper.read else "unread")
    if paper.has_note:
        parts.append("has a note")
    return "  ·  ".join(parts)


def paper_sources(paper: PaperDetail) -> str:
    where = [s.place for s in paper.sources]  # 1-based, as everywhere a person reads it
    return ("Source: " if len(where) == 1 else "Sources: ") + ", ".join(where) if where else ""


class SidePanel(QWidget):
    """One paper of the pair: which key keeps it, its title, collections, sources, and abstract."""

    def __init__(self, side: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.side = side
        self.caption = plain_label(f"{side}Caption")
        self.title = plain_label(f"{side}Title")
        font = QFont(self.title.font())
        font.setPointSizeF(font.pointSizeF() * 1.15)
        font.setBold(True)
        self.title.setFont(font)
        self.meta = plain_label(f"{side}Meta")
        self.sources = plain_label(f"{side}Sources")
        self.abstract = SafeTextBrowser()
        self.abstract.setObjectName(f"{side}Abstract")
        self.abstract.setAccessibleName(f"Abstract on the {side}")
        self.abstract.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # keys stay with the review
        self.abstract.document().setDocumentMargin(8)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(3)
        for w in (self.caption, self.title, self.meta, self.sources):
            layout.addWidget(w)
        layout.addWidget(self.abstract, 1)
        self._html = ""

    def show_side(self, side: Side, caption: str) -> None:
        self.caption.setText(caption)
        self.title.setText(side.paper.title)
        self.meta.setText(paper_meta(side.paper))
        self.sources.setText(paper_sources(side.paper))
        self._html = side.html
        self.show_html()

    def show_html(self) -> None:
        """Lay out the abstract's HTML again in the current palette."""
        doc = self.abstract.document()
        doc.setDefaultStyleSheet(theme.html_style(self.palette()) + diff_style(self.palette()))
        self.abstract.setHtml(f"<p>{self._html}</p>")

    def restyle(self) -> None:
        muted = theme.colors(self.palette()).muted
        for label in (self.caption, self.sources):
            pal = label.palette()
            pal.setColor(QPalette.ColorRole.WindowText, muted)
            label.setPalette(pal)
        self.show_html()
