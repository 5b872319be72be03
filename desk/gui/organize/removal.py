"""Removing and getting back: the trash page, restore, empty, and removing a whole imported list.

`Removal` gets the widgets it works: the trash view, the page stack it is shown in (in place of
the list), the search bar (off while the trash is shown), the sidebar's question bar; and
callbacks: `changed(said)` after a change (the counts and the list are read again),
`filter_in_view()` / `set_filter(name)` (a removed list that was in view gives way to all papers).
Every question is asked inline (`AskBar`), never in a modal dialog.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import QStackedWidget, QWidget

from desk.core.records.detail import ListRemoval, TrashedPaper
from desk.gui.organize.ask_bar import AskBar
from desk.gui.organize.sidebar import collection_filter
from desk.gui.organize.trash_view import TrashView
from desk.gui.workers import LibraryExecutor

if TYPE_CHECKING:  # desk.core.library.facade loads Whoosh: only the worker thread imports it
    from desk.core.library.facade import Library


def _papers(n: int) -> str:
    return f"{n} paper{'s' if n != 1 else ''}"


def removal_question(name: str, plan: ListRemoval) -> str:
    """What removing the list does, said before it is done."""
    said = f"Remove the list “{name}”? {_papers(len(plan.trashed))} go to the trash"
    if plan.with_notes:
        said += f" ({_papers(len(plan.with_notes))} with a note, kept there)"
    if plan.kept:
        said += f"; {_papers(len(plan.kept))} stay, as other lists hold them too"
    return said + ". The file can be imported again; Ctrl+Z undoes this."


class Removal(QObject):
    """The trash page and the list removal; `opened`/`left` as the trash page comes and goes."""

    opened = Signal()
    left = Signal()

    def __init__(
        self,
        executor: LibraryExecutor,
        pages: QStackedWidget,
        search_bar: QWidget,
        ask: AskBar,
        changed: Callable[[str], None],
        filter_in_view: Callable[[], str],
        set_filter: Callable[[str], None],
    ) -> None:
        super().__init__(pages)
        self.executor = executor
        self.pages = pages
        self.search_bar = search_bar
        self.ask = ask
        self.changed = changed
        self.filter_in_view = filter_in_view
        self.set_filter = set_filter
        self.view = TrashView()
        pages.addWidget(self.view)
        self._back: QWidget | None = None  # the page the trash was opened over
        self.view.restoreRequested.connect(self.restore)
        self.view.emptyRequested.connect(self.empty)
        self.view.closed.connect(self.close)

    # -- the trash page -----------------------------------------------------------------------
    @property
    def showing(self) -> bool:
        return self.pages.currentWidget() is self.view

    def open(self) -> None:
        """Show the trash in place of the list (the sidebar keeps the keys)."""
        if not self.showing:
            self._back = self.pages.currentWidget()
            self.pages.setCurrentWidget(self.view)
            self.search_bar.setEnabled(False)
            self.opened.emit()
        self.reload()

    def reload(self) -> None:
        self.executor.submit(lambda lib: lib.trash.papers(), self._loaded)

    def _loaded(self, trashed: list[TrashedPaper]) -> None:
        self.view.show_items(trashed)

    def focus_list(self) -> None:
        self.view.list.setFocus(Qt.FocusReason.ShortcutFocusReason)

    def close(self) -> None:
        """Back to the list the trash was opened over."""
        if not self.showing:
            return
        back = self._back or self.pages.widget(0)
        if back is not None:
            self.pages.setCurrentWidget(back)
        self.search_bar.setEnabled(True)
        self.left.emit()

    def restore(self, ids: list[int]) -> None:
        """Put the papers back (one undo step)."""

        def done(restored: list[int]) -> None:
            self.changed(f"Restored {_papers(len(restored))} from the trash (Ctrl+Z takes them back)")
            self.reload()

        self.executor.submit(lambda lib: lib.trash.restore(ids), done)

    def empty(self) -> None:
        """Shift+Delete in the trash: delete its papers for good, after asking."""
        n = self.view.list.count()
        if not n:
            return

        def go() -> None:
            def done(gone: int) -> None:
                self.changed(f"Deleted {_papers(gone)} for good")
                self.reload()

            self.executor.submit(lambda lib: lib.trash.empty(), done)

        self.view.ask.confirm(
            f"Delete the {_papers(n)} in the trash for good? This cannot be undone.", "Empty the trash", go
        )

    # -- removing a list ----------------------------------------------------------------------
    def remove_list(self, name: str) -> None:
        """Delete on a collection: its papers to the trash (asked first, with what it does)."""

        def ask(plan: ListRemoval) -> None:
            self.ask.confirm(removal_question(name, plan), "Remove", lambda: self._remove(name))

        self.executor.submit(lambda lib: lib.trash.list_removal(name), ask)

    def _remove(self, name: str) -> None:
        if self.filter_in_view() == collection_filter(name):
            self.set_filter("all")

        def done(plan: ListRemoval) -> None:
            self.changed(
                f"Removed the list “{name}”: {_papers(len(plan.trashed))} to the trash (Ctrl+Z undoes)"
            )

        def op(lib: Library) -> ListRemoval:
            return lib.trash.remove_list(name)

        self.executor.submit(op, done)
