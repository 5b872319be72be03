"""From a paper to its authors' other papers: the `author:` query of a name, and the menu `a` offers.

A click on a name in the reading pane searches that author; `a` on the highlighted paper
searches its author when it has one, and offers its authors in a small menu when it has more
(the first one highlighted: Enter takes the first author, ↓ the others, Esc leaves).
"""

from __future__ import annotations

import html
from collections.abc import Sequence

from PySide6.QtCore import QObject, QPoint, Qt, QTimer, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QApplication, QMenu, QWidget

LINK_PREFIX = "author:"  # the pane's links: author:N, the paper's N-th author (no name in a URL)


def author_query(name: str) -> str:
    """The search for one author's papers: ``author:"First Last"`` (a name's double quotes
    dropped: the query language has no escape for them, and the name's words still match)."""
    words = " ".join(name.replace('"', " ").split())
    return f'author:"{words}"'


def linked_authors(authors: Sequence[str]) -> str:
    """The authors as rich text, each name a link (``author:N``); every name escaped."""
    return ", ".join(f'<a href="{LINK_PREFIX}{n}">{html.escape(name)}</a>' for n, name in enumerate(authors))


def linked_author(href: str, authors: Sequence[str]) -> str | None:
    """The author a pane link names (``author:N``), or None for any other link."""
    if not href.startswith(LINK_PREFIX):
        return None
    number = href[len(LINK_PREFIX) :]
    if not number.isdigit() or int(number) >= len(authors):
        return None
    return authors[int(number)]


class AuthorMenu(QObject):
    """The menu of a paper's authors; `chosen(name)` once one is taken."""

    chosen = Signal(str)

    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        self.menu = QMenu(parent)
        self.menu.setObjectName("authorMenu")
        self.menu.setToolTipsVisible(True)
        self._back_to: QWidget | None = None
        self.menu.aboutToHide.connect(lambda: QTimer.singleShot(0, self._give_back_focus))

    def offer(self, authors: Sequence[str], where: QPoint) -> None:
        """Pop the menu up at ``where`` (global), the first author highlighted; returns at once."""
        self._back_to = QApplication.focusWidget()  # the list (or the pane) has the keys again after
        self.menu.clear()
        for name in authors:
            action = QAction(name.replace("&", "&&"), self.menu)  # a name's & is no mnemonic
            action.setToolTip(author_query(name))
            action.triggered.connect(lambda _checked=False, name=name: self.chosen.emit(name))
            self.menu.addAction(action)
        self.menu.popup(where)
        self.menu.setActiveAction(self.menu.actions()[0])

    def _give_back_focus(self) -> None:
        """The keys go back where they were (the list: j/k and Enter go on in the new results)."""
        widget, self._back_to = self._back_to, None
        if widget is not None and widget.isVisible():
            widget.window().activateWindow()
            widget.setFocus(Qt.FocusReason.PopupFocusReason)
