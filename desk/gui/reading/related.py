"""More like this: the papers closest to the one in view; Enter opens one."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QModelIndex, Qt, Signal
from PySide6.QtWidgets import QLabel, QListWidget, QListWidgetItem, QVBoxLayout, QWidget

from desk.core.records import ResultPage
from desk.gui.workers import LibraryExecutor, plain_message

LIMIT = 10
ID_ROLE = Qt.ItemDataRole.UserRole + 1


class RelatedPanel(QWidget):
    """Loads `lib.related` for a paper when shown; `paperActivated(id)` on Enter or double click."""

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
        self.list.setUniformItemSizes(True)
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
                label = f"{p.title}  [{p.short_name}]" if p.short_name else p.title
                item = QListWidgetItem(("★ " if p.starred else "") + label)
                item.setData(ID_ROLE, p.id)
                item.setToolTip("\n".join((p.title, *p.collections)))
                self.list.addItem(item)
            if self.list.count():
                self.list.setCurrentRow(0)
            self.status.setText(
                f"{self.list.count()} papers like this one (Enter opens)"
                if page.rows
                else "No related papers."
            )

        def failed(exc: Exception) -> None:
            if pid == self.paper_id:
                self._loaded_for = None
                self.status.setText(f"Related papers could not be found: {plain_message(exc)}")

        self.executor.submit(lambda lib: lib.related(pid, limit=LIMIT), done, failed)

    def invalidate(self) -> None:
        """Load again next time (the library changed)."""
        self._loaded_for = None

    def _activated(self, index: QModelIndex) -> None:
        pid = index.data(ID_ROLE)
        if isinstance(pid, int):
            self.paperActivated.emit(pid)

    def focus_list(self) -> None:
        self.list.setFocus(Qt.FocusReason.ShortcutFocusReason)
