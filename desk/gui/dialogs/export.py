"""Export: starred papers, the current results or the selection, as Markdown, BibTeX, CSV, JSON or
an Obsidian vault (one note per paper in a folder), to a file or folder the user picks."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import (
    QButtonGroup,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
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
OBSIDIAN = "obsidian"
#: The formats offered: (desk export's --format, shown as, file suffix, the file dialog's filter).
FORMATS = (
    ("markdown", "Markdown (a document to read)", ".md", "Markdown (*.md)"),
    ("bibtex", "BibTeX (for LaTeX and reference managers)", ".bib", "BibTeX (*.bib)"),
    ("csv", "CSV (a spreadsheet)", ".csv", "CSV (*.csv)"),
    ("json", "JSON (desk's records)", ".json", "JSON (*.json)"),
    (OBSIDIAN, "Obsidian vault (a note per paper, in a folder)", "", ""),
)


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
        title = "Export papers"
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
        self.formats = QComboBox()
        self.formats.setObjectName("exportFormat")
        for _, shown_as, _, _ in FORMATS:
            self.formats.addItem(shown_as)
        form = QFormLayout()
        label = QLabel("&Format:")
        label.setBuddy(self.formats)
        form.addRow(label, self.formats)
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel("Export:"))
        layout.addWidget(self.starred)
        layout.addWidget(self.results)
        layout.addWidget(self.selected)
        layout.addLayout(form)
        layout.addWidget(buttons)
        # Wide enough for the title bar to show the title whole.
        self.setMinimumWidth(max(self.sizeHint().width(), self.fontMetrics().horizontalAdvance(title) + 160))

    def format(self) -> str:
        """The chosen format, as ``desk export --format`` names it."""
        return FORMATS[max(0, self.formats.currentIndex())][0]

    def choice(self) -> str:
        """Which papers: STARRED, RESULTS or SELECTED."""
        if self.selected.isChecked():
            return SELECTED
        return STARRED if self.starred.isChecked() else RESULTS


def ask_path(parent: QWidget, choice: str, fmt: str = "markdown") -> Path | None:
    """The file to write (the folder of the notes, for an Obsidian vault), or None when the user cancels."""
    if fmt == OBSIDIAN:
        folder = QFileDialog.getExistingDirectory(
            parent, "Export to an Obsidian vault: the folder", str(Path.home())
        )
        return Path(folder) if folder else None
    _, shown_as, suffix, wanted = next(f for f in FORMATS if f[0] == fmt)
    stem = {STARRED: "desk-starred", SELECTED: "desk-selected"}.get(choice, "desk-results")
    name, _ = QFileDialog.getSaveFileName(
        parent,
        f"Export as {shown_as.split(' (')[0]}",
        str(Path.home() / (stem + suffix)),
        f"{wanted};;All files (*)",
    )
    if not name:
        return None
    path = Path(name)
    return path if path.suffix else path.with_suffix(suffix)


def _papers(n: int) -> str:
    return f"{n} paper{'' if n == 1 else 's'}"


def ask_export(
    parent: QWidget,
    query: str,
    result_count: int,
    starred_count: int,
    chosen: Callable[[str, Path, str], None],
    selected_count: int = 0,
) -> ExportDialog:
    """Ask what to export (with how many each holds) and as what, then where; `chosen(choice, path,
    format)` once answered."""
    dialog = ExportDialog(query, result_count, starred_count, parent, selected_count)
    dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)

    def answered(result: int) -> None:
        if result != ExportDialog.DialogCode.Accepted:
            return
        path = ask_path(parent, dialog.choice(), dialog.format())
        if path is not None:
            chosen(dialog.choice(), path, dialog.format())

    dialog.finished.connect(answered)
    dialog.open()
    return dialog


class Exporter(QObject):
    """Collects the ids, asks the core for the format's text and writes it (or the vault's notes),
    all on the worker."""

    exported = Signal(int, str)  # papers written, path
    failed = Signal(str)

    def __init__(self, executor: LibraryExecutor, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.executor = executor

    def export(
        self,
        choice: str,
        query: str,
        path: Path,
        selected: Callable[[Library], list[int]] | None = None,
        fmt: str = "markdown",
    ) -> None:
        """Write the starred papers, the results of `query` or (SELECTED) the ids `selected` gives,
        in ``fmt`` (FORMATS)."""

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
            if fmt == OBSIDIAN:
                return lib.export_obsidian(ids, path).written
            text = lib.export_as(ids, fmt=fmt, what=what)
            write_text(path, text)  # atomic for a file; a symlink is followed, a FIFO written through
            return len(ids)

        self.executor.submit(
            op,
            lambda count: self.exported.emit(count, str(path)),
            lambda exc: self.failed.emit(plain_message(exc)),
        )
