"""The tag picker (`t`): a line edit over the list with the existing tags under it.

Type to filter, ↑/↓ to choose, Enter toggles the chosen tag on the papers the keys act on (a
name no tag has yet creates it), Esc closes without a change. It is a frame inside the window,
not a dialog: nothing modal runs its own event loop, so it opens and closes any number of times
(a modal `exec()` aborted the test process on its second opening) and the keys typed right after
`t` land in it at once, before the tags are loaded.
"""

from __future__ import annotations

import unicodedata

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QFocusEvent, QKeyEvent
from PySide6.QtWidgets import (
    QApplication,
    QFrame,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QVBoxLayout,
    QWidget,
)

from desk.core.records.detail import TagCount

NameRole = Qt.ItemDataRole.UserRole + 1
# A menu or another window taking the focus for a moment does not close the picker.
_STAYING = (Qt.FocusReason.PopupFocusReason, Qt.FocusReason.ActiveWindowFocusReason)
WIDTH = 420
ROWS_SHOWN = 8
_OWN_KEYS = frozenset(
    {Qt.Key.Key_Escape, Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_Up, Qt.Key.Key_Down}
    | {Qt.Key.Key_PageUp, Qt.Key.Key_PageDown}
)


def folded(name: str) -> str:
    """A name as compared while filtering: case, width and spacing do not count."""
    return " ".join(unicodedata.normalize("NFKC", name).casefold().split())


def matches(tags: list[TagCount], typed: str) -> list[TagCount]:
    """The tags `typed` finds: names starting with it first, then names holding it, each in tag order."""
    want = folded(typed)
    if not want:
        return list(tags)
    starts = [t for t in tags if folded(t.name).startswith(want)]
    inside = [t for t in tags if want in folded(t.name) and t not in starts]
    return starts + inside


class TagPicker(QFrame):
    """`open_for(count, anchor)` shows it over `anchor`; `load(tags, carried)` fills it when the
    library answers. `chosen(name)` when Enter picks a tag (or a new name); `closed` either way."""

    chosen = Signal(str)
    closed = Signal()

    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        self.setObjectName("tagPicker")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setFrameShadow(QFrame.Shadow.Raised)
        self.setAutoFillBackground(True)
        self.tags: list[TagCount] = []
        self.carried: dict[str, int] = {}  # tag name → how many of the papers carry it
        self.papers = 0
        self.loaded = False
        self._enter_waiting = False
        self._return_to: QWidget | None = None
        self.heading = QLabel()
        self.heading.setObjectName("tagPickerHeading")
        self.edit = QLineEdit()
        self.edit.setObjectName("tagPickerEdit")
        self.edit.setAccessibleName("Tag name")
        self.edit.setPlaceholderText("A tag's name: type to filter, or a new name")
        self.list = QListWidget()
        self.list.setObjectName("tagPickerList")
        self.list.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # the keys stay in the line edit
        self.list.itemClicked.connect(lambda item: self._pick(item))
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 8)
        layout.addWidget(self.heading)
        layout.addWidget(self.edit)
        layout.addWidget(self.list)
        self.edit.textEdited.connect(lambda _t: self._fill())
        self.edit.installEventFilter(self)
        self.hide()

    # -- opening and filling -----------------------------------------------------------------
    def open_for(self, papers: int, anchor: QWidget) -> None:
        """Show the picker over the top of `anchor`, for `papers` papers, the keys in it."""
        self.papers = papers
        self.tags, self.carried = [], {}
        self.loaded = False
        self._enter_waiting = False  # Enter came before the tags: pick once they are in
        what = "the paper" if papers == 1 else f"{papers} papers"
        self.heading.setText(f"Tag {what} — ↑/↓ choose, Enter toggles, Esc closes")
        self.edit.clear()
        self._fill()
        focus = QApplication.focusWidget()
        self._return_to = focus if focus is not None and not self.isAncestorOf(focus) else anchor
        parent = self.parentWidget()
        top_left = anchor.mapTo(parent, anchor.rect().topLeft()) if parent is not None else anchor.pos()
        width = min(WIDTH, max(anchor.width() - 16, 240))
        row = max(self.list.sizeHintForRow(0), self.fontMetrics().height() + 6)
        self.list.setFixedHeight(row * ROWS_SHOWN + 6)
        self.resize(width, self.sizeHint().height())
        self.move(top_left.x() + 8, top_left.y() + 8)
        self.show()
        self.raise_()
        self.edit.setFocus(Qt.FocusReason.PopupFocusReason)

    def load(self, tags: list[TagCount], carried: dict[str, int]) -> None:
        """The library's tags (in creation order) and how many of the papers carry each."""
        self.tags, self.carried = list(tags), dict(carried)
        self.loaded = True
        if self.isVisible():
            self._fill()
            if self._enter_waiting:
                self._pick()

    def _fill(self) -> None:
        typed = self.edit.text().strip()
        self.list.clear()
        found = matches(self.tags, typed)
        for tag in found:
            have = self.carried.get(tag.name, 0)
            mark = "✓ " if self.papers and have >= self.papers else "– " if have else "   "
            action = "take off" if self.papers and have >= self.papers else "add"
            item = QListWidgetItem(f"{mark}{tag.name}   ({tag.count}) · Enter to {action}")
            item.setData(NameRole, tag.name)
            self.list.addItem(item)
        if typed and not any(folded(t.name) == folded(typed) for t in self.tags):
            item = QListWidgetItem(f"+ New tag “{typed}”")
            item.setData(NameRole, typed)
            self.list.addItem(item)
        if not self.tags and not typed:
            empty = QListWidgetItem("No tags yet: type a name to make one")
            empty.setFlags(Qt.ItemFlag.NoItemFlags)
            self.list.addItem(empty)
        exact = next((r for r, t in enumerate(found) if folded(t.name) == folded(typed)), None)
        first = next((r for r in range(self.list.count()) if self._name(r) is not None), None)
        row = exact if exact is not None and typed else first
        if row is not None:
            self.list.setCurrentRow(row)

    def _name(self, row: int) -> str | None:
        item = self.list.item(row)
        value = item.data(NameRole) if item is not None else None
        return value if isinstance(value, str) else None

    # -- keys --------------------------------------------------------------------------------
    def choice(self) -> str | None:
        """The tag Enter would toggle: the highlighted row's, else what is typed."""
        row = self.list.currentRow()
        name = self._name(row) if row >= 0 else None
        typed = self.edit.text().strip()
        return name if name is not None else (typed or None)

    def _pick(self, item: QListWidgetItem | None = None) -> None:
        name = item.data(NameRole) if item is not None else self.choice()
        self.close_picker()
        if isinstance(name, str) and name.strip():
            self.chosen.emit(name)

    def _move(self, step: int) -> None:
        rows = [r for r in range(self.list.count()) if self._name(r) is not None]
        if not rows:
            return
        current = self.list.currentRow()
        at = rows.index(current) if current in rows else -1
        self.list.setCurrentRow(rows[min(max(at + step, 0), len(rows) - 1)])

    def close_picker(self) -> None:
        """Hide, the keys back where they were."""
        if not self.isVisible():
            return
        back = self._return_to  # read first: hiding moves the focus (FocusOut below)
        self._return_to = None
        self.hide()
        if back is not None and back.isVisible():
            back.setFocus(Qt.FocusReason.OtherFocusReason)
        self.closed.emit()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is not self.edit:
            return False
        kind = event.type()
        if kind == QEvent.Type.ShortcutOverride and isinstance(event, QKeyEvent):
            if Qt.Key(event.key()) in _OWN_KEYS:
                event.accept()  # Esc and Enter are the picker's, not the window's
                return True
            return False
        if kind == QEvent.Type.KeyPress and isinstance(event, QKeyEvent):
            key = Qt.Key(event.key())
            if key == Qt.Key.Key_Escape:
                self.close_picker()
                return True
            if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
                if self.loaded:
                    self._pick()
                else:  # "t lat Enter" typed fast: "lat" means "later" once the tags are known
                    self._enter_waiting = True
                return True
            steps = {Qt.Key.Key_Down: 1, Qt.Key.Key_Up: -1, Qt.Key.Key_PageDown: ROWS_SHOWN}
            step = steps.get(key, -ROWS_SHOWN if key == Qt.Key.Key_PageUp else None)
            if step is not None:
                self._move(step)
                return True
            return False
        away = kind == QEvent.Type.FocusOut and isinstance(event, QFocusEvent)
        if away and self.isVisible() and event.reason() not in _STAYING:  # type: ignore[attr-defined]
            self._return_to = None  # the user went elsewhere (a click): leave the focus there
            self.close_picker()
        return False
