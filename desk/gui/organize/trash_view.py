"""The trash, in place of the result list: what was deleted or removed with a list, to restore or empty.

Enter (or `r`, or the button) restores the selected papers; Shift+Delete empties the trash
after asking (inline: `AskBar`); Esc goes back to the list.  The view only shows and asks:
`Places` does the library's work.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from desk.core.records.detail import TrashedPaper
from desk.gui.organize.ask_bar import AskBar

ID = Qt.ItemDataRole.UserRole
_RESTORE = (Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_R)


def trash_line(item: TrashedPaper) -> str:
    """One row: the title, and what took it to the trash, when."""
    how = f"with the list {item.removed_with}" if item.removed_with else "deleted"
    return f"{item.paper.title}  —  {how}, {item.removed_at:%Y-%m-%d %H:%M}"


class TrashView(QWidget):
    """`show_items(trashed)`; `restoreRequested(ids)`, `emptyRequested()`, `closed()`."""

    restoreRequested = Signal(object)  # list[int]
    emptyRequested = Signal()
    closed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("trashView")
        self.header = QLabel()
        self.header.setObjectName("trashHeader")
        self.ask = AskBar()
        self.list = QListWidget()
        self.list.setObjectName("trashList")
        self.list.setAccessibleName("Trash")
        self.list.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.list.setAlternatingRowColors(True)
        self.list.installEventFilter(self)
        self.restore_button = QPushButton("&Restore selected (Enter)")
        self.restore_button.setObjectName("trashRestore")
        self.restore_button.clicked.connect(self.restore_selected)
        self.empty_button = QPushButton("&Empty the trash… (Shift+Delete)")
        self.empty_button.setObjectName("trashEmpty")
        self.empty_button.clicked.connect(self.emptyRequested)
        back = QPushButton("Back to the list (Esc)")
        back.clicked.connect(self.closed)
        buttons = QHBoxLayout()
        buttons.addWidget(self.restore_button)
        buttons.addWidget(self.empty_button)
        buttons.addStretch(1)
        buttons.addWidget(back)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.header)
        layout.addWidget(self.ask)
        layout.addWidget(self.list, 1)
        layout.addLayout(buttons)

    def show_items(self, trashed: Sequence[TrashedPaper]) -> None:
        """Fill the list (the latest removed first); the first row highlighted."""
        self.list.clear()
        for t in trashed:
            item = QListWidgetItem(trash_line(t))
            item.setData(ID, t.paper.id)
            item.setToolTip(trash_line(t))
            self.list.addItem(item)
        n = len(trashed)
        self.header.setText(
            f"Trash · {n} paper{'s' if n != 1 else ''} — restored papers come back with their notes, "
            "stars and tags"
            if n
            else "The trash is empty."
        )
        self.restore_button.setEnabled(bool(n))
        self.empty_button.setEnabled(bool(n))
        if n:
            self.list.setCurrentRow(0)

    def ids(self) -> list[int]:
        """Every paper the view lists, in order."""
        return [int(self.list.item(r).data(ID)) for r in range(self.list.count())]

    def selected_ids(self) -> list[int]:
        chosen = [int(i.data(ID)) for i in self.list.selectedItems()]
        current = self.list.currentItem()
        return chosen or ([int(current.data(ID))] if current is not None else [])

    def restore_selected(self) -> None:
        ids = self.selected_ids()
        if ids:
            self.restoreRequested.emit(ids)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if not isinstance(event, QKeyEvent):
            return False
        key, mods = event.key(), event.modifiers()
        shift = mods == Qt.KeyboardModifier.ShiftModifier
        # Delete alone is taken too: a Delete of the window (papers to the trash) must not act behind it.
        ours = (key in _RESTORE and not mods) or key in (Qt.Key.Key_Escape, Qt.Key.Key_Delete)
        if not ours:
            return False
        if event.type() == QEvent.Type.ShortcutOverride:
            event.accept()  # these keys are the trash's here, not the window's shortcuts
            return True
        if event.type() == QEvent.Type.KeyPress:
            if key == Qt.Key.Key_Escape:
                self.closed.emit()
            elif key == Qt.Key.Key_Delete:
                if shift:
                    self.emptyRequested.emit()
            else:
                self.restore_selected()
            return True
        return False
