"""The import, inline: a band above the list with the progress, a Cancel button and, once done,
what was imported (problems stay until closed). Nothing modal: the keys stay where they were,
so typing, searching and reading go on while the lists are read."""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QToolButton, QVBoxLayout, QWidget

from desk.gui import theme

DONE_MS = 8000  # a clean import's summary stays this long (the status line keeps its first line)


class ImportPanel(QWidget):
    """`start(title)`, `progress(done, total, text)`, `finish(text, problems)`; `cancelled` on
    its Cancel button. The summary's text is also `summary()`, for tests and screen readers."""

    cancelled = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("importPanel")
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
        self.label = QLabel()
        self.label.setObjectName("importLabel")
        self.label.setTextFormat(Qt.TextFormat.PlainText)  # file names and errors are not markup
        self.label.setWordWrap(True)
        self.bar = QProgressBar()
        self.bar.setObjectName("importProgress")
        self.bar.setTextVisible(False)
        self.bar.setMaximumHeight(8)
        self.cancel = QToolButton()
        self.cancel.setObjectName("importCancel")
        self.cancel.setText("Cancel")
        self.cancel.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # never takes the keys from the list
        self.cancel.clicked.connect(self._cancel)
        self.close_button = QToolButton()
        self.close_button.setObjectName("importClose")
        self.close_button.setText("✕")
        self.close_button.setToolTip("Hide")
        self.close_button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.close_button.clicked.connect(self.hide)
        top = QHBoxLayout()
        top.setContentsMargins(0, 0, 0, 0)
        top.addWidget(self.label, 1)
        top.addWidget(self.cancel, 0, Qt.AlignmentFlag.AlignTop)
        top.addWidget(self.close_button, 0, Qt.AlignmentFlag.AlignTop)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 6, 8, 6)
        layout.setSpacing(4)
        layout.addLayout(top)
        layout.addWidget(self.bar)
        self._hide_later = QTimer(self)
        self._hide_later.setSingleShot(True)
        self._hide_later.timeout.connect(self.hide)
        self.running = False
        self.restyle(problems=False)
        self.hide()

    def restyle(self, *, problems: bool) -> None:
        """A band in the palette's colours; its edge the warning colour when something was skipped."""
        palette = self.palette()
        accent = palette.color(QPalette.ColorRole.Highlight)
        edge = (theme.colors(palette).warning if problems else accent).name()
        self.setStyleSheet(f"QWidget#importPanel {{ border: 1px solid {edge}; border-radius: 4px; }}")

    def start(self, title: str) -> None:
        """An import began: the bar runs until the first file's count is known."""
        self._hide_later.stop()
        self.running = True
        self.restyle(problems=False)
        self.label.setText(f"{title}… (you can go on searching and reading meanwhile)")
        self.bar.setRange(0, 0)
        self.bar.show()
        self.cancel.show()
        self.cancel.setEnabled(True)
        self.close_button.hide()
        self.show()

    def progress(self, done: int, total: int, text: str) -> None:
        if not self.running:
            return
        if total <= 1:  # one file: its count says nothing until it ends, so the bar keeps running
            self.bar.setRange(0, 0)
        else:
            self.bar.setRange(0, total)
            self.bar.setValue(min(done, total))
        if text:
            self.label.setText(text)

    def finish(self, text: str, *, problems: bool) -> None:
        """The import ended: what it did; a clean one hides again after a moment."""
        self.running = False
        self.restyle(problems=problems)
        self.label.setText(text)
        self.bar.hide()
        self.cancel.hide()
        self.close_button.show()
        self.show()
        if not problems:
            self._hide_later.start(DONE_MS)

    def summary(self) -> str:
        """What the band says now."""
        return self.label.text()

    def _cancel(self) -> None:
        self.cancel.setEnabled(False)
        self.label.setText("Cancelling after the current file…")
        self.cancelled.emit()
