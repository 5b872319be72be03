"""A rich list's metadata in the window: authors in the rows and the pane, Ctrl+O, Ctrl+E's formats."""

from __future__ import annotations

import json
from pathlib import Path

import bibtexparser
import pytest
from gui_helpers import press, type_text, wait_search
from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QDesktopServices, QTextDocumentFragment
from PySide6.QtWidgets import QApplication, QFileDialog

from desk.core.library.facade import Library
from desk.gui.search.delegate import row_byline

Ctrl = Qt.KeyboardModifier.ControlModifier
RECORDS = [
    {"title": "Attention Is All You Need", "year": 2017, "venue": "NeurIPS",
     "authors": ["Ashish Vaswani", "Noam Shazeer", "Niki Parmar", "Jakob Uszkoreit", "Llion Jones"],
     "url": "https://papers.example.org/attention",
     "abstract": "We propose the Transformer, a zebra-free sequence model built on attention alone."},
    {"title": "Kernel Mean Embeddings", "authors": ["Bernhard Schölkopf"], "doi": "10.1234/kme.7",
     "abstract": "Kernel mean embeddings of distributions support quokka two-sample tests."},
    {"title": "Sparse Wombat Routing", "authors": ["Ann Lee", "Bo Chen"], "arxiv_id": "2301.01234",
     "abstract": "We route wombat tokens to sparse experts and cut the cost of mixtures of experts."},
]  # fmt: skip


@pytest.fixture
def rich_library(tmp_path: Path) -> Path:
    listed = tmp_path / "papers.json"
    listed.write_text(json.dumps(RECORDS), encoding="utf-8")
    bare = tmp_path / "bare.txt"
    bare.write_text("Bare 2026\n\nA bare abstract about platypus migration, with no link at all.\n")
    with Library(tmp_path / "lib") as lib:
        assert lib.import_paths([listed, bare]).added == 4
    return tmp_path / "lib"


def _find(qtbot, window, query: str) -> None:
    """Type a query into the search box and open the first hit (Return), as a user does."""
    window.search_box.setFocus()
    window.search_box.selectAll()
    type_text(qtbot, query)
    wait_search(qtbot, window, query)
    press(qtbot, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: window.paper_view.paper is not None and query in window.paper_view.paper.abstract)


def test_rows_show_three_authors_and_the_pane_all_of_them(open_window, rich_library: Path, qtbot) -> None:
    window = open_window(rich_library)
    _find(qtbot, window, "zebra")
    summary = window.model.summary(window.current_id)
    assert row_byline(summary) == ("Ashish Vaswani, Noam Shazeer, Niki Parmar et al.", "NeurIPS 2017")
    window.results_view.grab()  # the rows paint with their byline
    authors = window.paper_view.authors
    assert authors.isVisible()
    assert QTextDocumentFragment.fromHtml(authors.text()).toPlainText() == (
        "Ashish Vaswani, Noam Shazeer, Niki Parmar, Jakob Uszkoreit, Llion Jones  ·  NeurIPS 2017"
    )
    _find(qtbot, window, "platypus")
    assert not window.paper_view.authors.isVisible()
    assert row_byline(window.model.summary(window.current_id)) == ()


def test_ctrl_o_opens_the_papers_link_its_doi_or_its_arxiv_page(
    open_window, rich_library: Path, qtbot, monkeypatch
) -> None:
    opened: list[str] = []
    monkeypatch.setattr(
        QDesktopServices, "openUrl", staticmethod(lambda url: opened.append(url.toString()) or True)
    )
    window = open_window(rich_library)
    for query, link in (
        ("zebra", "https://papers.example.org/attention"),
        ("quokka", "https://doi.org/10.1234/kme.7"),
        ("wombat", "https://arxiv.org/abs/2301.01234"),
    ):
        _find(qtbot, window, query)
        press(qtbot, "o", Ctrl)
        qtbot.waitUntil(lambda link=link: opened[-1:] == [link])
    _find(qtbot, window, "platypus")
    press(qtbot, "o", Ctrl)
    qtbot.waitUntil(lambda: "No link" in window.statusBar().currentMessage())
    assert len(opened) == 3
    assert QUrl(opened[0]).scheme() == "https"


def _export_dialog(qtbot, window):
    from desk.gui.dialogs.export import ExportDialog

    press(qtbot, "e", Ctrl)
    qtbot.waitUntil(
        lambda: window.findChild(ExportDialog) is not None and window.findChild(ExportDialog).isVisible()
    )
    dialog = window.findChild(ExportDialog)
    qtbot.waitUntil(lambda: QApplication.activeModalWidget() is dialog or dialog.isActiveWindow())
    return dialog


def test_ctrl_e_offers_the_formats_and_writes_bibtex(
    open_window, rich_library: Path, tmp_path: Path, qtbot, monkeypatch
) -> None:
    out = tmp_path / "papers"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(lambda *a, **k: (str(out), "")))
    window = open_window(rich_library)
    dialog = _export_dialog(qtbot, window)
    assert [dialog.formats.itemText(i).split(" (")[0] for i in range(dialog.formats.count())] == [
        "Markdown", "BibTeX", "CSV", "JSON", "Obsidian vault",
    ]  # fmt: skip
    assert dialog.results.isChecked()  # nothing starred: every paper
    qtbot.keyClick(dialog, "f", Qt.KeyboardModifier.AltModifier)  # the Format label's mnemonic
    qtbot.waitUntil(dialog.formats.hasFocus)
    press(qtbot, Qt.Key.Key_Down)
    assert dialog.format() == "bibtex"
    press(qtbot, Qt.Key.Key_Return)
    written = out.with_suffix(".bib")
    qtbot.waitUntil(written.exists, timeout=10_000)
    parsed = bibtexparser.parse_string(written.read_text(encoding="utf-8"))
    assert len(parsed.entries) == 4 and not parsed.failed_blocks
    assert "vaswani2017attention" in {e.key for e in parsed.entries}


def test_ctrl_e_writes_an_obsidian_vault_into_a_folder(
    open_window, rich_library: Path, tmp_path: Path, qtbot, monkeypatch
) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    monkeypatch.setattr(QFileDialog, "getExistingDirectory", staticmethod(lambda *a, **k: str(vault)))
    window = open_window(rich_library)
    dialog = _export_dialog(qtbot, window)
    qtbot.keyClick(dialog, "f", Qt.KeyboardModifier.AltModifier)
    qtbot.waitUntil(dialog.formats.hasFocus)
    for _ in range(4):
        press(qtbot, Qt.Key.Key_Down)
    assert dialog.format() == "obsidian"
    press(qtbot, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: len(list(vault.glob("*.md"))) == 4, timeout=10_000)
    assert (vault / "Attention Is All You Need.md").read_text(encoding="utf-8").startswith("---\ntitle: ")
    qtbot.waitUntil(lambda: "Exported 4 papers" in window.statusBar().currentMessage())
