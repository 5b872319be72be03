"""The sidebar: where you are in the library, with counts.

All, Starred, Unread, With notes; each collection (the file headers); each tag (the first nine
numbered: their digit toggles them on the paper in view); the saved searches; the trash.
Every entry but the trash is a filter of the search (`SearchController.set_filter`): a name of
the search bar's filters or a query term (`in:"ICML 2026 Papers"`, `tag:"x"`, `saved:"name"`),
so the search box then searches inside it.  The counts are loaded on the worker
(`load_counts`) and shown with `show_counts`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QSize, Qt, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTreeWidget, QTreeWidgetItem, QWidget

if TYPE_CHECKING:  # desk.core.library.facade loads Whoosh: only the worker thread imports it
    from desk.core.library.facade import Library

ROLE = Qt.ItemDataRole.UserRole  # the entry's filter (or TRASH)
KIND = Qt.ItemDataRole.UserRole + 1  # "library", "collection", "tag", "saved", "trash"
TRASH = "trash"
SECTIONS = (
    ("library", "Library"),
    ("collection", "Collections"),
    ("tag", "Tags"),
    ("saved", "Saved searches"),
    ("trash", "Trash"),
)
PAGE = 8  # entries a Page Up / Page Down moves
BUILT_IN = (("all", "All papers"), ("starred", "Starred"), ("unread", "Unread"), ("notes", "With notes"))


def quoted(field: str, name: str) -> str:
    """The query term of a named thing: `tag:"reading group"` (a name's own quotes cannot be
    written inside one; they are dropped, so such a name finds nothing rather than something else)."""
    return f'{field}:"{" ".join(name.replace(chr(34), " ").split())}"'


def collection_filter(name: str) -> str:
    return quoted("in", name)


def tag_filter(name: str) -> str:
    return quoted("tag", name)


def saved_filter(name: str) -> str:
    return quoted("saved", name)


@dataclass(frozen=True)
class Counts:
    """What the sidebar shows, read on the worker in one go."""

    papers: int
    starred: int
    unread: int
    notes: int
    collections: tuple[tuple[str, int], ...]
    tags: tuple[tuple[str, int], ...]  # in the order made: the digits' order
    saved: tuple[tuple[str, str, int], ...]  # name, query, papers it finds
    trash: int

    def of_builtin(self, name: str) -> int:
        return {"all": self.papers, "starred": self.starred, "unread": self.unread, "notes": self.notes}[name]


def load_counts(lib: Library) -> Counts:
    """On the worker: every count of the sidebar."""
    stats = lib.stats()
    saved = tuple(
        (s.name, s.query, lib.search_ids(saved_filter(s.name), limit=0).total)
        for s in lib.saved_searches.all()
    )
    return Counts(
        papers=stats.papers,
        starred=stats.starred,
        unread=stats.papers - stats.read,
        notes=stats.notes,
        collections=tuple(sorted(stats.collections.items(), key=lambda kv: kv[0].casefold())),
        tags=tuple((t.name, t.count) for t in lib.tags.counts()),
        saved=saved,
        trash=len(lib.trash.papers()),
    )


class Sidebar(QTreeWidget):
    """The entries; `chosen(filter)` when the highlight moves to one, `trashChosen` on the trash,
    `entered` on Enter (the keys go to the list), `deleteRequested(kind, name)` on Delete."""

    chosen = Signal(str)
    trashChosen = Signal()
    entered = Signal()
    deleteRequested = Signal(str, str)  # kind ("saved", "collection"), name

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("sidebar")
        self.setAccessibleName("Sidebar")
        self.setColumnCount(2)
        self.setHeaderHidden(True)
        self.setRootIsDecorated(False)
        self.setIndentation(10)
        self.row_height = self.fontMetrics().height() + 8  # rows a little apart: easy to read and hit
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        header = self.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        self.setMinimumWidth(170)
        self.counts: Counts | None = None
        self.current_filter = "all"
        self._filling = False
        self.sections: dict[str, QTreeWidgetItem] = {}
        for kind, title in SECTIONS:
            section = QTreeWidgetItem(self, [title, ""])
            section.setFlags(Qt.ItemFlag.ItemIsEnabled)  # a heading: not selectable
            font = section.font(0)
            font.setBold(True)
            section.setFont(0, font)
            section.setFirstColumnSpanned(True)
            section.setSizeHint(0, QSize(0, self.row_height + 6))  # a heading stands apart
            self.sections[kind] = section
        for name, label in BUILT_IN:
            self._entry("library", label, name)
        self.expandAll()
        self.currentItemChanged.connect(self._moved)
        self.itemActivated.connect(lambda _item, _col: self.entered.emit())

    # -- entries ------------------------------------------------------------------------------
    def _entry(self, kind: str, label: str, value: str, count: int | None = None) -> QTreeWidgetItem:
        item = QTreeWidgetItem(self.sections[kind], [label, "" if count is None else str(count)])
        item.setData(0, ROLE, value)
        item.setData(0, KIND, kind)
        item.setTextAlignment(1, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        item.setToolTip(0, label)
        item.setSizeHint(0, QSize(0, self.row_height))
        return item

    def entries(self, kind: str | None = None) -> list[QTreeWidgetItem]:
        """The entries (of one section), in order."""
        kinds = [kind] if kind else [k for k, _ in SECTIONS]
        out: list[QTreeWidgetItem] = []
        for k in kinds:
            section = self.sections[k]
            out.extend(c for i in range(section.childCount()) if (c := section.child(i)) is not None)
        return out

    def entry_for(self, value: str) -> QTreeWidgetItem | None:
        return next((e for e in self.entries() if e.data(0, ROLE) == value), None)

    def rows(self) -> list[tuple[str, str]]:
        """(label, count) of every entry, for tests and accessibility."""
        return [(e.text(0), e.text(1)) for e in self.entries()]

    def show_counts(self, counts: Counts) -> None:
        """Fill the sections from fresh counts; the highlighted entry stays highlighted."""
        self.counts = counts
        self._filling = True
        try:
            for item in self.entries("library"):
                item.setText(1, str(counts.of_builtin(str(item.data(0, ROLE)))))
            for kind in ("collection", "tag", "saved", "trash"):
                section = self.sections[kind]
                for child in list(self.entries(kind)):
                    section.removeChild(child)
            for name, n in counts.collections:
                self._entry("collection", name, collection_filter(name), n)
            for i, (name, n) in enumerate(counts.tags, start=1):
                label = f"{i}  {name}" if i <= 9 else name
                self._entry("tag", label, tag_filter(name), n).setData(1, ROLE, name)
            for name, query, n in counts.saved:
                self._entry("saved", name, saved_filter(name), n).setToolTip(0, f"{name}: {query}")
            self._entry("trash", "Removed papers", TRASH, counts.trash)
            for kind in ("collection", "tag", "saved"):
                self.sections[kind].setHidden(not self.entries(kind))
            self.expandAll()
            self._highlight(self.current_filter)
        finally:
            self._filling = False

    def select_filter(self, value: str, *, force: bool = False) -> None:
        """Highlight the entry of the filter in force (without choosing it again); `force`: even
        when the trash is highlighted (it was left)."""
        self.current_filter = value
        self._filling = True
        try:
            self._highlight(value, force=force)
        finally:
            self._filling = False

    def select_trash(self) -> None:
        item = self.entry_for(TRASH)
        if item is not None:
            self.setCurrentItem(item)

    def _highlight(self, value: str, *, force: bool = False) -> None:
        current = self.currentItem()
        if not force and current is not None and current.data(0, ROLE) == TRASH and value != TRASH:
            return  # the trash is open: it stays highlighted while the list behind it is kept
        item = self.entry_for(value)
        if item is not None:
            self.setCurrentItem(item)
        else:
            self.clearSelection()

    def _moved(self, item: QTreeWidgetItem | None, _previous: QTreeWidgetItem | None) -> None:
        if self._filling or item is None:
            return
        value = item.data(0, ROLE)
        if value == TRASH:
            self.trashChosen.emit()
        elif isinstance(value, str):
            self.current_filter = value
            self.chosen.emit(value)

    def current_entry(self) -> tuple[str, str] | None:
        """(kind, name) of the highlighted entry: a collection's or saved search's name as shown."""
        item = self.currentItem()
        if item is None or item.data(0, KIND) is None:
            return None
        kind = str(item.data(0, KIND))
        name = item.data(1, ROLE) if kind == "tag" else item.text(0)
        return kind, str(name)

    # -- keys ---------------------------------------------------------------------------------
    def event(self, event: QEvent) -> bool:
        if (
            event.type() == QEvent.Type.ShortcutOverride
            and isinstance(event, QKeyEvent)
            and event.key() == Qt.Key.Key_Delete
            and not event.modifiers()
        ):
            event.accept()  # the sidebar's Delete, not the window's (papers to the trash)
            return True
        return super().event(event)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() == Qt.Key.Key_Delete and not event.modifiers():
            entry = self.current_entry()
            if entry is not None and entry[0] in ("saved", "collection"):
                self.deleteRequested.emit(*entry)
            return
        if not event.modifiers() and self.walk(Qt.Key(event.key())):
            return
        super().keyPressEvent(event)

    def walk(self, key: Qt.Key) -> bool:
        """↑/↓, Page Up/Down, Home/End move from entry to entry: the headings are not stops (a
        heading took a ↓ and Home landed on "Library", so no entry was chosen). False for
        another key."""
        steps = {Qt.Key.Key_Up: -1, Qt.Key.Key_Down: 1, Qt.Key.Key_PageUp: -PAGE, Qt.Key.Key_PageDown: PAGE}
        entries = [e for e in self.entries() if not e.isHidden() and not (e.parent() or e).isHidden()]
        if not entries or key not in (*steps, Qt.Key.Key_Home, Qt.Key.Key_End):
            return False
        current = self.currentItem()
        at = entries.index(current) if current in entries else -1
        if key == Qt.Key.Key_Home:
            target = 0
        elif key == Qt.Key.Key_End:
            target = len(entries) - 1
        else:
            target = min(max(at + steps[key] if at >= 0 else 0, 0), len(entries) - 1)
        if target != at:
            self.setCurrentItem(entries[target])
            self.scrollToItem(entries[target])
        return True
