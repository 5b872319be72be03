"""The window's widgets and layout, and the state QSettings keeps; behaviour is in main_window."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QButtonGroup,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListView,
    QMainWindow,
    QSplitter,
    QStatusBar,
    QTabWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from desk.gui.reading.note_editor import NoteEditor
from desk.gui.reading.paper_view import PaperView
from desk.gui.reading.related import RelatedPanel
from desk.gui.search.delegate import ResultDelegate
from desk.gui.search.model import ResultsModel
from desk.gui.settings import WindowSettings
from desk.gui.workers import LibraryExecutor

FILTER_STYLE = (
    "QToolButton { padding: 3px 10px; border: 1px solid palette(mid); border-radius: 4px; }"
    "QToolButton:checked { background: palette(highlight); color: palette(highlighted-text);"
    " border-color: palette(highlight); }"
)
FILTER_LABELS = (("all", "All"), ("starred", "Starred"), ("unread", "Unread"), ("notes", "With notes"))


class WindowLayout(QMainWindow):
    """Search box and filters on top, results left, paper over note/related right, status bar."""

    settings: WindowSettings

    def _build_widgets(self, executor: LibraryExecutor) -> None:
        self.search_box = QLineEdit()
        self.search_box.setObjectName("searchBox")
        self.search_box.setAccessibleName("Search")
        self.search_box.setClearButtonEnabled(True)
        self.search_box.setPlaceholderText(
            'Search: words, "phrases", OR, NOT, diffus*, title:, note:, is:starred'
        )
        self.query_message = QLabel()
        self.query_message.setObjectName("queryMessage")
        self.query_message.setTextFormat(Qt.TextFormat.PlainText)
        self.query_message.setWordWrap(True)
        self.query_message.setMaximumWidth(520)
        self.query_message.hide()
        self.filter_group = QButtonGroup(self)
        self.filter_buttons: dict[str, QToolButton] = {}
        top = QHBoxLayout()
        top.addWidget(self.search_box, 1)
        top.addWidget(self.query_message)
        for i, (name, label) in enumerate(FILTER_LABELS, start=1):
            button = QToolButton()
            button.setObjectName(f"filter_{name}")
            button.setText(label)
            button.setCheckable(True)
            button.setToolTip(f"{label} (Ctrl+{i})")
            button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
            button.setStyleSheet(FILTER_STYLE)
            self.filter_group.addButton(button)
            self.filter_buttons[name] = button
            top.addWidget(button)
        self.filter_buttons["all"].setChecked(True)

        self.model = ResultsModel(self)
        self.results_view = QListView()
        self.results_view.setObjectName("resultsView")
        self.results_view.setAccessibleName("Results")
        self.results_view.setModel(self.model)
        self.results_view.setItemDelegate(ResultDelegate(self.results_view))
        self.results_view.setUniformItemSizes(True)
        self.results_view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.results_view.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.results_view.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.results_view.setMinimumWidth(280)

        self.paper_view = PaperView()
        self.abstract_view = self.paper_view.abstract
        self.note = NoteEditor()
        self.note_editor = self.note.editor
        self.related = RelatedPanel(executor)
        self.tabs = QTabWidget()
        self.tabs.setObjectName("paperTabs")
        self.tabs.addTab(self.note, "&Note")
        self.tabs.addTab(self.related, "&Related")

        self.right_splitter = QSplitter(Qt.Orientation.Vertical)
        self.right_splitter.setObjectName("rightSplitter")
        self.right_splitter.addWidget(self.paper_view)
        self.right_splitter.addWidget(self.tabs)
        self.right_splitter.setStretchFactor(0, 3)
        self.right_splitter.setStretchFactor(1, 2)
        self.main_splitter = QSplitter(Qt.Orientation.Horizontal)
        self.main_splitter.setObjectName("mainSplitter")
        self.main_splitter.addWidget(self.results_view)
        self.main_splitter.addWidget(self.right_splitter)
        self.main_splitter.setStretchFactor(0, 2)
        self.main_splitter.setStretchFactor(1, 3)

        central = QWidget()
        layout = QVBoxLayout(central)
        layout.setContentsMargins(6, 6, 6, 0)
        layout.addLayout(top)
        layout.addWidget(self.main_splitter, 1)
        self.setCentralWidget(central)

        status = QStatusBar()
        status.setObjectName("statusBar")
        self.setStatusBar(status)
        self.suggestion_label = QLabel()
        self.suggestion_label.setObjectName("suggestionLabel")
        self.suggestion_label.setTextFormat(Qt.TextFormat.RichText)
        self.suggestion_label.setTextInteractionFlags(Qt.TextInteractionFlag.LinksAccessibleByMouse)
        self.hits_label = QLabel("Opening the library…")
        self.hits_label.setObjectName("hitsLabel")
        status.addPermanentWidget(self.suggestion_label)  # not hidden by passing messages
        status.addPermanentWidget(self.hits_label)

    # -- settings ----------------------------------------------------------------------------
    def _restore(self) -> None:
        geometry = self.settings.geometry
        if geometry is None or not self.restoreGeometry(geometry):
            self.resize(1200, 760)
        for name, splitter in (("main", self.main_splitter), ("right", self.right_splitter)):
            state = self.settings.splitter(name)
            if state is None or not splitter.restoreState(state):
                splitter.setSizes([440, 760] if name == "main" else [460, 300])
        self.tabs.setCurrentIndex(min(max(self.settings.note_tab, 0), 1))
        self._check_filter(self.settings.filter)
        self.search_box.setText(self.settings.last_query)

    def _save_settings(self) -> None:
        self.settings.geometry = self.saveGeometry()
        self.settings.set_splitter("main", self.main_splitter.saveState())
        self.settings.set_splitter("right", self.right_splitter.saveState())
        self.settings.last_query = self.search_box.text()
        self.settings.filter = self.checked_filter()
        self.settings.note_tab = self.tabs.currentIndex()
        self.settings.sync()

    def _check_filter(self, name: str) -> None:
        button = self.filter_buttons.get(name)
        if button is not None:
            button.setChecked(True)

    def checked_filter(self) -> str:
        return next((name for name, b in self.filter_buttons.items() if b.isChecked()), "all")
