"""The shortcut sheet (? or F1): every action of the window and of the duplicates review with its keys."""

from __future__ import annotations

from collections.abc import Mapping

from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from desk.gui.keymap import ACTIONS, OTHER_KEYS, REVIEW, REVIEW_ACTIONS, key_text, native_keys


class ShortcutSheet(QDialog):
    """Every action with its shortcut, grouped by menu."""

    def __init__(self, actions: Mapping[str, QAction], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("shortcutSheet")
        self.setWindowTitle("Keyboard shortcuts")
        tree = QTreeWidget()
        tree.setObjectName("shortcutTable")
        tree.setColumnCount(2)
        tree.setHeaderLabels(["Action", "Keys"])
        tree.setRootIsDecorated(False)
        tree.setAlternatingRowColors(True)
        groups: dict[str, QTreeWidgetItem] = {}
        for spec in ACTIONS:
            group = groups.get(spec.menu)
            if group is None:
                group = groups[spec.menu] = QTreeWidgetItem(tree, [spec.menu.replace("&", ""), ""])
                font = group.font(0)
                font.setBold(True)
                group.setFont(0, font)
                group.setFirstColumnSpanned(True)
            QTreeWidgetItem(group, [spec.text.replace("&", "").rstrip("…"), key_text(actions[spec.name])])
        other = QTreeWidgetItem(tree, ["Other keys", ""])
        font = other.font(0)
        font.setBold(True)
        other.setFont(0, font)
        for what, keys in OTHER_KEYS:
            QTreeWidgetItem(other, [what, keys])
        review = QTreeWidgetItem(tree, [REVIEW, ""])
        review.setFont(0, font)
        for spec in REVIEW_ACTIONS:
            QTreeWidgetItem(review, [spec.text.rstrip("…"), native_keys(spec.keys)])
        tree.expandAll()
        tree.header().setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        tree.header().setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        tree.header().setStretchLastSection(False)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(tree)
        layout.addWidget(buttons)
        self.tree = tree
        self._fit()

    def _fit(self) -> None:
        """As large as its rows and columns (no clipped keys, no scrolling) where the screen allows."""
        tree = self.tree
        rows = sum(
            1 + (tree.topLevelItem(g) or QTreeWidgetItem()).childCount()
            for g in range(tree.topLevelItemCount())
        )
        row_height = max(tree.sizeHintForRow(0), tree.fontMetrics().height() + 6)
        width = sum(tree.sizeHintForColumn(c) for c in (0, 1)) + 64
        height = rows * row_height + tree.header().sizeHint().height() + 90
        screen = self.screen().availableGeometry() if self.screen() is not None else None
        if screen is not None:
            width, height = min(width, screen.width() - 40), min(height, screen.height() - 60)
        self.resize(max(width, 480), max(height, 300))

    def entries(self) -> list[tuple[str, str]]:
        """(action, keys) rows, for tests and accessibility."""
        rows: list[tuple[str, str]] = []
        groups = (self.tree.topLevelItem(g) for g in range(self.tree.topLevelItemCount()))
        for group in groups:
            children = (group.child(i) for i in range(group.childCount())) if group is not None else ()
            rows.extend((child.text(0), child.text(1)) for child in children if child is not None)
        return rows
