"""First run, importing (menu and drag and drop, good and bad files) and exporting to Markdown."""

from __future__ import annotations

from pathlib import Path

import pytest
from gui_helpers import SEEDS, press, wait_ready
from PySide6.QtCore import QMimeData, QPoint, Qt, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import QApplication, QFileDialog

from desk.core.library.facade import Library

Ctrl = Qt.KeyboardModifier.ControlModifier


def _summary(window) -> str | None:
    """What the import's inline panel says once the import is done (None while it runs or is hidden)."""
    panel = window.importer.panel
    return panel.summary() if panel.isVisible() and not panel.running else None


def test_first_run_imports_the_seeds_with_progress(open_window, tmp_path: Path, qtbot) -> None:
    seen: list[tuple[str, bool]] = []
    window = open_window(tmp_path / "new-library", seeds=SEEDS, wait=False)
    window.importer.started.connect(
        lambda title: seen.append(
            (title, window.importer.panel.isVisible() and window.importer.panel.running)
        )
    )
    wait_ready(qtbot, window)
    assert seen and seen[0][1], "the progress was shown while the seeds were imported"
    qtbot.waitUntil(lambda: window.model.total > 50)
    assert window.current_id is not None  # usable at once: the first paper is shown
    qtbot.waitUntil(lambda: window.paper_view.paper is not None)
    window.close()
    with Library(tmp_path / "new-library") as lib:
        assert lib.count() == window.model.total


def _drop(window, paths: list[Path]) -> None:
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(p)) for p in paths])
    pos = QPoint(window.width() // 2, window.height() // 2)
    enter = QDragEnterEvent(
        pos, Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier
    )
    QApplication.sendEvent(window, enter)
    assert enter.isAccepted()
    drop = QDropEvent(
        pos, Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier
    )
    QApplication.sendEvent(window, drop)
    assert drop.isAccepted()


def test_a_bad_file_dropped_is_reported_and_nothing_is_lost(
    open_window, library_dir: Path, tmp_path: Path, qtbot
) -> None:
    with Library(library_dir) as lib:
        before = lib.stats()
        pid = lib.paper_ids()[0]
        lib.set_starred([pid], True)
        lib.set_note(pid, "keep me")
    bad = tmp_path / "conference.txt"
    bad.write_bytes(bytes(range(256)) * 40 + b"\x00\xff\xfe" * 100)
    window = open_window(library_dir)
    _drop(window, [bad])
    qtbot.waitUntil(lambda: _summary(window) is not None, timeout=10_000)
    said = _summary(window)
    assert "conference.txt" in said and "Skipped" in said
    assert "Traceback" not in said
    assert not QApplication.activeModalWidget()  # said inline, not in a modal box
    window.importer.panel.close_button.click()
    window.close()
    with Library(library_dir) as lib:
        after = lib.stats()
        assert (after.papers, after.sources, after.starred, after.notes) == (
            before.papers,
            before.sources,
            before.starred + 1,
            before.notes + 1,
        )
        assert lib.paper(pid).note == "keep me"


def test_import_from_the_menu_reimport_adds_nothing(
    open_window, library_dir: Path, tmp_path: Path, qtbot, monkeypatch
) -> None:
    new = tmp_path / "more.txt"
    new.write_text(
        "NeurIPS 2031 Papers\n\nWe propose GLIMMER, a method that learns sparse glimmer codes for "
        "tabular data. Experiments show it beats strong baselines on twelve benchmarks.\n",
        encoding="utf-8",
    )
    monkeypatch.setattr(QFileDialog, "getOpenFileNames", staticmethod(lambda *a, **k: ([str(new)], "")))
    window = open_window(library_dir)
    total = window.model.total
    press(qtbot, "i", Ctrl)
    qtbot.waitUntil(lambda: _summary(window) is not None, timeout=10_000)
    assert "Added 1 paper" in _summary(window)
    assert window.statusBar().currentMessage().startswith("Added 1 paper")
    qtbot.waitUntil(lambda: not window.controller.pending() and window.model.total == total + 1)
    press(qtbot, "i", Ctrl)  # the same file again
    qtbot.waitUntil(lambda: "Added 0 papers" in (_summary(window) or ""), timeout=10_000)
    window.close()
    with Library(library_dir) as lib:
        assert lib.count() == total + 1


def test_export_starred_writes_the_cores_markdown(
    open_window, library_dir: Path, tmp_path: Path, qtbot, monkeypatch
) -> None:
    from desk.gui.dialogs.export import ExportDialog

    out = tmp_path / "out" / "reading-group.md"
    out.parent.mkdir()
    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(lambda *a, **k: (str(out), "")))
    window = open_window(library_dir)
    press(qtbot, Qt.Key.Key_Return)
    qtbot.waitUntil(window.abstract_view.hasFocus)
    pid = window.current_id
    press(qtbot, "s")
    qtbot.waitUntil(lambda: window.model.summary(pid).starred)
    press(qtbot, "e", Ctrl)
    qtbot.waitUntil(lambda: window.findChild(ExportDialog) is not None)  # after counting the starred
    dialog = window.findChild(ExportDialog)
    assert dialog is not None and dialog.isVisible()
    assert dialog.starred.isChecked() and "(1 paper)" in dialog.starred.text()
    dialog.accept()
    qtbot.waitUntil(out.exists, timeout=10_000)
    text = out.read_text(encoding="utf-8")
    window.close()
    with Library(library_dir) as lib:
        expected = lib.export_markdown([pid], what="starred papers")
    # The first line carries the time of export; the rest is the core's Markdown as it is.
    assert text.splitlines()[0].startswith("# ")
    assert text.splitlines()[1:] == expected.splitlines()[1:]


def test_export_current_results(open_window, library_dir: Path, tmp_path: Path, qtbot, monkeypatch) -> None:
    from desk.gui.dialogs.export import ExportDialog

    out = tmp_path / "results"  # no suffix: .md is added
    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(lambda *a, **k: (str(out), "")))
    window = open_window(library_dir)
    qtbot.keyClicks(window.search_box, "diffusion")
    qtbot.waitUntil(lambda: not window.controller.pending() and window.controller.text == "diffusion")
    count = window.model.total
    assert count > 0
    press(qtbot, "e", Ctrl)
    qtbot.waitUntil(lambda: window.findChild(ExportDialog) is not None)
    dialog = window.findChild(ExportDialog)
    dialog.results.setChecked(True)
    dialog.accept()
    written = out.with_suffix(".md")
    qtbot.waitUntil(written.exists, timeout=10_000)
    assert f"{count} paper" in written.read_text(encoding="utf-8").splitlines()[0]


def test_export_says_what_is_empty_before_asking_for_a_file(
    open_window, library_dir: Path, qtbot, monkeypatch
) -> None:
    """Nothing starred: that choice is off (and says why); nothing at all: Export is off too."""
    from PySide6.QtWidgets import QDialogButtonBox

    from desk.gui.dialogs.export import ExportDialog

    asked: list[object] = []
    monkeypatch.setattr(
        QFileDialog, "getSaveFileName", staticmethod(lambda *a, **k: asked.append(a) or ("", ""))
    )
    window = open_window(library_dir)
    press(qtbot, "e", Ctrl)
    qtbot.waitUntil(lambda: window.findChild(ExportDialog) is not None)
    dialog = window.findChild(ExportDialog)
    assert not dialog.starred.isEnabled() and "none yet" in dialog.starred.text()
    assert dialog.results.isChecked() and dialog.results.isEnabled()
    assert dialog.width() >= dialog.fontMetrics().horizontalAdvance(dialog.windowTitle())
    dialog.reject()
    empty = ExportDialog("zzzz", 0, 0)
    qtbot.addWidget(empty)
    assert not empty.findChild(QDialogButtonBox).button(QDialogButtonBox.StandardButton.Ok).isEnabled()
    assert asked == []


def test_a_big_list_dropped_is_imported_on_worker_processes_from_the_window(
    open_window, library_dir: Path, tmp_path: Path, qtbot, monkeypatch
) -> None:
    import multiprocessing
    from dataclasses import replace

    from desk.core.runtime import tuning

    # The thresholds of a 5,000-abstract list, lowered so 60 abstracts take the same path (the
    # window's library, opened on its worker thread, takes the default tuning).
    lowered = replace(
        tuning.Tuning(), analyse_on_workers_from=10, index_on_workers_from=10, dedup_on_workers_from=10
    )
    monkeypatch.setattr(tuning, "DEFAULT", lowered)
    big = tmp_path / "big.txt"
    big.write_text(
        "ICML 2032 Papers\n\n"
        + "\n\n".join(
            f"We propose ZEPHYR{i}, a method for sparse routing number {i} in mixtures of experts. "
            f"It cuts the cost of layer {i} by a wide margin on {i + 3} benchmarks."
            for i in range(60)
        )
        + "\n",
        encoding="utf-8",
    )
    window = open_window(library_dir)
    total = window.model.total
    _drop(window, [big])
    qtbot.waitUntil(lambda: _summary(window) is not None, timeout=60_000)
    assert "Added 60 papers" in _summary(window)
    qtbot.waitUntil(lambda: not window.controller.pending() and window.model.total == total + 60)
    window.close()
    assert not multiprocessing.active_children()  # the workers ended with the import
    with Library(library_dir) as lib:
        assert lib.search("zephyr17").total == 1
        assert lib.check() == []


@pytest.mark.slow
def test_typing_goes_on_during_an_import_and_the_outcome_is_said_inline(
    open_window, library_dir: Path, tmp_path: Path, qtbot
) -> None:
    from gui_helpers import type_text, wait_search

    big = tmp_path / "big.txt"
    big.write_text(
        "ICML 2033 Papers\n\n"
        + "\n\n".join(
            f"We study QUILL{i}, a sampler number {i} for diffusion models of {i % 7 + 2} layers. "
            f"Its error bound for step {i} improves on {i + 5} earlier ones, and it runs on one GPU."
            for i in range(1500)
        )
        + "\n",
        encoding="utf-8",
    )
    window = open_window(library_dir)
    _drop(window, [big])
    qtbot.waitUntil(lambda: window.importer.panel.running)
    assert QApplication.activeModalWidget() is None  # nothing modal: the keys stay in the window
    assert window.search_box.hasFocus()
    type_text(qtbot, "policy")  # typed while the lists are read
    assert window.search_box.text() == "policy"
    assert window.importer.busy()  # still importing when the keys landed
    qtbot.waitUntil(lambda: _summary(window) is not None, timeout=120_000)
    assert "Added 1500 papers" in _summary(window)
    wait_search(qtbot, window, "policy")
    assert window.controller.shown_text == "policy" and window.model.total > 0
    window.close()
    with Library(library_dir) as lib:
        assert lib.search_ids("quill17").total == 1
