"""Delete: the papers the keys act on go to the trash, asked first when any has a note.

The question is a window-modal message box opened with `open()` and answered through its
signal, never `exec()` or `QMessageBox.question` (which run an event loop of their own): the
window keeps painting, and the keys answer it — Enter moves them to the trash, Esc keeps them.
Either way the move is one undo step (Ctrl+Z brings every paper back).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import QApplication, QMessageBox, QWidget

from desk.gui.organize.selection import Target
from desk.gui.workers import LibraryExecutor

if TYPE_CHECKING:  # desk.core.library.facade loads Whoosh: only the worker thread imports it
    from desk.core.library.facade import Library


def question(noted: int, total: int) -> str:
    """What the box asks, e.g. "2 of these papers have notes. Move to the trash anyway?"."""
    if total == 1:
        return "This paper has a note. Move it to the trash anyway? (Ctrl+Z brings it back.)"
    if noted == total:
        return f"All {total} of these papers have notes. Move them to the trash anyway?"
    has = "has a note" if noted == 1 else "have notes"
    return f"{noted} of these papers {has}. Move to the trash anyway?"


class Deleter(QObject):
    """`delete(target)`: ask when notes would go, then trash; `deleted(ids)` once they are gone."""

    deleted = Signal(object)  # list[int]
    status = Signal(str)

    def __init__(self, executor: LibraryExecutor, parent: QWidget) -> None:
        super().__init__(parent)
        self.executor = executor
        self.parent_widget = parent
        self.box: QMessageBox | None = None  # the question, while it is open

    def delete(self, target: Target) -> None:
        """Delete (or the Paper menu): the papers to the trash, asking first about notes."""
        if not target.ids and target.query is None:
            self.status.emit("Select a paper first.")
            return

        def op(lib: Library) -> tuple[list[int], list[int]]:
            ids = target.resolve(lib)
            return ids, lib.trash.papers_with_notes(ids)

        def checked(result: tuple[list[int], list[int]]) -> None:
            ids, noted = result
            if noted:
                self._ask(ids, len(noted))
            else:
                self._trash(ids)

        self.executor.submit(op, checked)

    def _ask(self, ids: list[int], noted: int) -> None:
        box = QMessageBox(self.parent_widget)
        box.setObjectName("deleteQuestion")
        box.setIcon(QMessageBox.Icon.Question)
        box.setWindowTitle("Move to the trash?")
        box.setTextFormat(Qt.TextFormat.PlainText)
        box.setText(question(noted, len(ids)))
        box.setInformativeText("The notes go to the trash with their papers and come back with them.")
        trash = box.addButton("Move to the &trash", QMessageBox.ButtonRole.AcceptRole)
        keep = box.addButton("&Keep them" if len(ids) > 1 else "&Keep it", QMessageBox.ButtonRole.RejectRole)
        box.setDefaultButton(trash)
        box.setEscapeButton(keep)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)

        back = QApplication.focusWidget()

        def answered(_result: int) -> None:
            self.box = None
            self.parent_widget.activateWindow()
            if back is not None and back.isVisible():
                back.setFocus(Qt.FocusReason.OtherFocusReason)  # the keys back in the list
            if box.clickedButton() is trash:
                self._trash(ids)
            else:
                self.status.emit("Nothing was moved to the trash.")

        box.finished.connect(answered)
        self.box = box
        box.open()
        trash.setFocus(Qt.FocusReason.OtherFocusReason)

    def _trash(self, ids: list[int]) -> None:
        def done(gone: list[int]) -> None:
            what = "the paper" if len(gone) == 1 else f"{len(gone)} papers"
            self.status.emit(
                f"Moved {what} to the trash (Ctrl+Z brings {'it' if len(gone) == 1 else 'them'} back)"
            )
            self.deleted.emit(gone)

        self.executor.submit(lambda lib: lib.trash.delete(ids), done)
