"""The keys of the duplicates review that change the library: merge, not a duplicate, undo (of either),
merge all exact, merge all truncations (after a preview of every merge).

Each is a change of the library run through the review's `run_change`, which then finds the
groups again and shows the group the change leaves in view.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from PySide6.QtWidgets import QWidget

from desk.gui.duplicates.data import Comparison, merge_exact, merge_kind, merge_plan_lines, unmerge_all

if TYPE_CHECKING:  # desk.core.library.facade loads Whoosh: only the worker thread imports it
    from desk.core.library.facade import Library

Change = Callable[["Library"], tuple[Collection[int], Any]]
MERGED, DISTINCT = "merged", "distinct"
Decision = tuple[str, list[int]]
"""What `u` can take back: ("merged", the kept ids) or ("distinct", the pair)."""
PREVIEW_LINES = 12


class ReviewHost(Protocol):
    """What the deciding keys need of the review that shows the pair (the dialog is one)."""

    undo_stack: list[Decision]

    @property
    def groups(self) -> Sequence[Any]: ...

    def busy(self) -> bool: ...
    def comparison(self) -> Comparison | None: ...
    def shown_pair(self) -> tuple[int, int] | None: ...
    def say(self, message: str) -> None: ...
    def run_query(self, query: Callable[[Library], Any], done: Callable[[Any], None]) -> None: ...
    def run_change(
        self, change: Change, done: Callable[[Any], str], *, writes_papers: bool = True
    ) -> None: ...


class ReviewDecisions:
    """What the deciding keys do to the pair (or the groups) `host` shows; `parent` owns the confirmation."""

    def __init__(self, host: ReviewHost, parent: QWidget) -> None:
        self.host = host
        self.parent = parent

    def merge(self, *, keep_right: bool) -> None:
        """m: keep the left paper and fold the right one into it; Shift+M the other way round."""
        pair = None if self.host.busy() else self.host.shown_pair()
        if pair is None:
            return
        keep, other = (pair[1], pair[0]) if keep_right else pair
        comparison = self.host.comparison()
        assert comparison is not None
        title = (comparison.right if keep_right else comparison.left).paper.title

        def change(lib: Library) -> tuple[Collection[int], None]:
            lib.duplicates.merge(keep, [other])
            return (keep,), None

        def done(_result: None) -> str:
            self.host.undo_stack.append((MERGED, [keep]))
            return f"Merged into “{_short(title)}”. U undoes it."

        self.host.run_change(change, done)

    def mark_distinct(self) -> None:
        """d: the pair in view are different papers; they are never offered together again."""
        pair = None if self.host.busy() else self.host.shown_pair()
        if pair is None:
            return

        def change(lib: Library) -> tuple[Collection[int], None]:
            lib.duplicates.mark_distinct(*pair)
            return pair, None

        def done(_result: None) -> str:
            self.host.undo_stack.append((DISTINCT, list(pair)))
            return "Marked as different papers; they will not be offered again. U undoes it."

        self.host.run_change(change, done, writes_papers=False)

    def undo(self) -> None:
        """u: take back the last merge or "not a duplicate" made in this review."""
        if self.host.busy():
            return
        if not self.host.undo_stack:
            self.host.say("Nothing decided in this review to undo.")
            return
        decision = self.host.undo_stack[-1]
        what, ids = decision

        def pop() -> None:
            if self.host.undo_stack and self.host.undo_stack[-1] is decision:
                self.host.undo_stack.pop()

        if what == DISTINCT:

            def unmark(lib: Library) -> tuple[Collection[int], None]:
                lib.duplicates.unmark_distinct(ids[0], ids[1])
                return ids, None

            def unmarked(_result: None) -> str:
                pop()
                return "“Not a duplicate” undone: the pair is offered again."

            self.host.run_change(unmark, unmarked, writes_papers=False)
            return

        def change(lib: Library) -> tuple[Collection[int], list[int]]:
            restored = unmerge_all(lib, ids)
            return (*ids, *restored), restored

        def done(restored: list[int]) -> str:
            pop()
            n = len(restored)
            return f"Merge undone: {n} paper{'s are' if n != 1 else ' is'} back."

        self.host.run_change(change, done)

    def ask_merge_exact(self) -> None:
        """The batch: every group whose abstracts are equal after cleanup, after a confirmation."""
        if self.host.busy():
            return
        exact = [g for g in self.host.groups if g.exact_after_cleanup]
        if not exact:
            self.host.say("No group has the same text after cleanup.")
            return
        papers = sum(len(g.ids) for g in exact)
        groups = f"{len(exact)} group{'s' if len(exact) != 1 else ''}"
        wanted = {g.ids for g in exact}
        self.ask(
            f"Merge {groups} whose abstracts are the same text after cleanup ({papers} papers)? "
            "In each group the first paper is kept; the sources, star, read state and notes of the "
            "others are folded into it. U undoes the whole batch. (Enter merges, Esc does not.)",
            f"Merge {groups}",
            lambda: self._merge_exact(wanted),
        )

    def ask(self, question: str, yes: str, on_yes: Callable[[], object]) -> None:
        """A question inside the review (its AskBar), never a modal box over it."""
        bar = getattr(self.parent, "ask", None)
        if bar is not None:
            bar.confirm(question, yes, on_yes)

    def _merge_exact(self, wanted: set[tuple[int, ...]]) -> None:
        if self.host.busy():
            return

        def change(lib: Library) -> tuple[Collection[int], tuple[list[int], str | None]]:
            return (), merge_exact(lib, wanted)

        def done(result: tuple[list[int], str | None]) -> str:
            kept, error = result
            if kept:
                self.host.undo_stack.append((MERGED, kept))
            n = len(kept)
            said = f"Merged {n} group{'s' if n != 1 else ''} of exact duplicates. U undoes them."
            return said if error is None else f"{said} Stopped: {error}"

        self.host.run_change(change, done)

    def ask_merge_truncations(self) -> None:
        """Every truncation group (one text cut from another), merged into its longest text
        after a preview of each merge."""
        if self.host.busy():
            return
        self.host.run_query(lambda lib: merge_plan_lines(lib, "truncation"), self._confirm_truncations)

    def _confirm_truncations(self, lines: list[str]) -> None:
        if not lines:
            self.host.say("No group is a copy cut from a longer text.")
            return
        groups = f"{len(lines)} group{'s' if len(lines) != 1 else ''}"
        shown = "\n".join(lines[:PREVIEW_LINES])
        more = f"\n… and {len(lines) - PREVIEW_LINES} more" if len(lines) > PREVIEW_LINES else ""
        self.ask(
            f"Merge {groups} where one abstract is a part of a longer one? Each group keeps its "
            f"longest text; the others are folded into it:\n\n{shown}{more}\n\n"
            "U (or Edit → Undo) takes the whole batch back. (Enter merges, Esc does not.)",
            f"Merge {groups}",
            self._merge_truncations,
        )

    def _merge_truncations(self) -> None:
        if self.host.busy():
            return

        def change(lib: Library) -> tuple[Collection[int], list[int]]:
            return (), merge_kind(lib, "truncation")

        def done(kept: list[int]) -> str:
            if kept:
                self.host.undo_stack.append((MERGED, kept))
            n = len(kept)
            return f"Merged {n} group{'s' if n != 1 else ''} of truncated copies. U undoes them."

        self.host.run_change(change, done)


def _short(title: str, limit: int = 70) -> str:
    return title if len(title) <= limit else title[: limit - 1].rstrip() + "…"
