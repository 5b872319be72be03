"""The search box, the filter buttons beside it, and the line under it for hints and "did you mean".

The hint line is always there (empty when there is nothing to say), so the box never changes
width and the list never moves while a query is typed.
"""

from __future__ import annotations

import html

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import (
    QButtonGroup,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QSizePolicy,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from desk.gui import theme
from desk.gui.search.controller import Outcome

FILTER_STYLE = (
    "QToolButton { padding: 3px 10px; border: 1px solid palette(mid); border-radius: 4px; }"
    "QToolButton:checked { background: palette(highlight); color: palette(highlighted-text);"
    " border-color: palette(highlight); }"
)
FILTER_LABELS = (("all", "All"), ("starred", "Starred"), ("unread", "Unread"), ("notes", "With notes"))
CHIP_KINDS = {"in": "Collection", "tag": "Tag", "saved": "Saved search"}
CHIP_STYLE = (
    "QToolButton#filterChip { padding: 2px 8px; border: 1px solid palette(highlight);"
    " border-radius: 9px; background: palette(alternate-base); }"
)
CHIP_MAX = 260  # pixels: a long collection name is cut in its chip (the tooltip has it whole)


def chip_label(filter_name: str) -> str | None:
    """The chip of a sidebar entry's filter: `in:"ICML 2026 Papers"` is "Collection: ICML 2026
    Papers"; None for the built-in filters (their buttons show them) and for "all"."""
    kind, colon, rest = filter_name.partition(":")
    if not colon or kind not in CHIP_KINDS:
        return None
    name = rest[1:-1] if len(rest) >= 2 and rest[0] == rest[-1] == '"' else rest
    return f"{CHIP_KINDS[kind]}: {name}"


# Keys that move the highlight in the list while the search box has the keys.
MOVE_KEYS = {Qt.Key.Key_Up: -1, Qt.Key.Key_Down: 1, Qt.Key.Key_PageUp: -10, Qt.Key.Key_PageDown: 10}


class SearchBar(QWidget):
    """The search box with its filters and hint line; it says what was typed and asked for."""

    textEdited = Signal(str)
    filterChosen = Signal(str)
    stepRequested = Signal(int)  # ↑/↓/Page keys in the box: move the highlight in the list
    suggestionChosen = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.box = QLineEdit()
        self.box.setObjectName("searchBox")
        self.box.setAccessibleName("Search")
        self.box.setClearButtonEnabled(True)
        self.box.setPlaceholderText('Search: words, "phrases", OR, NOT, diffus*, title:, note:, is:starred')
        self.box.textEdited.connect(self.textEdited)
        self.box.installEventFilter(self)
        self.hint = QLabel()
        self.hint.setObjectName("queryMessage")
        self.hint.setTextFormat(Qt.TextFormat.PlainText)
        self.hint.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)  # never widens
        self.hint.hide()
        self.suggestion = QLabel()
        self.suggestion.setObjectName("suggestionLabel")
        self.suggestion.setTextFormat(Qt.TextFormat.RichText)  # our own words, the suggestion escaped
        self.suggestion.setTextInteractionFlags(Qt.TextInteractionFlag.LinksAccessibleByMouse)
        self.suggestion.linkActivated.connect(lambda _link: self.suggestionChosen.emit())
        self.filter_group = QButtonGroup(self)
        self.filter_buttons: dict[str, QToolButton] = {}
        # The filter a sidebar entry put in force, removable: click it, or Backspace at the start
        # of the box. What is searched is never a surprise: the chip says where.
        self.chip = QToolButton()
        self.chip.setObjectName("filterChip")
        self.chip.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.chip.setStyleSheet(CHIP_STYLE)
        self.chip.setAutoRaise(False)
        self.chip.clicked.connect(lambda: self.filterChosen.emit("all"))
        self.chip.hide()
        top = QHBoxLayout()
        top.setContentsMargins(0, 0, 0, 0)
        top.addWidget(self.chip)
        top.addWidget(self.box, 1)
        for i, (name, label) in enumerate(FILTER_LABELS, start=1):
            button = QToolButton()
            button.setObjectName(f"filter_{name}")
            button.setText(label)
            button.setCheckable(True)
            button.setToolTip(f"{label} (Ctrl+{i})")
            button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
            button.setStyleSheet(FILTER_STYLE)
            self.filter_group.addButton(button)
            self.filter_buttons[name] = button
            top.addWidget(button)
        self.filter_buttons["all"].setChecked(True)
        self.filter_group.buttonClicked.connect(
            lambda b: self.filterChosen.emit(next(n for n, x in self.filter_buttons.items() if x is b))
        )
        hints = QHBoxLayout()
        hints.setContentsMargins(4, 0, 4, 0)
        hints.addWidget(self.hint, 1)
        hints.addWidget(self.suggestion)
        self.hint_line = QWidget()
        self.hint_line.setObjectName("hintLine")
        self.hint_line.setLayout(hints)
        self.hint_line.setFixedHeight(self.fontMetrics().height() + 4)  # always there: nothing jumps
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addLayout(top)
        layout.addWidget(self.hint_line)
        self.restyle()

    # -- what the bar shows ------------------------------------------------------------------
    def text(self) -> str:
        return self.box.text()

    def set_text(self, text: str) -> None:
        self.box.setText(text)

    def show_outcome(self, outcome: Outcome) -> None:
        """The hint (an incomplete or wrong query) and the suggestion of one finished search."""
        self.show_hint(outcome.message)
        if outcome.suggestion:
            link = f'<a href="suggestion">{html.escape(outcome.suggestion)}</a>'
            lead = "Showing results for" if outcome.corrected else "Did you mean"
            self.suggestion.setText(f"{lead} {link}{'' if outcome.corrected else '?'} (Ctrl+D)")
        else:
            self.suggestion.clear()

    def show_hint(self, message: str | None) -> None:
        if message:
            self.hint.setText(message)
            self.hint.setToolTip(message)
            self.hint.setAccessibleDescription(message)
            self.hint.show()
        else:
            self.hint.clear()
            self.hint.setToolTip("")
            self.hint.hide()

    def check_filter(self, name: str) -> None:
        """Show the filter in force: its button, or the chip of a sidebar entry's (a tag's)."""
        label = chip_label(name)
        if label is None:
            self.chip.hide()
        else:
            shown = self.chip.fontMetrics().elidedText(label, Qt.TextElideMode.ElideMiddle, CHIP_MAX)
            self.chip.setText(f"{shown}  ✕")
            self.chip.setToolTip(
                f"Searching in {label}. Click, or Backspace at the start of the box, for all papers"
            )
            self.chip.setAccessibleName(f"Filter {label}, removable")
            self.chip.show()
        button = self.filter_buttons.get(name)
        if button is not None:
            button.setChecked(True)
            return
        self.filter_group.setExclusive(False)  # an exclusive group keeps one button down
        for b in self.filter_buttons.values():
            b.setChecked(False)
        self.filter_group.setExclusive(True)

    def checked_filter(self) -> str:
        return next((name for name, b in self.filter_buttons.items() if b.isChecked()), "all")

    def restyle(self) -> None:
        """Colours from the palette (called again when it changes)."""
        self.hint.setStyleSheet(f"color: {theme.colors(self.palette()).warning.name()};")

    # -- keys --------------------------------------------------------------------------------
    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.box and event.type() == QEvent.Type.KeyPress:
            key_event: QKeyEvent = event  # type: ignore[assignment]
            if (
                key_event.key() == Qt.Key.Key_Backspace
                and not key_event.modifiers()
                and self.chip.isVisible()
                and self.box.cursorPosition() == 0
                and not self.box.hasSelectedText()
            ):
                self.filterChosen.emit("all")  # the chip goes, as a token before the text would
                return True
            step = MOVE_KEYS.get(Qt.Key(key_event.key()))
            if step is not None and key_event.modifiers() in (
                Qt.KeyboardModifier.NoModifier,
                Qt.KeyboardModifier.KeypadModifier,
            ):
                self.stepRequested.emit(step)
                return True
        return super().eventFilter(watched, event)

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange:
            self.restyle()
