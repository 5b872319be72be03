"""Draws one result: markers, title, short name, authors (first three), venue and year, collection and a
two-line snippet with highlights."""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QPointF, QRect, QSize, Qt
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontMetrics,
    QPainter,
    QPalette,
    QTextCharFormat,
    QTextLayout,
    QTextLine,
    QTextOption,
)
from PySide6.QtWidgets import QApplication, QStyle, QStyledItemDelegate, QStyleOptionViewItem

from desk.core.records.page import PaperSummary
from desk.gui import theme
from desk.gui.search.marks import ELLIPSIS, cut_to_first_mark, format_ranges, utf16_length
from desk.gui.search.model import MISSING, PLACEHOLDER, Roles

PAD = 8
GUTTER = 16  # the unread dot's column
SNIPPET_LINES = 2
CHIP_MAX = 140  # a long tag name is cut in its chip

STAR = "★"
NOTE = "✎"
UNREAD = "●"

Index = QModelIndex | QPersistentModelIndex


def row_byline(summary: PaperSummary) -> tuple[str, ...]:
    """What a row shows before the collections: the first three authors ("et al." after), then
    venue and year; () for a paper from bare lists."""
    c = summary.citation
    if c is None:
        return ()
    return tuple(part for part in (c.byline(3), c.where) if part)


class ResultDelegate(QStyledItemDelegate):
    """Palette-aware painting; every row has the same height (the view uses uniform sizes)."""

    def _fonts(self, option: QStyleOptionViewItem) -> tuple[QFont, QFont, QFont]:
        base = QFont(option.font)
        title = QFont(base)
        title.setBold(True)
        small = QFont(base)
        small.setPointSizeF(max(base.pointSizeF() * 0.88, 7.0))
        return title, small, base

    def sizeHint(self, option: QStyleOptionViewItem, index: Index) -> QSize:
        title, small, base = self._fonts(option)
        h = (
            QFontMetrics(title).height()
            + QFontMetrics(small).height()
            + SNIPPET_LINES * QFontMetrics(base).lineSpacing()
            + 2 * PAD
            + 6
        )
        return QSize(320, h)

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: Index) -> None:
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        opt.text = ""
        widget = opt.widget
        if opt.state & QStyle.StateFlag.State_Selected and widget is not None and not widget.hasFocus():
            # The keys are elsewhere: the highlighted hit is shown softly, the list has no frame.
            pal = QPalette(opt.palette)
            role = QPalette.ColorRole
            pal.setColor(role.Highlight, theme.blend(pal.color(role.Highlight), pal.color(role.Base), 0.28))
            pal.setColor(role.HighlightedText, pal.color(role.Text))
            opt.palette = pal
        style = widget.style() if widget is not None else QApplication.style()
        style.drawPrimitive(QStyle.PrimitiveElement.PE_PanelItemViewItem, opt, painter, widget)

        painter.save()
        try:
            self._paint_content(painter, opt, index)
        finally:
            painter.restore()

    def _paint_content(self, painter: QPainter, opt: QStyleOptionViewItem, index: Index) -> None:
        pal: QPalette = opt.palette
        selected = bool(opt.state & QStyle.StateFlag.State_Selected)
        enabled = bool(opt.state & QStyle.StateFlag.State_Enabled)
        group = QPalette.ColorGroup.Normal if enabled else QPalette.ColorGroup.Disabled
        text_role = QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.Text
        text = pal.color(group, text_role)
        colors = theme.colors(pal)
        muted = theme.blend(text, pal.color(QPalette.ColorRole.Highlight), 0.8) if selected else colors.muted
        title_font, small_font, base_font = self._fonts(opt)
        rect = opt.rect.adjusted(PAD, PAD, -PAD, -PAD)

        summary: PaperSummary | None = index.data(Roles.Summary)
        if summary is None:
            painter.setFont(base_font)
            painter.setPen(muted)
            label = index.data(Qt.ItemDataRole.DisplayRole) or PLACEHOLDER
            if label == MISSING:
                painter.setPen(pal.color(QPalette.ColorGroup.Disabled, QPalette.ColorRole.Text))
            painter.drawText(rect.adjusted(GUTTER, 0, 0, 0), Qt.AlignmentFlag.AlignLeft, label)
            return

        # Line 1: unread dot, title, star and note markers on the right.
        tfm = QFontMetrics(title_font)
        y = rect.top()
        line1 = QRect(rect.left(), y, rect.width(), tfm.height())
        markers = (STAR if summary.starred else "") + (NOTE if summary.has_note else "")
        painter.setFont(title_font)
        right = rect.right()
        if markers:
            mw = tfm.horizontalAdvance(markers) + 2
            mx = right - mw
            if summary.starred:
                painter.setPen(colors.star)
                painter.drawText(QRect(mx, y, mw, tfm.height()), Qt.AlignmentFlag.AlignLeft, STAR)
                mx += tfm.horizontalAdvance(STAR)
            if summary.has_note:
                painter.setPen(colors.note if not selected else text)
                painter.drawText(QRect(mx, y, mw, tfm.height()), Qt.AlignmentFlag.AlignLeft, NOTE)
            right -= mw + 6
        if not summary.read:
            painter.setPen(colors.unread if not selected else text)
            painter.drawText(QRect(rect.left(), y, GUTTER, tfm.height()), Qt.AlignmentFlag.AlignLeft, UNREAD)
        title_rect = QRect(line1.left() + GUTTER, y, right - line1.left() - GUTTER, tfm.height())
        painter.setPen(text)
        title = tfm.elidedText(summary.title, Qt.TextElideMode.ElideRight, title_rect.width())
        title_marks = index.data(Roles.TitleHighlights) or ()
        if title_marks:  # the eliding keeps the start: marks past the cut go
            shown = len(title) - (1 if title != summary.title else 0)
            title_marks = tuple((s, min(e, shown)) for s, e in title_marks if s < shown)
            layout = QTextLayout(title, title_font)
            layout.setFormats(format_ranges(title, title_marks, _mark_format(colors)))
            layout.beginLayout()
            line = layout.createLine()
            line.setLineWidth(title_rect.width() + 4)
            layout.endLayout()
            layout.draw(painter, QPointF(title_rect.topLeft()))
        else:
            painter.drawText(title_rect, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, title)
        y += tfm.height() + 2

        # Line 2: short name badge, then the collections.
        sfm = QFontMetrics(small_font)
        painter.setFont(small_font)
        x = rect.left() + GUTTER
        if summary.short_name:
            bw = sfm.horizontalAdvance(summary.short_name) + 10
            badge = QRect(x, y, min(bw, rect.width() // 2), sfm.height())
            marked = bool(index.data(Roles.ShortNameHighlights))  # the query names the method
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(colors.hl_background if marked else colors.badge_background)
            painter.drawRoundedRect(badge, 3, 3)
            painter.setPen(colors.hl_text if marked else colors.badge_text)
            painter.drawText(
                badge,
                Qt.AlignmentFlag.AlignCenter,
                sfm.elidedText(summary.short_name, Qt.TextElideMode.ElideRight, badge.width() - 6),
            )
            x += badge.width() + 6
        x = self._draw_chips(painter, index.data(Roles.TagChips) or (), sfm, x, y, rect.right(), muted)
        meta = " · ".join(row_byline(summary) + summary.collections)
        if len(summary.sources) > 1:
            meta += f" · {len(summary.sources)} sources"
        if summary.copies > 1:  # near-duplicates not yet reviewed: one row for them all
            meta += f" · {summary.copies} copies"
        painter.setPen(muted)
        meta_rect = QRect(x, y, rect.right() - x, sfm.height())
        painter.drawText(
            meta_rect,
            Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
            sfm.elidedText(meta, Qt.TextElideMode.ElideRight, meta_rect.width()),
        )
        y += sfm.height() + 4

        # Lines 3-4: the snippet with the matched words marked.
        snippet: str = index.data(Roles.Snippet) or ""
        if snippet:
            highlights = index.data(Roles.Highlights) or ()
            left = rect.left() + GUTTER
            self._draw_snippet(
                painter, snippet, highlights, base_font, QPointF(left, y), rect.right() - left, text, colors
            )

    @staticmethod
    def _draw_chips(
        painter: QPainter, chips: tuple[str, ...], sfm: QFontMetrics, x: int, y: int, right: int, pen: QColor
    ) -> int:
        """The tags as outlined chips after the short name, as many as fit in two thirds of the
        room left (the collections keep the rest), then "+N" for those that did not. Returns
        where the line goes on."""
        end = x + (right - x) * 2 // 3
        painter.setPen(pen)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        for n, chip in enumerate(chips):
            width = min(sfm.horizontalAdvance(chip) + 10, CHIP_MAX)
            rest = len(chips) - n - 1
            reserve = sfm.horizontalAdvance(f"+{rest}") + 6 if rest else 0
            if x + width + reserve > end:
                more = f"+{len(chips) - n}"
                painter.drawText(QRect(x, y, sfm.horizontalAdvance(more) + 2, sfm.height()), 0, more)
                return x + sfm.horizontalAdvance(more) + 8
            box = QRect(x, y, width, sfm.height())
            painter.drawRoundedRect(box.adjusted(0, 0, -1, -1), 6, 6)
            text = sfm.elidedText(chip, Qt.TextElideMode.ElideRight, width - 8)
            painter.drawText(box, Qt.AlignmentFlag.AlignCenter, text)
            x += width + 4
        return x + (2 if chips else 0)

    @staticmethod
    def _draw_snippet(
        painter: QPainter,
        snippet: str,
        highlights: tuple[tuple[int, int], ...],
        font: QFont,
        origin: QPointF,
        width: int,
        pen: QColor,
        colors: theme.Colors,
    ) -> None:
        if width <= 10:
            return
        text = snippet.replace("\n", " ").replace("\r", " ")
        layout, lines = _snippet_layout(text, highlights, font, width, colors)
        if highlights and lines:
            last = lines[-1]
            visible = last.textStart() + last.textLength()  # UTF-16 units; near enough to decide
            if min(s for s, _ in highlights) >= visible - 2:
                # The match is past what shows (a short abstract's snippet is all of it): cut in front.
                text, highlights = cut_to_first_mark(text, highlights, visible)
                layout, lines = _snippet_layout(text, highlights, font, width, colors)
        painter.setPen(pen)
        layout.draw(painter, origin)
        if lines:
            last = lines[-1]
            if last.textStart() + last.textLength() < utf16_length(text):
                painter.drawText(
                    origin + QPointF(last.naturalTextWidth(), last.y() + last.ascent()), ELLIPSIS
                )


def _mark_format(colors: theme.Colors) -> QTextCharFormat:
    fmt = QTextCharFormat()
    fmt.setBackground(colors.hl_background)
    fmt.setForeground(colors.hl_text)
    return fmt


def _snippet_layout(
    text: str, highlights: tuple[tuple[int, int], ...], font: QFont, width: int, colors: theme.Colors
) -> tuple[QTextLayout, list[QTextLine]]:
    """The snippet laid out in at most SNIPPET_LINES lines, room for "…" left on the last."""
    layout = QTextLayout(text, font)
    option = QTextOption()
    option.setWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
    layout.setTextOption(option)
    layout.setFormats(format_ranges(text, highlights, _mark_format(colors)))
    fm = QFontMetrics(font)
    ew = fm.horizontalAdvance(ELLIPSIS)
    layout.beginLayout()
    y = 0.0
    lines: list[QTextLine] = []
    for n in range(SNIPPET_LINES):
        line = layout.createLine()
        if not line.isValid():
            break
        line.setLineWidth(width - (ew if n == SNIPPET_LINES - 1 else 0))
        line.setPosition(QPointF(0, y))
        y += fm.lineSpacing()
        lines.append(line)
    layout.endLayout()
    return layout, lines
