"""A question asked inside the window, never in a modal dialog: a name to type, or yes/no.

Enter answers yes (with the name typed), Esc no; the buttons do the same.  Nothing blocks: the
answer comes back through the callback given with the question, and a new question replaces
one left unanswered.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QApplication, QHBoxLayout, QLabel, QLineEdit, QPushButton, QVBoxLayout, QWidget

from desk.gui import theme

_ANSWER_KEYS = (Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_Escape)


class AskBar(QWidget):
    """`ask_name(question, default, on_name)` or `confirm(question, yes, on_yes)`; hidden between."""

    answered = Signal(bool)  # True: yes (for tests and the focus to move on)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("askBar")
        self.question = QLabel()
        self.question.setObjectName("askQuestion")
        self.question.setWordWrap(True)
        self.question.setTextFormat(Qt.TextFormat.PlainText)
        self.name = QLineEdit()
        self.name.setObjectName("askName")
        self.yes = QPushButton("OK")
        self.yes.setObjectName("askYes")
        self.no = QPushButton("Cancel")
        self.no.setObjectName("askNo")
        for button in (self.yes, self.no):
            button.setAutoDefault(False)
        self.yes.clicked.connect(lambda: self.answer(True))
        self.no.clicked.connect(lambda: self.answer(False))
        buttons = QHBoxLayout()
        buttons.setContentsMargins(0, 0, 0, 0)
        buttons.addStretch(1)
        buttons.addWidget(self.yes)
        buttons.addWidget(self.no)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(self.question)
        layout.addWidget(self.name)
        layout.addLayout(buttons)
        for w in (self, self.name, self.yes, self.no):
            w.installEventFilter(self)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self._on_yes: Callable[[str], object] | None = None
        self._back: QWidget | None = None
        self.restyle()
        self.hide()

    def restyle(self) -> None:
        """A band in the palette's alternate colour with the accent on its edge."""
        palette = self.palette()
        accent = theme.colors(palette).warning.name()
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
        self.setStyleSheet(f"QWidget#askBar {{ border: 2px solid {accent}; border-radius: 4px; }}")

    # -- asking -------------------------------------------------------------------------------
    def ask_name(
        self, question: str, default: str, on_name: Callable[[str], object], yes: str = "Save"
    ) -> None:
        """Ask for a name (`on_name(name)` on Enter with something typed)."""
        self._ask(question, yes, on_name)
        self.name.show()
        self.name.setText(default)
        self.name.selectAll()
        self.name.setFocus(Qt.FocusReason.OtherFocusReason)

    def confirm(self, question: str, yes: str, on_yes: Callable[[], object]) -> None:
        """Ask yes or no (`on_yes()` on Enter or the yes button)."""
        self._ask(question, yes, lambda _name: on_yes())
        self.name.hide()
        self.yes.setFocus(Qt.FocusReason.OtherFocusReason)

    def _ask(self, question: str, yes: str, on_yes: Callable[[str], object]) -> None:
        focus = QApplication.focusWidget()
        if not self.isVisible():
            self._back = focus if focus is not None and not self.isAncestorOf(focus) else None
        self.question.setText(question)
        self.question.setAccessibleDescription(question)
        self.yes.setText(yes)
        self._on_yes = on_yes
        self.show()

    @property
    def asking(self) -> bool:
        return self.isVisible()

    def answer(self, yes: bool) -> None:
        """Answer the question shown: yes (with the name typed) or no."""
        if not self.isVisible():
            return
        name = " ".join(self.name.text().split())
        if yes and self.name.isVisible() and not name:
            return  # a name is wanted
        on_yes, self._on_yes = self._on_yes, None
        self.hide()
        if self._back is not None:
            self._back.setFocus(Qt.FocusReason.OtherFocusReason)
        self._back = None
        if yes and on_yes is not None:
            on_yes(name)
        self.answered.emit(yes)

    # -- keys ---------------------------------------------------------------------------------
    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if not isinstance(event, QKeyEvent) or event.key() not in _ANSWER_KEYS:
            return False
        if event.type() == QEvent.Type.ShortcutOverride:
            event.accept()  # Esc and Enter are the question's, not the window's
            return True
        if event.type() == QEvent.Type.KeyPress:
            self.answer(event.key() != Qt.Key.Key_Escape)
            return True
        return False
