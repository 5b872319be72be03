"""The keys that act on papers — star, read, done, tags, copy — over every paper they are for.

Each action takes a `Target` (organize/selection.py: the list's selection, or the paper in
view), runs on the worker and is one undo step however many papers it changes: the core's
`set_starred`, `set_read` and `toggle_tag` take every id at once. On a mixed selection a
toggle makes them all alike, as Gmail and Zotero do: `s` stars every paper when any is
unstarred (and unstars them only when all are starred); `r` likewise with read.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QApplication

from desk.core.records.detail import TagChange, TagCount
from desk.core.records.page import PaperSummary
from desk.gui.organize.selection import Target
from desk.gui.workers import LibraryExecutor

if TYPE_CHECKING:  # desk.core.library.facade loads Whoosh: only the worker thread imports it
    from desk.core.library.facade import Library

ROWS_LIMIT = 2_000  # rows redrawn after a change (the rest reload as they are scrolled to)
WORDS = {
    "starred": ("Starred", "Unstarred"),
    "read": ("Marked read", "Marked unread"),
}


def _papers(n: int) -> str:
    return "1 paper" if n == 1 else f"{n} papers"


def said(change: TagChange) -> str:
    """What a tag toggle did, in words."""
    if change.added:
        return f"Tagged {_papers(len(change.added))} “{change.name}”"
    if change.removed:
        return f"Took “{change.name}” off {_papers(len(change.removed))}"
    return f"“{change.name}”: nothing changed"


class PaperActions(QObject):
    """Star, read, done, tag and copy over a `Target`; `rows(dict)` redraws the changed rows,
    `status(str)` says what happened, `done(ids)` after `e` (the window moves on)."""

    rows = Signal(object)  # dict[int, PaperSummary]
    status = Signal(str)
    doneWith = Signal(object)  # list[int]: papers marked done with `e`

    def __init__(self, executor: LibraryExecutor, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.executor = executor

    def _empty(self, target: Target) -> bool:
        if not target.ids and target.query is None:
            self.status.emit("Select a paper first.")
            return True
        return False

    # -- flags -------------------------------------------------------------------------------
    def toggle(self, target: Target, field: str) -> None:
        """`s` / `r`: star (mark read) all when any is not, else take it off all. One undo step."""
        if self._empty(target):
            return

        def op(lib: Library) -> tuple[bool, int, dict[int, PaperSummary]]:
            ids = target.resolve(lib)
            now = lib.summaries(ids)
            value = not all(getattr(s, field) for s in now.values())
            setter = lib.set_starred if field == "starred" else lib.set_read
            changed = setter(ids, value)
            return value, len(changed), lib.summaries(ids[:ROWS_LIMIT])

        def shown(result: tuple[bool, int, dict[int, PaperSummary]]) -> None:
            value, changed, summaries = result
            self.rows.emit(summaries)
            word = WORDS[field][0 if value else 1]
            self.status.emit(word if len(summaries) == 1 else f"{word}: {_papers(changed)}")

        self.executor.submit(op, shown)

    def mark_done(self, target: Target) -> None:
        """`e`: mark read ("done") every paper, one undo step; `doneWith` then moves on."""
        if self._empty(target):
            return

        def op(lib: Library) -> tuple[list[int], dict[int, PaperSummary]]:
            ids = target.resolve(lib)
            lib.set_read(ids, True)
            return ids, lib.summaries(ids[:ROWS_LIMIT])

        def shown(result: tuple[list[int], dict[int, PaperSummary]]) -> None:
            ids, summaries = result
            self.rows.emit(summaries)
            self.status.emit("Done" if len(ids) == 1 else f"Done: {_papers(len(ids))}")
            self.doneWith.emit(ids)

        self.executor.submit(op, shown)

    # -- tags --------------------------------------------------------------------------------
    def toggle_tag(self, target: Target, name: str) -> None:
        """Give every paper the tag (made when new), or take it off when all have it. One step."""
        if self._empty(target):
            return

        def op(lib: Library) -> tuple[TagChange, dict[int, PaperSummary]]:
            ids = target.resolve(lib)
            change = lib.tags.toggle(ids, name)
            return change, lib.summaries(ids[:ROWS_LIMIT])

        def shown(result: tuple[TagChange, dict[int, PaperSummary]]) -> None:
            change, summaries = result
            self.rows.emit(summaries)
            self.status.emit(said(change))

        self.executor.submit(op, shown)

    def toggle_nth(self, target: Target, n: int) -> None:
        """1–9: toggle the n-th tag (1-based, in the order tags were made)."""
        if self._empty(target):
            return

        def op(lib: Library) -> tuple[TagChange, dict[int, PaperSummary]] | None:
            tags = lib.tags.counts()
            if n > len(tags):
                return None
            ids = target.resolve(lib)
            return lib.tags.toggle(ids, tags[n - 1].name), lib.summaries(ids[:ROWS_LIMIT])

        def shown(result: tuple[TagChange, dict[int, PaperSummary]] | None) -> None:
            if result is None:
                self.status.emit(f"There is no tag {n} yet: press t to make one.")
                return
            self.rows.emit(result[1])
            self.status.emit(said(result[0]))

        self.executor.submit(op, shown)

    def load_tags(self, target: Target, answer: Callable[[list[TagCount], dict[str, int]], object]) -> None:
        """The library's tags and how many of the target's papers carry each (for the picker)."""

        def op(lib: Library) -> tuple[list[TagCount], dict[str, int]]:
            ids = target.resolve(lib)
            carried: dict[str, int] = {}
            for summary in lib.summaries(ids).values():
                for tag in summary.tags:
                    carried[tag] = carried.get(tag, 0) + 1
            return lib.tags.counts(), carried

        self.executor.submit(op, lambda result: answer(*result), lambda _exc: answer([], {}))

    # -- copy --------------------------------------------------------------------------------
    def copy(self, target: Target, *, titles_only: bool = False) -> None:
        """Ctrl+C: the papers as Markdown (title, short name, abstract); Ctrl+Shift+C: the titles."""
        if self._empty(target):
            return

        def op(lib: Library) -> tuple[int, str]:
            from desk.core.export import clipping  # the export's escaping, on the worker

            papers = lib.papers(target.resolve(lib))
            if titles_only:
                return len(papers), "\n".join(p.title for p in papers) + "\n"
            return len(papers), clipping(papers)

        def copied(result: tuple[int, str]) -> None:
            count, text = result
            clipboard = QApplication.clipboard()
            clipboard.setText(text)
            what = "title" if titles_only else "as Markdown"
            if count == 1:
                self.status.emit(
                    f"Copied the paper's {what}" if titles_only else "Copied the paper as Markdown"
                )
            else:
                self.status.emit(
                    f"Copied {count} papers' titles" if titles_only else f"Copied {count} papers {what}"
                )

        self.executor.submit(op, copied)
