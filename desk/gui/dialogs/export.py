"""Export to Markdown: starred papers or the current results, to a file the user picks."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import (
    QButtonGroup,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QLabel,
    QRadioButton,
    QVBoxLayout,
    QWidget,
)

from desk.core.runtime.errors import DeskError
from desk.core.runtime.files import write_text
from desk.gui.workers import LibraryExecutor, plain_message

if TYPE_CHECKING:  # desk.core.library.facade loads Whoosh: only the worker thread imports it
    from desk.core.library.facade import Library

STARRED = "starred"
RESULTS = "results"
SELECTED = "selected"


class ExportDialog(QDialog):
    """Asks what to export; the file name is asked next."""

    def __init__(
        self,
        query: str,
        result_count: int,
        starred_count: int | None = None,
        parent: QWidget | None = None,
        selected_count: int = 0,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("exportDialog")
        title = "Export to Markdown"
        self.setWindowTitle(title)
        if starred_count is None:
            self.starred = QRadioButton("&Starred papers")
        elif starred_count:
            self.starred = QRadioButton(f"&Starred papers ({_papers(starred_count)})")
        else:
            self.starred = QRadioButton("&Starred papers (none yet: star one with S)")
        self.starred.setObjectName("exportStarred")
        self.starred.setEnabled(starred_count is None or starred_count > 0)
        shown = f"“{query}”" if query.strip() else "every paper"
        self.results = QRadioButton(f"&Current results: {shown} ({_papers(result_count)})")
        self.results.setObjectName("exportResults")
        self.results.setEnabled(result_count > 0)
        # Several papers selected in the list (Ctrl+E "the selected papers"): offered, and chosen.
        self.selected = QRadioButton(f"S&elected papers ({_papers(selected_count)})")
        self.selected.setObjectName("exportSelected")
        self.selected.setVisible(selected_count > 1)
        self.selected.setEnabled(selected_count > 1)
        if selected_count > 1:
            self.selected.setChecked(True)
        else:
            (self.starred if self.starred.isEnabled() or not result_count else self.results).setChecked(True)
        group = QButtonGroup(self)
        group.addButton(self.starred)
        group.addButton(self.results)
        group.addButton(self.selected)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        ok = buttons.button(QDialogButtonBox.StandardButton.Ok)
        ok.setText("Export…")
        ok.setEnabled(self.starred.isEnabled() or self.results.isEnabled())  # nothing to export: say so
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel("Export to a Markdown file:"))
        layout.addWidget(self.starred)
        layout.addWidget(self.results)
        layout.addWidget(self.selected)
        layout.addWidget(buttons)
        # Wide enough for the title bar to show the title whole.
        self.setMinimumWidth(max(self.sizeHint().width(), self.fontMetrics().horizontalAdvance(title) + 160))

    def choice(self) -> str:
        if self.selected.isChecked():
            return SELECTED
        return STARRED if self.starred.isChecked() else RESULTS


def ask_path(parent: QWidget, choice: str) -> Path | None:
    """The file to write, or None when the user cancels."""
    default = Path.home() / {STARRED: "desk-starred.md", SELECTED: "desk-selected.md"}.get(
        choice, "desk-results.md"
    )
    name, _ = QFileDialog.getSaveFileName(
        parent, "Export to Markdown", str(default), "Markdown (*.md);;All files (*)"
    )
    if not name:
        return None
    path = Path(name)
    return path if path.suffix else path.with_suffix(".md")


def _papers(n: int) -> str:
    return f"{n} paper{'' if n == 1 else 's'}"


def ask_export(
    parent: QWidget,
    query: str,
    result_count: int,
    starred_count: int,
    chosen: Callable[[str, Path], None],
    selected_count: int = 0,
) -> ExportDialog:
    """Ask what to export (with how many each holds), then where; `chosen(choice, path)` once answered."""
    dialog = ExportDialog(query, result_count, starred_count, parent, selected_count)
    dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)

    def answered(result: int) -> None:
        if result != ExportDialog.DialogCode.Accepted:
            return
        path = ask_path(parent, dialog.choice())
        if path is not None:
            chosen(dialog.choice(), path)

    dialog.finished.connect(answered)
    dialog.open()
    return dialog


class Exporter(QObject):
    """Collects the ids, asks the core for Markdown and writes it, all on the worker."""

    exported = Signal(int, str)  # papers written, path
    failed = Signal(str)

    def __init__(self, executor: LibraryExecutor, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.executor = executor

    def export(
        self, choice: str, query: str, path: Path, selected: Callable[[Library], list[int]] | None = None
    ) -> None:
        """Write the starred papers, the results of `query` or (SELECTED) the ids `selected` gives."""

        def op(lib: Library) -> int:
            if choice == SELECTED and selected is not None:
                ids = selected(lib)
                what = "selected papers"
            elif choice == STARRED:
                ids = lib.paper_ids(starred=True)
                what = "starred papers"
                if not ids:
                    raise DeskError("no paper is starred yet: star one with S, then export")
            else:
                first = lib.search_ids(query, limit=1)
                ids = [h.id for h in lib.search_ids(query, limit=max(first.total, 1)).hits]
                what = f"results for “{query}”" if query.strip() else "every paper"
                if not ids:
                    raise DeskError("the current search has no results to export")
            text = lib.export_markdown(ids, what=what)
            write_text(path, text)  # atomic for a file; a symlink is followed, a FIFO written through
            return len(ids)

        self.executor.submit(
            op,
            lambda count: self.exported.emit(count, str(path)),
            lambda exc: self.failed.emit(plain_message(exc)),
        )
