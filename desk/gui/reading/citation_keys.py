"""The paper in view's citation, by key: Ctrl+O opens its link, `a` searches its authors.

Both act on the paper in view: the reading pane's when it shows the highlighted paper, else
what the result list says of it. A bare list's paper has neither: the status bar says so.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, QPoint, QUrl, Signal
from PySide6.QtWidgets import QWidget

from desk.core.records.page import Citation
from desk.gui.reading.paper_view import PaperView
from desk.gui.safe_text import open_external
from desk.gui.search.by_author import AuthorMenu, author_query
from desk.gui.search.results import ResultList


class CitationKeys(QObject):
    """``open_link`` and ``by_author`` on the paper in view; ``search(query)`` runs a query as
    if typed, ``status(text)`` says what happened."""

    search = Signal(str)
    status = Signal(str)

    def __init__(
        self,
        results: ResultList,
        paper_view: PaperView,
        current_id: Callable[[], int | None],
        in_list: Callable[[], bool],
        parent: QWidget,
    ) -> None:
        super().__init__(parent)
        self.results = results
        self.paper_view = paper_view
        self.current_id = current_id
        self.in_list = in_list
        self.author_menu = AuthorMenu(parent)  # `a` on a paper of several authors
        self.author_menu.chosen.connect(self.search_author)
        paper_view.authorRequested.connect(self.search_author)

    def citation_in_view(self) -> Citation | None:
        """What the list said of the paper in view (None: a bare list's paper, or no paper)."""
        pid = self.current_id()
        shown = self.paper_view.paper
        if shown is not None and shown.id == pid:
            return shown.citation
        summary = self.results.results.summary(pid) if pid else None
        return summary.citation if summary is not None else None

    def open_link(self) -> None:
        """The paper in view's link in the browser: its url, else its DOI's or arXiv page."""
        citation = self.citation_in_view()
        link = citation.link if citation is not None else None
        if link is None:
            self.status.emit("No link for this paper: its list gave no url, DOI or arXiv id.")
        elif not open_external(QUrl(link)):
            self.status.emit(f"Could not open {link}")

    def by_author(self) -> None:
        """`a`: the papers of the paper in view's author; of several, a menu of them (the first
        highlighted) under its row, or under its authors in the reading pane."""
        citation = self.citation_in_view()
        authors = citation.authors if citation is not None else ()
        if not authors:
            self.status.emit("No authors for this paper: its list named none.")
        elif len(authors) == 1:
            self.search_author(authors[0])
        else:
            self.author_menu.offer(authors, self._menu_place())

    def _menu_place(self) -> QPoint:
        view = self.results
        if self.in_list() and view.currentIndex().isValid():
            rect = view.visualRect(view.currentIndex())
            return view.viewport().mapToGlobal(rect.bottomLeft())
        label = self.paper_view.authors if self.paper_view.authors.isVisible() else self.paper_view.title
        return label.mapToGlobal(label.rect().bottomLeft())

    def search_author(self, name: str) -> None:
        """Search the papers of one author (`author:"First Last"`), as if typed in the box."""
        self.search.emit(author_query(name))
        self.status.emit(f"Papers by {name}")
