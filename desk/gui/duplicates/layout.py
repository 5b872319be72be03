"""The widgets of the duplicates review and their colours; what the keys do is in duplicates_view.

A header (group, similarity, which other paper), the two `SidePanel`s or the empty page,
the legend of the marks, the row of buttons and the status line.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QFont, QShowEvent
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from desk.gui import theme
from desk.gui.duplicates.side import SidePanel, diff_marks
from desk.gui.organize.ask_bar import AskBar

EMPTY = "No near-duplicates to review"
EMPTY_DETAIL = (
    "When a paper you import looks like one already here (an edited version, a truncated copy, "
    "a typo fixed), it is offered here for review."
)


class DuplicatesLayout(QDialog):
    """The review's widgets, built once; `DuplicatesDialog` fills them in and acts on the keys."""

    def _build(self) -> None:
        self.group_label = QLabel()
        self.group_label.setObjectName("duplicatesGroup")
        bold = QFont(self.group_label.font())
        bold.setBold(True)
        self.group_label.setFont(bold)
        self.similarity_label = QLabel()
        self.similarity_label.setObjectName("duplicatesSimilarity")
        self.exact_label = QLabel("same text after cleanup")
        self.exact_label.setObjectName("duplicatesExact")
        self.exact_label.setToolTip(
            "The abstracts differ only in case, punctuation, markup or how the math is written: "
            "safe to merge."
        )
        self.selector = QComboBox()
        self.selector.setObjectName("duplicatesOther")
        self.selector.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.selector.setToolTip("Which other paper of the group is on the right (↑ / ↓)")
        self.selector.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.selector.setMaximumWidth(420)
        self.selector_label = QLabel("Compare the first paper with:")
        header = QHBoxLayout()
        header.addWidget(self.group_label)
        header.addSpacing(12)
        header.addWidget(self.similarity_label)
        header.addWidget(self.exact_label)
        header.addStretch(1)
        header.addWidget(self.selector_label)
        header.addWidget(self.selector)

        self.left = SidePanel("left")
        self.right = SidePanel("right")
        compare = QWidget()
        sides = QHBoxLayout(compare)
        sides.setContentsMargins(0, 0, 0, 0)
        sides.setSpacing(12)
        sides.addWidget(self.left, 1)
        sides.addWidget(self.right, 1)
        self.empty = QLabel(EMPTY)
        self.empty.setObjectName("duplicatesEmpty")
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty.setWordWrap(True)
        self.empty.setTextFormat(Qt.TextFormat.PlainText)
        big = QFont(self.empty.font())
        big.setPointSizeF(big.pointSizeF() * 1.3)
        self.empty.setFont(big)
        self.empty_detail = QLabel(EMPTY_DETAIL)
        self.empty_detail.setObjectName("duplicatesEmptyDetail")
        self.empty_detail.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty_detail.setWordWrap(True)
        empty_page = QWidget()
        empty_layout = QVBoxLayout(empty_page)
        empty_layout.addStretch(1)
        empty_layout.addWidget(self.empty)
        empty_layout.addWidget(self.empty_detail)
        empty_layout.addStretch(2)
        self.pages = QStackedWidget()
        self.pages.addWidget(compare)
        self.pages.addWidget(empty_page)

        self.legend = QLabel()
        self.legend.setObjectName("duplicatesLegend")
        self.legend.setTextFormat(Qt.TextFormat.RichText)  # our own words only
        self.status = QLabel()
        self.status.setObjectName("duplicatesStatus")
        self.status.setTextFormat(Qt.TextFormat.PlainText)
        self.status.setWordWrap(True)

        self.buttons: dict[str, QPushButton] = {}
        row = QHBoxLayout()
        for name, text in (
            ("merge_left", "Merge, keep left"),
            ("merge_right", "Keep right"),
            ("distinct", "Not a duplicate"),
            (None, None),
            ("previous_group", "← Previous"),
            ("next_group", "Skip →"),
            ("undo_merge", "Undo"),
            (None, None),
            ("merge_exact", "Merge all exact…"),
            ("merge_truncations", "Merge all truncations…"),
            ("close_review", "Close"),
        ):
            if name is None:
                row.addSpacing(16)
                continue
            button = QPushButton(text)
            button.setObjectName(f"{name}Button")
            button.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # Space skips, it never presses a button
            button.setAutoDefault(False)
            self.buttons[name] = button
            row.addWidget(button)
            if name == "undo_merge":
                row.addStretch(1)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 10, 10, 8)
        layout.addLayout(header)
        layout.addWidget(self.pages, 1)
        layout.addWidget(self.legend)
        layout.addLayout(row)
        # A batch merge's preview and question, inside the review (Enter merges, Esc does not).
        self.ask = AskBar()
        self.ask.setObjectName("reviewAsk")
        layout.addWidget(self.ask)
        layout.addWidget(self.status)

    # -- showing, palette ---------------------------------------------------------------------
    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self.setFocus(Qt.FocusReason.ActiveWindowFocusReason)

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange:
            self._restyle()

    def _restyle(self) -> None:
        c = theme.colors(self.palette())
        self.exact_label.setStyleSheet(
            f"background: {c.badge_background.name()}; color: {c.badge_text.name()};"
            " border-radius: 4px; padding: 1px 6px;"
        )
        for label in (self.similarity_label, self.empty_detail, self.status):
            label.setStyleSheet(f"color: {c.muted.name()};")
        marks = diff_marks(self.palette())
        deleted, inserted = marks["del"], marks["ins"]
        self.legend.setText(
            f'<span style="{deleted}">struck through</span>: words only the left copy has'
            f' &nbsp;·&nbsp; <span style="{inserted}">underlined</span>: words only the right copy has'
        )
        for side in (self.left, self.right):
            side.restyle()
