"""The first run's note above the list: these are the sample lists, and how to bring one's own."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QLabel, QWidget

from desk.gui import theme

WELCOME = (
    "These are the sample lists that come with desk ({count} papers from conference lists). "
    "Bring your own: Ctrl+I imports list files, Ctrl+Shift+I a folder, or drop .txt files on this "
    "window (in a terminal: desk import FILE…)."
)


class WelcomeNote(QLabel):
    """Shown while the sample lists are all there is; `closed` when the user hides it."""

    closed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("welcome")
        self.setWordWrap(True)
        self.setTextFormat(Qt.TextFormat.RichText)  # our own words only
        self.setTextInteractionFlags(Qt.TextInteractionFlag.LinksAccessibleByMouse)
        self.linkActivated.connect(lambda _link: self.dismiss())
        self.hide()

    def show_for(self, count: int) -> None:
        """Say how many sample papers there are and how to import one's own lists."""
        c = theme.colors(self.window().palette())
        self.setText(
            f'<span style="color: {c.badge_text.name()};">{WELCOME.format(count=count)}</span>'
            '&nbsp; <a href="hide">Hide</a>'
        )
        self.setStyleSheet(
            f"QLabel#welcome {{ background: {c.badge_background.name()};"
            " border-radius: 4px; padding: 6px 8px; }"
        )
        self.show()

    def dismiss(self) -> None:
        """Hide it for good (this library): the user closed it or imported a list."""
        self.hide()
        self.closed.emit()
