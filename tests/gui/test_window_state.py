"""What the window remembers, the shortcut sheet, the results model, safe links, light and dark."""

from __future__ import annotations

from pathlib import Path

from gui_helpers import press, type_text, wait_search
from paper_helpers import wait_idle
from PySide6.QtCore import QModelIndex, Qt, QUrl
from PySide6.QtGui import QDesktopServices, QTextDocument
from PySide6.QtWidgets import QApplication

from desk.core.records.page import PaperSummary, SourceInfo
from desk.gui import theme
from desk.gui.dialogs.shortcut_sheet import ShortcutSheet
from desk.gui.keymap import ACTIONS
from desk.gui.search.model import PLACEHOLDER, Hit, ResultsModel, Roles


def test_restart_restores_geometry_split_and_query(open_window, library_dir: Path, qtbot) -> None:
    window = open_window(library_dir)
    window.resize(760, 540)  # within the offscreen screen (800×600), which Qt clamps to
    window.main_splitter.setSizes([300, 440])
    type_text(qtbot, "diffusion")
    wait_search(qtbot, window, "diffusion")
    press(qtbot, "2", Qt.KeyboardModifier.ControlModifier)
    wait_idle(qtbot, window)  # the filter's search and what follows its results have landed
    size = window.size()
    sizes = window.main_splitter.sizes()
    window.close()

    again = open_window(library_dir)
    wait_idle(qtbot, again)
    assert again.size() == size
    assert again.main_splitter.sizes() == sizes
    assert again.search_box.text() == "diffusion"
    assert again.controller.filter == "starred"
    assert again.filter_buttons["starred"].isChecked()


def _sheet(window) -> ShortcutSheet | None:
    sheet = window.findChild(ShortcutSheet, "shortcutSheet")
    return sheet if sheet is not None and sheet.isVisible() else None


def test_shortcut_sheet_opens_with_f1_and_question_mark(open_window, library_dir: Path, qtbot) -> None:
    window = open_window(library_dir)
    press(qtbot, Qt.Key.Key_F1)
    sheet = _sheet(window)
    assert sheet is not None
    entries = dict(sheet.entries())
    for spec in ACTIONS:  # every action is listed with its keys
        label = spec.text.replace("&", "").rstrip("…")
        assert label in entries
        if spec.keys:
            assert entries[label]
    assert "Ctrl+K" in entries["Find"] and "/" in entries["Find"]
    sheet.close()
    window.activateWindow()
    press(qtbot, Qt.Key.Key_Return)  # out of the search box, where ? would be typed
    qtbot.waitUntil(window.abstract_view.hasFocus)
    press(qtbot, "?")
    assert _sheet(window) is not None


def test_every_menu_action_shows_a_shortcut(open_window, library_dir: Path) -> None:
    window = open_window(library_dir)
    for spec in ACTIONS:
        action = window.named_actions[spec.name]
        if spec.keys:
            assert not action.shortcut().isEmpty(), spec.name  # the menu shows the first key


def test_results_model_passes_the_model_tester(open_window, library_dir: Path, qtbot, qtmodeltester) -> None:
    window = open_window(library_dir)
    type_text(qtbot, "learning")
    wait_search(qtbot, window, "learning")
    qtmodeltester.check(window.model)


def test_results_model_rows_load_lazily_and_never_raise(qtbot, qtmodeltester) -> None:
    model = ResultsModel()
    asked: list[list[int]] = []
    model.rowsWanted.connect(asked.append)
    model.reset([Hit(i, f"snippet {i}", ((0, 7),)) for i in range(1, 301)], 1000, {})
    index = model.index(150)
    assert index.data() == PLACEHOLDER
    assert index.data(Roles.Summary) is None
    qtbot.waitUntil(lambda: bool(asked))
    assert 151 in asked[0] and len(asked[0]) < 300  # a chunk around the row, not everything
    summary = PaperSummary(151, "A title", "RACER", True, False, True, (SourceInfo("a.txt", 3, "ICML"),))
    with qtbot.waitSignal(model.dataChanged):
        model.set_summaries({151: summary}, [151, 152])
    assert index.data() == "A title"
    assert model.index(151).data() != PLACEHOLDER  # 152 was asked for and is gone: shown as missing
    assert not model.flags(model.index(151)) & Qt.ItemFlag.ItemIsEnabled
    assert model.canFetchMore(QModelIndex())
    with qtbot.waitSignal(model.moreWanted):
        model.fetchMore(QModelIndex())
    model.append([Hit(i) for i in range(301, 401)], {})
    assert model.rowCount() == 400
    qtmodeltester.check(model)


def test_abstract_view_never_loads_anything_and_opens_web_links_only(
    open_window, library_dir: Path, monkeypatch
) -> None:
    opened: list[str] = []
    monkeypatch.setattr(
        QDesktopServices, "openUrl", staticmethod(lambda url: opened.append(url.toString()) or True)
    )
    window = open_window(library_dir)
    view = window.abstract_view
    assert not view.openLinks() and not view.openExternalLinks()
    assert (
        view.loadResource(QTextDocument.ResourceType.ImageResource, QUrl("https://example.org/x.png")) is None
    )
    view.anchorClicked.emit(QUrl("file:///etc/passwd"))
    view.anchorClicked.emit(QUrl("javascript:alert(1)"))
    view.anchorClicked.emit(QUrl("https://github.com/x/y"))
    assert opened == ["https://github.com/x/y"]


def test_dark_palette_and_highlight_colours(open_window, library_dir: Path, qtbot) -> None:
    app = QApplication.instance()
    original = app.palette()
    try:
        theme.apply_scheme(app, Qt.ColorScheme.Dark)
        assert theme.is_dark(app.palette())
        window = open_window(library_dir)
        type_text(qtbot, "policy")
        wait_search(qtbot, window, "policy")
        c = theme.colors(window.palette())
        text = window.palette().color(window.palette().ColorRole.Text)
        assert abs(c.hl_text.lightness() - c.hl_background.lightness()) > 90
        assert (
            abs(text.lightness() - window.palette().color(window.palette().ColorRole.Base).lightness()) > 120
        )
        assert not window.grab().isNull()  # the delegate paints
        qtbot.waitUntil(lambda: c.hl_background.name() in window.abstract_view.toHtml())
    finally:
        app.setPalette(original)


def test_long_lists_load_rows_and_pages_as_you_scroll(
    open_window, library_dir: Path, qtbot, monkeypatch
) -> None:
    from desk.gui.search import controller as search_controller

    monkeypatch.setattr(search_controller, "FIRST_PAGE", 12)
    monkeypatch.setattr(search_controller, "NEXT_PAGE", 12)
    monkeypatch.setattr(search_controller, "FIRST_ROWS", 3)
    window = open_window(library_dir)
    assert window.model.rowCount() == 12 and window.model.total > 24
    # Rows past the first three arrive from the worker once the view paints them.
    qtbot.waitUntil(lambda: all(window.model.summary(i) is not None for i in window.model.ids()[:8]))
    for _ in range(3):
        before = window.model.rowCount()
        window.results_view.scrollToBottom()
        qtbot.waitUntil(lambda before=before: window.model.rowCount() > before)
    assert len(set(window.model.ids())) == window.model.rowCount()
    loaded = window.model.rowCount()
    for _ in range(loaded // 10 + 1):
        press(qtbot, Qt.Key.Key_PageDown)  # from the search box, ten rows at a time
    assert window.results_view.currentIndex().row() >= loaded - 1


def test_a_damaged_library_is_reported_in_plain_words(open_window, tmp_path: Path, qtbot) -> None:
    from PySide6.QtWidgets import QMessageBox

    directory = tmp_path / "broken"
    directory.mkdir()
    (directory / "library.sqlite3").write_bytes(b"this is not a database" * 100)
    window = open_window(directory, wait=False)
    qtbot.waitUntil(lambda: window.open_error is not None, timeout=10_000)
    boxes = [b for b in window.findChildren(QMessageBox) if b.isVisible()]
    assert boxes and "Traceback" not in boxes[0].text()
    assert boxes[0].text() == window.open_error
    assert not window.ready


def test_qt_binding_keeps_none_and_true_alive(qapp) -> None:
    """PySide6 6.12.0 on Python 3.11 loses a reference per call and aborts; the pin keeps it out."""
    import sys

    from PySide6.QtCore import QObject, Signal
    from PySide6.QtGui import QStandardItem, QStandardItemModel

    class Emitter(QObject):
        fired = Signal(object)

    emitter = Emitter()
    emitter.fired.connect(lambda _value: None)
    model = QStandardItemModel()
    model.appendRow(QStandardItem("x"))
    index = model.index(0, 0)
    none_before, true_before = sys.getrefcount(None), sys.getrefcount(True)
    for _ in range(2_000):
        emitter.fired.emit(None)
        index.data(Qt.ItemDataRole.UserRole + 7)
    assert sys.getrefcount(None) >= none_before - 50
    assert sys.getrefcount(True) >= true_before - 50
