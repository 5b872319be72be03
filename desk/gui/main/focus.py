"""Where the keys go: the focus model of the window, and the mark on the pane that has them.

The search box is for typing.  ↓ from it moves the highlight one hit down and the keys into
the result list; Enter reads the highlighted hit.  In the list (and in the abstract or the
related list) single letters act — they are the window's shortcuts — and any other printable
character, Backspace, `/` or Ctrl+K go back to the search box, the character typed there.
↑ on the first hit goes back to the box too.  Esc steps back: note, abstract or related list
→ result list → search box.  The pane with the keys has a coloured frame.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QKeyEvent, QPalette
from PySide6.QtWidgets import QApplication, QLineEdit, QWidget

from desk.gui import theme
from desk.gui.search.bar import MOVE_KEYS

NOT_TEXT = (
    Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.AltModifier | Qt.KeyboardModifier.MetaModifier
)


def frame_style(widget: QWidget, palette: QPalette) -> str:
    """A frame that shows whether `widget` has the keys (same width either way: nothing moves)."""
    # Style sheets select on Qt's class names: the first Qt class this widget is.
    kind = next(c.__name__ for c in type(widget).__mro__ if c.__module__.startswith("PySide6"))
    name = widget.objectName()
    idle = theme.blend(palette.color(QPalette.ColorRole.Mid), palette.color(QPalette.ColorRole.Base), 0.6)
    accent = palette.color(QPalette.ColorRole.Highlight)
    return (
        f"{kind}#{name} {{ border: 2px solid {idle.name()}; border-radius: 4px; }}"
        f"{kind}#{name}:focus {{ border: 2px solid {accent.name()}; }}"
    )


def types_text(event: QKeyEvent) -> bool:
    """A key that writes something (a printable character or Backspace), not a shortcut."""
    if event.modifiers() & NOT_TEXT:
        return False
    if event.key() == Qt.Key.Key_Backspace:
        return True
    text = event.text()
    return bool(text) and text.isprintable()


class FocusModel(QObject):
    """Moves the keys between the search box, the result list and the reading panes.

    `box` is the search box, `results` the result list, `reading` the panes that only read
    (abstract, related list) and `note` the note editor; `framed` get the focus frame.  The
    list's ↑/↓/Page keys call `step(rows)`, so that they wait for a search on its way as the
    other keys do.
    """

    def __init__(
        self,
        box: QLineEdit,
        results: QWidget,
        reading: Sequence[QWidget],
        note: QWidget,
        framed: Sequence[QWidget],
        step: Callable[[int], None],
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.step = step
        self.box = box
        self.results = results
        self.reading = tuple(reading)
        self.note = note
        self.framed = tuple(framed)
        for w in (results, *self.reading):
            w.installEventFilter(self)
        self.restyle()

    # -- moving the keys ---------------------------------------------------------------------
    def to_search(self, *, select_all: bool = True) -> None:
        """The box gets the keys; `select_all` (Ctrl+K, /) so that typing replaces the query."""
        self.box.setFocus(Qt.FocusReason.ShortcutFocusReason)
        if select_all:
            self.box.selectAll()
        else:
            self.box.deselect()
            self.box.end(False)

    def to_list(self) -> None:
        self.results.setFocus(Qt.FocusReason.ShortcutFocusReason)

    def add_pane(self, widget: QWidget) -> None:
        """Another pane that only reads (the sidebar): framed, letters typed there go to the box,
        Esc from it goes to the list."""
        self.reading = (*self.reading, widget)
        self.framed = (*self.framed, widget)
        widget.installEventFilter(self)
        widget.setStyleSheet(frame_style(widget, widget.window().palette()))

    def where(self) -> str:
        """Which pane has the keys: "search", "list", "reading", "note" or "" (elsewhere)."""
        focus = QApplication.focusWidget()
        if focus is None:
            return ""
        if focus is self.box:
            return "search"
        if focus is self.results:
            return "list"
        if focus is self.note or self.note.isAncestorOf(focus):
            return "note"
        if any(focus is w or w.isAncestorOf(focus) for w in self.reading):
            return "reading"
        return ""

    def back(self) -> None:
        """Esc: note or reading → list; list → search box (the query kept as typed, not selected)."""
        where = self.where()
        if where in ("note", "reading"):
            self.to_list()
        else:
            self.to_search(select_all=False)

    def type_in_box(self, event: QKeyEvent) -> None:
        """A character typed outside the box goes to the box, after what is there."""
        self.to_search(select_all=False)
        copy = QKeyEvent(
            event.type(), event.key(), event.modifiers(), event.text(), event.isAutoRepeat(), event.count()
        )
        QApplication.sendEvent(self.box, copy)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() != QEvent.Type.KeyPress:
            return False
        key_event: QKeyEvent = event  # type: ignore[assignment]
        rows = MOVE_KEYS.get(Qt.Key(key_event.key()))
        if watched is self.results and rows is not None and not key_event.modifiers():
            current = self.results.currentIndex()  # type: ignore[attr-defined]
            if key_event.key() == Qt.Key.Key_Up and (not current.isValid() or current.row() == 0):
                self.to_search(select_all=False)
            else:
                self.step(rows)
            return True
        if types_text(key_event):
            self.type_in_box(key_event)
            return True
        return False

    # -- the mark ----------------------------------------------------------------------------
    def restyle(self) -> None:
        """The frames in the current palette (called again when it changes)."""
        for w in self.framed:
            w.setStyleSheet(frame_style(w, w.window().palette()))
