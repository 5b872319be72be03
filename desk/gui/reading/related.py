"""More like this: the papers closest to the one in view; Enter opens one."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QModelIndex, Qt, Signal
from PySide6.QtWidgets import QLabel, QListView, QListWidget, QListWidgetItem, QVBoxLayout, QWidget

from desk.core.records.page import PaperSummary, ResultPage
from desk.gui.workers import LibraryExecutor, plain_message

LIMIT = 10
ID_ROLE = Qt.ItemDataRole.UserRole + 1
SNIPPET_CHARS = 170


def _papers(n: int) -> str:
    return f"{n} paper{'' if n == 1 else 's'}"


def related_text(paper: PaperSummary, snippet: str) -> str:
    """Two lines: the title (and the short name, unless the title starts with it), a snippet."""
    name = paper.short_name or ""
    head = (
        paper.title if not name or paper.title.lower().startswith(name.lower()) else f"{paper.title} · {name}"
    )
    text = " ".join(snippet.split())
    if len(text) > SNIPPET_CHARS:
        text = text[: SNIPPET_CHARS - 1].rsplit(" ", 1)[0].rstrip(" ,;:") + "…"
    return ("★ " if paper.starred else "") + head + ("\n" + text if text else "")


class RelatedPanel(QWidget):
    """Loads `lib.discovery.related` for a paper when shown; `paperActivated(id)` on Enter or double click."""

    paperActivated = Signal(int)

    def __init__(self, executor: LibraryExecutor, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.executor = executor
        self.paper_id: int | None = None
        self._loaded_for: int | None = None
        self.status = QLabel("")
        self.status.setTextFormat(Qt.TextFormat.PlainText)
        self.list = QListWidget()
        self.list.setObjectName("relatedView")
        self.list.setAccessibleName("Related papers")
        self.list.setWordWrap(True)  # long titles wrap instead of being cut
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.list.setResizeMode(QListView.ResizeMode.Adjust)
        self.list.setSpacing(2)
        self.list.activated.connect(self._activated)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.status)
        layout.addWidget(self.list, 1)

    def set_paper(self, paper_id: int | None) -> None:
        self.paper_id = paper_id
        if self.isVisible():
            self.load()

    def showEvent(self, event: Any) -> None:
        super().showEvent(event)
        self.load()

    def load(self) -> None:
        """Fetch related papers for the current paper (once per paper)."""
        pid = self.paper_id
        if pid is None:
            self.list.clear()
            self.status.setText("No paper selected.")
            self._loaded_for = None
            return
        if pid == self._loaded_for:
            return
        self._loaded_for = pid
        self.status.setText("Looking for related papers…")

        def done(page: ResultPage) -> None:
            if pid != self.paper_id:
                return
            self.list.clear()
            for row in page.rows:
                p = row.paper
                item = QListWidgetItem(related_text(p, row.snippet))
                item.setData(ID_ROLE, p.id)
                item.setToolTip("\n".join((p.title, *p.collections)))
                self.list.addItem(item)
            if self.list.count():
                self.list.setCurrentRow(0)
            self.status.setText(
                f"{_papers(self.list.count())} like this one (Enter opens)"
                if page.rows
                else "No related papers."
            )

        def failed(exc: Exception) -> None:
            if pid == self.paper_id:
                self._loaded_for = None
                self.status.setText(f"Related papers could not be found: {plain_message(exc)}")

        self.executor.submit(lambda lib: lib.discovery.related(pid, limit=LIMIT), done, failed)

    def invalidate(self) -> None:
        """Load again next time (the library changed)."""
        self._loaded_for = None

    def _activated(self, index: QModelIndex) -> None:
        pid = index.data(ID_ROLE)
        if isinstance(pid, int):
            self.paperActivated.emit(pid)

    def focus_list(self) -> None:
        self.list.setFocus(Qt.FocusReason.ShortcutFocusReason)
