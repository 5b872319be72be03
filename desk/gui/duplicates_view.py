"""The Duplicates review: near-duplicate papers side by side, the differing words marked, decided by key.

`DuplicatesReview` is what the main window holds: the status-bar badge with the count of
groups, the count in the menu text, and the `DuplicatesDialog` it opens.  Every library
call goes through the window's executor; the dialog acts only on the pair it shows.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import Any

from PySide6.QtCore import QEvent, QObject, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QFont, QKeySequence, QPalette, QShowEvent
from PySide6.QtWidgets import (
    QAbstractSlider,
    QApplication,
    QComboBox,
    QDialog,
    QHBoxLayout,
    QLabel,
    QMessageBox,
    QPushButton,
    QSizePolicy,
    QStackedWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from desk.core.records import PaperDetail
from desk.gui import theme
from desk.gui.duplicates_data import (
    Comparison,
    GroupView,
    Side,
    Snapshot,
    fetch,
    load_view,
    merge_exact,
    similarity_text,
    unmerge_all,
)
from desk.gui.paper_view import SafeTextBrowser
from desk.gui.shortcuts import REVIEW_ACTIONS
from desk.gui.workers import LibraryExecutor, plain_message

EMPTY = "No near-duplicates to review"
EMPTY_DETAIL = (
    "When a paper you import looks like one already here (an edited version, a truncated copy, "
    "a typo fixed), it is offered here for review."
)


def diff_marks(palette: QPalette) -> dict[str, str]:
    """CSS for the words only one copy has: struck through on the left, underlined on the right.

    Colour is not the only cue: strike-through and underline read without it.
    """
    if theme.is_dark(palette):
        deleted, inserted = ("#5c2328", "#ffd9d4"), ("#1f4a2c", "#d4f8dc")
    else:
        deleted, inserted = ("#ffd6d3", "#82101a"), ("#c8efd2", "#0b4a1b")
    return {
        "del": f"background-color: {deleted[0]}; color: {deleted[1]}; text-decoration: line-through;",
        "ins": f"background-color: {inserted[0]}; color: {inserted[1]}; text-decoration: underline;",
    }


def diff_style(palette: QPalette) -> str:
    """The style sheet of the two abstract views' marks."""
    return "".join(f".{name} {{ {css} }}\n" for name, css in diff_marks(palette).items())


def _plain_label(name: str) -> QLabel:
    label = QLabel()
    label.setObjectName(name)
    label.setTextFormat(Qt.TextFormat.PlainText)  # text from files is never markup
    label.setWordWrap(True)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    label.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Minimum)
    return label


def paper_meta(paper: PaperDetail) -> str:
    parts = [paper.short_name] if paper.short_name else []
    parts.extend(paper.collections)
    parts.append("★ starred" if paper.starred else "not starred")
    parts.append("read" if paper.read else "unread")
    if paper.has_note:
        parts.append("has a note")
    return "  ·  ".join(parts)


def paper_sources(paper: PaperDetail) -> str:
    where = [f"{s.file} #{s.index}" for s in paper.sources]
    return ("Source: " if len(where) == 1 else "Sources: ") + ", ".join(where) if where else ""


class SidePanel(QWidget):
    """One paper of the pair: which key keeps it, its title, collections, sources, and abstract."""

    def __init__(self, side: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.side = side
        self.caption = _plain_label(f"{side}Caption")
        self.title = _plain_label(f"{side}Title")
        font = QFont(self.title.font())
        font.setPointSizeF(font.pointSizeF() * 1.15)
        font.setBold(True)
        self.title.setFont(font)
        self.meta = _plain_label(f"{side}Meta")
        self.sources = _plain_label(f"{side}Sources")
        self.abstract = SafeTextBrowser()
        self.abstract.setObjectName(f"{side}Abstract")
        self.abstract.setAccessibleName(f"Abstract on the {side}")
        self.abstract.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # keys stay with the review
        self.abstract.document().setDocumentMargin(8)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(3)
        for w in (self.caption, self.title, self.meta, self.sources):
            layout.addWidget(w)
        layout.addWidget(self.abstract, 1)
        self._html = ""

    def show_side(self, side: Side, caption: str) -> None:
        self.caption.setText(caption)
        self.title.setText(side.paper.title)
        self.meta.setText(paper_meta(side.paper))
        self.sources.setText(paper_sources(side.paper))
        self._html = side.html
        self.render()

    def render(self) -> None:
        doc = self.abstract.document()
        doc.setDefaultStyleSheet(theme.html_style(self.palette()) + diff_style(self.palette()))
        self.abstract.setHtml(f"<p>{self._html}</p>")

    def restyle(self) -> None:
        muted = theme.colors(self.palette()).muted
        for label in (self.caption, self.sources):
            pal = label.palette()
            pal.setColor(QPalette.ColorRole.WindowText, muted)
            label.setPalette(pal)
        self.render()


class DuplicatesDialog(QDialog):
    """Walks through the near-duplicate groups; each key acts on the pair in view."""

    changed = Signal()  # papers were merged or brought back: lists elsewhere are stale
    countChanged = Signal(int)

    def __init__(
        self,
        executor: LibraryExecutor,
        parent: QWidget | None = None,
        before_change: Callable[[], None] | None = None,
    ) -> None:
        super().__init__(parent)
        self.executor = executor
        self.before_change = before_change
        self.groups: tuple[Any, ...] = ()
        self.view: GroupView | None = None
        self.other = 0  # which other paper of the group is on the right
        self.undo_stack: list[list[int]] = []
        self.loaded = False
        self._busy = False
        self._token = 0
        self._loading: int | None = None  # the token of the load on its way, if any
        self._error: str | None = None  # why the groups could not be found, if they could not
        self._confirm: QMessageBox | None = None
        self._button_keys: dict[str, str] = {}
        self.setObjectName("duplicatesView")
        self.setWindowTitle("Review duplicates")
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self._build()
        self.actions_by_name = self._build_actions()
        self._restyle()
        self._render()

    # -- widgets ------------------------------------------------------------------------------
    def _build(self) -> None:
        self.group_label = QLabel()
        self.group_label.setObjectName("duplicatesGroup")
        bold = QFont(self.group_label.font())
        bold.setBold(True)
        self.group_label.setFont(bold)
        self.similarity_label = QLabel()
        self.similarity_label.setObjectName("duplicatesSimilarity")
        self.exact_label = QLabel("same text after cleanup")
        self.exact_label.setObjectName("duplicatesExact")
        self.exact_label.setToolTip(
            "The abstracts differ only in case, punctuation, markup or how the math is written: "
            "safe to merge."
        )
        self.selector = QComboBox()
        self.selector.setObjectName("duplicatesOther")
        self.selector.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.selector.setToolTip("Which other paper of the group is on the right (↑ / ↓)")
        self.selector.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.selector.setMaximumWidth(420)
        self.selector.activated.connect(self._choose_other)
        self.selector_label = QLabel("Compare the first paper with:")
        header = QHBoxLayout()
        header.addWidget(self.group_label)
        header.addSpacing(12)
        header.addWidget(self.similarity_label)
        header.addWidget(self.exact_label)
        header.addStretch(1)
        header.addWidget(self.selector_label)
        header.addWidget(self.selector)

        self.left = SidePanel("left")
        self.right = SidePanel("right")
        compare = QWidget()
        sides = QHBoxLayout(compare)
        sides.setContentsMargins(0, 0, 0, 0)
        sides.setSpacing(12)
        sides.addWidget(self.left, 1)
        sides.addWidget(self.right, 1)
        self.empty = QLabel(EMPTY)
        self.empty.setObjectName("duplicatesEmpty")
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty.setWordWrap(True)
        self.empty.setTextFormat(Qt.TextFormat.PlainText)
        big = QFont(self.empty.font())
        big.setPointSizeF(big.pointSizeF() * 1.3)
        self.empty.setFont(big)
        self.empty_detail = QLabel(EMPTY_DETAIL)
        self.empty_detail.setObjectName("duplicatesEmptyDetail")
        self.empty_detail.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty_detail.setWordWrap(True)
        empty_page = QWidget()
        empty_layout = QVBoxLayout(empty_page)
        empty_layout.addStretch(1)
        empty_layout.addWidget(self.empty)
        empty_layout.addWidget(self.empty_detail)
        empty_layout.addStretch(2)
        self.pages = QStackedWidget()
        self.pages.addWidget(compare)
        self.pages.addWidget(empty_page)

        self.legend = QLabel()
        self.legend.setObjectName("duplicatesLegend")
        self.legend.setTextFormat(Qt.TextFormat.RichText)  # our own words only
        self.status = QLabel()
        self.status.setObjectName("duplicatesStatus")
        self.status.setTextFormat(Qt.TextFormat.PlainText)
        self.status.setWordWrap(True)

        self.buttons: dict[str, QPushButton] = {}
        row = QHBoxLayout()
        for name, text in (
            ("merge_left", "Merge, keep left"),
            ("merge_right", "Keep right"),
            ("distinct", "Not a duplicate"),
            (None, None),
            ("previous_group", "← Previous"),
            ("next_group", "Skip →"),
            ("undo_merge", "Undo merge"),
            (None, None),
            ("merge_exact", "Merge all exact…"),
            ("close_review", "Close"),
        ):
            if name is None:
                row.addSpacing(16)
                continue
            button = QPushButton(text)
            button.setObjectName(f"{name}Button")
            button.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # Space skips, it never presses a button
            button.setAutoDefault(False)
            self.buttons[name] = button
            row.addWidget(button)
            if name == "undo_merge":
                row.addStretch(1)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 10, 10, 8)
        layout.addLayout(header)
        layout.addWidget(self.pages, 1)
        layout.addWidget(self.legend)
        layout.addLayout(row)
        layout.addWidget(self.status)

    def _build_actions(self) -> dict[str, QAction]:
        handlers: dict[str, Callable[[], None]] = {
            "merge_left": lambda: self.merge(keep_right=False),
            "merge_right": lambda: self.merge(keep_right=True),
            "distinct": self.mark_distinct,
            "next_group": lambda: self.step(1),
            "previous_group": lambda: self.step(-1),
            "next_other": lambda: self.step_other(1),
            "previous_other": lambda: self.step_other(-1),
            "scroll_down": lambda: self._scroll(QAbstractSlider.SliderAction.SliderPageStepAdd),
            "scroll_up": lambda: self._scroll(QAbstractSlider.SliderAction.SliderPageStepSub),
            "undo_merge": self.undo,
            "merge_exact": self.ask_merge_exact,
            "close_review": self.close,
        }
        actions: dict[str, QAction] = {}
        for spec in REVIEW_ACTIONS:
            action = QAction(spec.text, self)
            action.setObjectName(f"action_{spec.name}")
            action.setShortcuts([QKeySequence(k) for k in spec.keys])
            action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
            action.triggered.connect(lambda _checked=False, fn=handlers[spec.name]: fn())
            self.addAction(action)
            actions[spec.name] = action
            button = self.buttons.get(spec.name)
            if button is not None:
                keys = ", ".join(
                    QKeySequence(k).toString(QKeySequence.SequenceFormat.NativeText) for k in spec.keys
                )
                button.setToolTip(f"{spec.text.rstrip('…')} ({keys})")
                self._button_keys[spec.name] = keys.split(", ")[0]
                self._label_button(spec.name, button.text())
                button.clicked.connect(action.trigger)
        return actions

    def _label_button(self, name: str, text: str) -> None:
        """A button's text with its first key after it, as the menus show them."""
        self.buttons[name].setText(f"{text}   {self._button_keys.get(name, '')}".rstrip())

    # -- state for the keys -------------------------------------------------------------------
    def busy(self) -> bool:
        """A change is being written; keys wait until the list is fresh again."""
        return self._busy

    def idle(self) -> bool:
        """Loaded, nothing being written and nothing on its way (for tests and the screenshot script)."""
        return self.loaded and not self._busy and self._loading is None

    def _next_token(self) -> int:
        self._token += 1
        self._loading = self._token
        return self._token

    def _current(self, token: int) -> bool:
        """Whether a result answers the latest request (older ones are dropped)."""
        if token != self._token:
            return False
        self._loading = None
        return True

    def comparison(self) -> Comparison | None:
        if self.view is None or not self.view.comparisons:
            return None
        return self.view.comparisons[min(self.other, len(self.view.comparisons) - 1)]

    def shown_pair(self) -> tuple[int, int] | None:
        """(left id, right id) of the pair in view."""
        comparison = self.comparison()
        return None if comparison is None else (comparison.left.paper.id, comparison.right.paper.id)

    # -- loading ------------------------------------------------------------------------------
    def reload(self, prefer: Collection[int] = ()) -> None:
        """Find the groups again; show the one holding a preferred paper, else stay in place."""
        if self._busy:
            return  # the change in flight finds the groups again after it, and knows what to show
        if not prefer and self.view is not None:
            prefer = self.view.candidate.ids
        position = self.view.index if self.view is not None else 0
        token = self._next_token()
        self.executor.submit(
            lambda lib: fetch(lib, prefer, position),
            lambda snap: self._current(token) and self._apply(snap),
            lambda exc: self._current(token) and self._failed(exc),
        )

    def _apply(self, snapshot: Snapshot, message: str | None = None) -> None:
        previous = self.view
        self.groups = snapshot.groups
        self.view = snapshot.view
        if previous is None or self.view is None or previous.candidate != self.view.candidate:
            self.other = 0
        self.loaded = True
        self._busy = False
        self._error = None
        if message is not None:
            self.status.setText(message)
        self._render()
        self.countChanged.emit(len(self.groups))

    def _failed(self, exc: Exception) -> None:
        self._busy = False
        self.loaded = True
        self._error = plain_message(exc)
        self.status.setText(self._error)
        self._render()

    def _render(self) -> None:
        count = len(self.groups)
        comparison = self.comparison()
        view = self.view
        if view is None or comparison is None:
            self.pages.setCurrentIndex(1)
            if not self.loaded:
                self.empty.setText("Looking for near-duplicates…")
            elif self._error is not None and not self.groups:
                self.empty.setText(f"The near-duplicates could not be found: {self._error}")
            else:
                self.empty.setText(EMPTY)
            self.empty_detail.setVisible(self.loaded and self._error is None)
            for w in (self.group_label, self.similarity_label, self.exact_label, self.legend):
                w.hide()
            self.selector.hide()
            self.selector_label.hide()
        else:
            self.pages.setCurrentIndex(0)
            candidate = view.candidate
            size = len(candidate.ids)
            self.group_label.setText(f"Group {view.index + 1} of {count}")
            self.similarity_label.setText(similarity_text(candidate) + _containment(comparison))
            self.exact_label.setVisible(candidate.exact_after_cleanup)
            for w in (self.group_label, self.similarity_label, self.legend):
                w.show()
            several = size > 2
            self.selector.setVisible(several)
            self.selector_label.setVisible(several)
            if several:
                self.selector.blockSignals(True)
                self.selector.clear()
                for i, c in enumerate(view.comparisons, start=2):
                    self.selector.addItem(f"paper {i} of {size}: {c.right.paper.title[:60]}")
                self.selector.setCurrentIndex(self.other)
                self.selector.blockSignals(False)
            left, right = comparison.left, comparison.right
            self.left.show_side(
                left, f"Paper 1 of {size}  ·  M keeps this one  ·  {_words(left.own_words)} only here"
            )
            self.right.show_side(
                right,
                f"Paper {self.other + 2} of {size}  ·  Shift+M keeps this one  ·  "
                f"{_words(right.own_words)} only here",
            )
        has_pair = comparison is not None
        enabled = {
            "merge_left": has_pair,
            "merge_right": has_pair,
            "distinct": has_pair,
            "next_group": count > 1,
            "previous_group": count > 1,
            "undo_merge": bool(self.undo_stack),
            "merge_exact": any(g.exact_after_cleanup for g in self.groups),
        }
        for name, on in enabled.items():
            self.buttons[name].setEnabled(on)
        exact = sum(g.exact_after_cleanup for g in self.groups)
        self._label_button("merge_exact", f"Merge all exact ({exact})…" if exact else "Merge all exact…")

    # -- moving -------------------------------------------------------------------------------
    def step(self, delta: int) -> None:
        """→/n/Space: the next group; ←/p: the previous one."""
        if self._busy or not self.groups or self.view is None:
            return
        index = self.view.index + delta
        if not 0 <= index < len(self.groups):
            self.status.setText("This is the last group." if delta > 0 else "This is the first group.")
            return
        self.go(index)

    def go(self, index: int) -> None:
        groups = self.groups
        token = self._next_token()

        def done(view: GroupView) -> None:
            if self._current(token):
                self.view = view
                self.other = 0
                self.status.clear()
                self._render()

        def failed(_exc: Exception) -> None:
            if self._current(token):
                self.reload()  # the group changed under us (another program): find them again

        self.executor.submit(lambda lib: load_view(lib, groups, index), done, failed)

    def step_other(self, delta: int) -> None:
        """↑/↓ in a group of three or more: compare the first paper with another one."""
        if self.view is None or len(self.view.comparisons) < 2:
            return
        self._choose_other((self.other + delta) % len(self.view.comparisons))

    def _choose_other(self, index: int) -> None:
        if self.view is not None and 0 <= index < len(self.view.comparisons):
            self.other = index
            self._render()

    def _scroll(self, action: QAbstractSlider.SliderAction) -> None:
        for side in (self.left, self.right):
            side.abstract.verticalScrollBar().triggerAction(action)

    # -- deciding -----------------------------------------------------------------------------
    def _change(
        self,
        change: Callable[[Any], tuple[Collection[int], Any]],
        done: Callable[[Any], str],
        *,
        writes_papers: bool = True,
    ) -> None:
        """Run `change(lib) -> (ids to show next, result)`, then find the groups again.

        `done(result)` runs on the UI thread before the list is shown and says what happened.
        """
        if self.before_change is not None and writes_papers:
            self.before_change()  # a note being typed is saved before its paper can be merged away
        self._busy = True
        position = self.view.index if self.view is not None else 0
        token = self._next_token()

        def op(lib: Any) -> tuple[Any, Snapshot]:
            prefer, result = change(lib)
            return result, fetch(lib, prefer, position)

        def succeeded(value: tuple[Any, Snapshot]) -> None:
            result, snapshot = value
            message = done(result)
            self._busy = False
            if self._current(token):
                self._apply(snapshot, message)
            else:  # a newer load is on its way and will show the list
                self.status.setText(message)
            if writes_papers:
                self.changed.emit()

        def failed(exc: Exception) -> None:
            self._busy = False
            self._current(token)
            self.status.setText(plain_message(exc))
            self.reload()
            if writes_papers:
                self.changed.emit()

        self.executor.submit(op, succeeded, failed)

    def merge(self, *, keep_right: bool) -> None:
        """m: keep the left paper and fold the right one into it; Shift+M the other way round."""
        pair = None if self._busy else self.shown_pair()
        if pair is None:
            return
        keep, other = (pair[1], pair[0]) if keep_right else pair
        comparison = self.comparison()
        assert comparison is not None
        title = (comparison.right if keep_right else comparison.left).paper.title

        def change(lib: Any) -> tuple[Collection[int], None]:
            lib.merge(keep, [other])
            return (keep,), None

        def done(_result: None) -> str:
            self.undo_stack.append([keep])
            return f"Merged into “{_short(title)}”. U undoes it."

        self._change(change, done)

    def mark_distinct(self) -> None:
        """d: the pair in view are different papers; they are never offered together again."""
        pair = None if self._busy else self.shown_pair()
        if pair is None:
            return

        def change(lib: Any) -> tuple[Collection[int], None]:
            lib.mark_distinct(*pair)
            return pair, None

        self._change(
            change,
            lambda _r: "Marked as different papers; they will not be offered again.",
            writes_papers=False,
        )

    def undo(self) -> None:
        """u: bring back the papers of the last merge made in this review."""
        if self._busy:
            return
        if not self.undo_stack:
            self.status.setText("No merge made in this review to undo.")
            return
        kept = self.undo_stack[-1]

        def change(lib: Any) -> tuple[Collection[int], list[int]]:
            restored = unmerge_all(lib, kept)
            return (*kept, *restored), restored

        def done(restored: list[int]) -> str:
            if self.undo_stack and self.undo_stack[-1] is kept:
                self.undo_stack.pop()
            n = len(restored)
            return f"Merge undone: {n} paper{'s are' if n != 1 else ' is'} back."

        self._change(change, done)

    def ask_merge_exact(self) -> None:
        """The batch: every group whose abstracts are equal after cleanup, after a confirmation."""
        if self._busy:
            return
        exact = [g for g in self.groups if g.exact_after_cleanup]
        if not exact:
            self.status.setText("No group has the same text after cleanup.")
            return
        papers = sum(len(g.ids) for g in exact)
        groups = f"{len(exact)} group{'s' if len(exact) != 1 else ''}"
        box = QMessageBox(
            QMessageBox.Icon.Question,
            "Merge exact duplicates",
            f"Merge {groups} whose abstracts are the same text after cleanup ({papers} papers)?\n\n"
            "In each group the first paper is kept; the sources, star, read state and notes of the "
            "others are folded into it. U undoes the whole batch.",
            QMessageBox.StandardButton.NoButton,
            self,
        )
        box.setObjectName("mergeExactConfirm")
        box.setTextFormat(Qt.TextFormat.PlainText)
        yes = box.addButton(f"Merge {groups}", QMessageBox.ButtonRole.AcceptRole)
        box.addButton(QMessageBox.StandardButton.Cancel)
        box.setDefaultButton(yes)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        wanted = {g.ids for g in exact}
        box.finished.connect(lambda _r: box.clickedButton() is yes and self._merge_exact(wanted))
        self._confirm = box
        box.open()

    def _merge_exact(self, wanted: set[tuple[int, ...]]) -> None:
        if self._busy:
            return

        def change(lib: Any) -> tuple[Collection[int], tuple[list[int], str | None]]:
            return (), merge_exact(lib, wanted)

        def done(result: tuple[list[int], str | None]) -> str:
            kept, error = result
            if kept:
                self.undo_stack.append(kept)
            n = len(kept)
            said = f"Merged {n} group{'s' if n != 1 else ''} of exact duplicates. U undoes them."
            return said if error is None else f"{said} Stopped: {error}"

        self._change(change, done)

    # -- showing, palette ---------------------------------------------------------------------
    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self.setFocus(Qt.FocusReason.ActiveWindowFocusReason)

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange:
            self._restyle()

    def _restyle(self) -> None:
        c = theme.colors(self.palette())
        self.exact_label.setStyleSheet(
            f"background: {c.badge_background.name()}; color: {c.badge_text.name()};"
            " border-radius: 4px; padding: 1px 6px;"
        )
        for label in (self.similarity_label, self.empty_detail, self.status):
            label.setStyleSheet(f"color: {c.muted.name()};")
        marks = diff_marks(self.palette())
        deleted, inserted = marks["del"], marks["ins"]
        self.legend.setText(
            f'<span style="{deleted}">struck through</span>: words only the left copy has'
            f' &nbsp;·&nbsp; <span style="{inserted}">underlined</span>: words only the right copy has'
        )
        for side in (self.left, self.right):
            side.restyle()


def _containment(comparison: Comparison) -> str:
    """A hint when one copy holds every word of the other (a truncated or extended copy)."""
    left, right = comparison.left.own_words, comparison.right.own_words
    if left and not right:
        return " · the right copy is part of the left one"
    if right and not left:
        return " · the left copy is part of the right one"
    return ""


def _words(n: int) -> str:
    return f"{n} word{'s' if n != 1 else ''}"


def _short(title: str, limit: int = 70) -> str:
    return title if len(title) <= limit else title[: limit - 1].rstrip() + "…"


class DuplicatesBadge(QToolButton):
    """The count of groups in the status bar ("3 possible duplicates"); a click opens the review."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("duplicatesBadge")
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.setAutoRaise(True)
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.setToolTip("Review the near-duplicates (Ctrl+Shift+D)")
        self.count = 0
        self.hide()
        self._restyle()

    def set_count(self, count: int) -> None:
        self.count = count
        self.setText(f"{count} possible duplicate{'s' if count != 1 else ''}")
        self.setVisible(count > 0)

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange:
            self._restyle()

    def _restyle(self) -> None:
        # The colours come from the window's palette: this button's own is changed by its style sheet.
        parent = self.parentWidget()
        c = theme.colors(parent.palette() if parent is not None else QApplication.palette())
        sheet = (
            f"QToolButton#duplicatesBadge {{ background: {c.badge_background.name()};"
            f" color: {c.badge_text.name()}; border: none; border-radius: 8px; padding: 1px 8px; }}"
        )
        if sheet != self.styleSheet():  # setting it changes the palette, which calls this again
            self.setStyleSheet(sheet)


class DuplicatesReview(QObject):
    """The window's side of the review: the badge, the count in the menu, the dialog."""

    changed = Signal()  # papers were merged or restored: refresh the result list
    countChanged = Signal(int)

    def __init__(
        self,
        executor: LibraryExecutor,
        window: QWidget,
        action: QAction | None = None,
        before_change: Callable[[], None] | None = None,
    ) -> None:
        super().__init__(window)
        self.executor = executor
        self.parent_window = window
        self.action = action
        self.before_change = before_change
        self._menu_text = action.text() if action is not None else ""
        self.count: int | None = None
        self.dialog: DuplicatesDialog | None = None
        self.badge = DuplicatesBadge()
        self.badge.clicked.connect(self.open)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self.refresh)

    def refresh(self, delay_ms: int = 0) -> None:
        """Count the groups again (or reload the open review); after `delay_ms` if given."""
        if delay_ms:
            self._timer.start(delay_ms)
            return
        self._timer.stop()
        if self.dialog is not None and self.dialog.isVisible():
            self.dialog.reload()
            return
        self.executor.submit(lambda lib: 0 if lib is None else len(lib.near_duplicates()), self._counted)

    def open(self) -> None:
        """Ctrl+Shift+D: show the review (where it was left) and look for the groups again."""
        if self.dialog is None:
            self.dialog = DuplicatesDialog(self.executor, self.parent_window, self.before_change)
            self.dialog.countChanged.connect(self._counted)
            self.dialog.changed.connect(self.changed)
            size = self.parent_window.size()
            self.dialog.resize(min(1180, max(760, size.width() - 60)), min(760, max(520, size.height() - 40)))
        self.dialog.show()
        self.dialog.raise_()
        self.dialog.activateWindow()
        self.dialog.reload()

    def close(self) -> None:
        if self.dialog is not None:
            self.dialog.close()

    def _counted(self, count: int) -> None:
        self.count = count
        self.badge.set_count(count)
        if self.action is not None:
            text = self._menu_text
            self.action.setText(text.replace("…", f" ({count})…") if count else text)
        self.countChanged.emit(count)
