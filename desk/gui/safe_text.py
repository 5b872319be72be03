"""Text views that are safe for text from files: nothing is loaded, only web links open, plain labels."""

from __future__ import annotations

from PySide6.QtCore import Qt, QUrl, Signal
from PySide6.QtGui import QDesktopServices, QTextCharFormat, QTextCursor, QTextDocument
from PySide6.QtWidgets import QLabel, QSizePolicy, QTextBrowser, QWidget

SAFE_SCHEMES = frozenset({"http", "https"})


def open_external(url: QUrl) -> bool:
    """Open a web link in the system browser; anything else (file:, javascript:, …) is ignored."""
    if url.scheme().lower() in SAFE_SCHEMES and url.isValid():
        return QDesktopServices.openUrl(url)
    return False


def disarm_links(document: QTextDocument) -> int:
    """Make every link that is not http(s) plain text (a note's [x](javascript:…)); returns how many."""
    unsafe: list[tuple[int, int]] = []
    block = document.begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            fragment = it.fragment()
            fmt = fragment.charFormat()
            if fmt.isAnchor() and QUrl(fmt.anchorHref()).scheme().lower() not in SAFE_SCHEMES:
                unsafe.append((fragment.position(), fragment.length()))
            it += 1
        block = block.next()
    cursor = QTextCursor(document)
    for start, length in unsafe:
        cursor.setPosition(start)
        cursor.setPosition(start + length, QTextCursor.MoveMode.KeepAnchor)
        fmt = QTextCharFormat(cursor.charFormat())
        fmt.setAnchor(False)
        fmt.setAnchorHref("")
        cursor.setCharFormat(fmt)
    return len(unsafe)


class SafeTextBrowser(QTextBrowser):
    """A text browser that never loads anything: no images, no style sheets, no navigation.

    Links go to the system browser (http/https only) through `anchorClicked`.
    """

    linkOpened = Signal(QUrl)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setOpenLinks(False)
        self.setOpenExternalLinks(False)
        self.anchorClicked.connect(self._clicked)

    def loadResource(self, type: int, name: QUrl | str) -> object:
        return None

    def _clicked(self, url: QUrl) -> None:
        if open_external(url):
            self.linkOpened.emit(url)


def plain_label(object_name: str, *, wrap: bool = True) -> QLabel:
    """A selectable label that shows text as text: file text is never markup."""
    label = QLabel()
    label.setObjectName(object_name)
    label.setTextFormat(Qt.TextFormat.PlainText)  # text from files is never markup
    label.setWordWrap(wrap)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    label.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Minimum)
    return label
