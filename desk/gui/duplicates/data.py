"""What the Duplicates review shows, computed on the worker: groups, the papers, word-level diffs.

Nothing here touches a widget; every function taking `lib` runs on the library thread.
Text from files is only ever put into HTML escaped.
"""

from __future__ import annotations

import html
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from desk.core.records.detail import PaperDetail
from desk.core.runtime.errors import DeskError, PaperNotFound

if TYPE_CHECKING:  # desk.core.dedup loads numpy: only on the worker thread
    from desk.core.dedup import Candidate
    from desk.core.library.facade import Library


@dataclass(frozen=True)
class Side:
    """One paper of a comparison: its abstract as HTML with the words only this copy has marked."""

    paper: PaperDetail
    html: str
    own_words: int


@dataclass(frozen=True)
class Comparison:
    """The first paper of a group (left) against one other paper of it (right)."""

    left: Side
    right: Side
    relation: str = ""
    """What the two share, in words ("Truncation: the right paper is 45 % of the left paper, …")."""


@dataclass(frozen=True)
class GroupView:
    """One group, ready to show: its place in the list and the first paper against each other one."""

    index: int
    candidate: Candidate
    comparisons: tuple[Comparison, ...]


@dataclass(frozen=True)
class Snapshot:
    """The groups still to review and the one to show (None when there is none)."""

    groups: tuple[Candidate, ...]
    view: GroupView | None
    mergeable: tuple[tuple[str, int], ...] = ()  # (kind, groups "merge all of kind" merges)

    def can_merge(self, kind: str) -> int:
        """How many groups "merge all" of ``kind`` would merge (the count its button shows)."""
        return dict(self.mergeable).get(kind, 0)


def diff_html(left: str, right: str) -> tuple[str, str, int, int]:
    """Both abstracts as escaped HTML, differing words marked; and how many words only each has.

    Words only in the left copy are `<span class="del">`, words only in the right copy
    `<span class="ins">`; the rest is shown as it is on both sides.
    """
    from desk.core.dedup import word_diff

    lhs: list[str] = []
    rhs: list[str] = []
    only_left = only_right = 0
    for op, text in word_diff(left, right):
        escaped = html.escape(text)
        if op == "equal":
            lhs.append(escaped)
            rhs.append(escaped)
        elif op == "delete":
            lhs.append(f'<span class="del">{escaped}</span>')
            only_left += len(text.split())
        else:
            rhs.append(f'<span class="ins">{escaped}</span>')
            only_right += len(text.split())
    return " ".join(lhs), " ".join(rhs), only_left, only_right


KIND_NAMES = {"exact": "Same text", "truncation": "Truncation", "revision": "Revision"}


def relation_text(left: str, right: str) -> str:
    """How the right abstract compares with the left one, as `desk dupes` says it:
    "Truncation: the right paper is 45 % of the left paper, all of it in the left paper"."""
    from desk.core.dedup import describe, match

    found = match(left, right)
    said = describe(found, "the left paper", "the right paper")
    return f"{KIND_NAMES.get(found.kind, found.kind)}: {said}"


def pick(groups: Sequence[Candidate], prefer: Collection[int], position: int) -> int | None:
    """Which group to show: the first holding a preferred paper, else the one now at `position`."""
    if not groups:
        return None
    wanted = set(prefer)
    if wanted:
        for i, group in enumerate(groups):
            if wanted.intersection(group.ids):
                return i
    return min(max(position, 0), len(groups) - 1)


def load_view(lib: Library, groups: Sequence[Candidate], index: int) -> GroupView:
    """The papers of `groups[index]` and the diff of the first against each other one."""
    candidate = groups[index]
    papers = lib.papers(list(candidate.ids))
    first = papers[0]
    comparisons = []
    for other in papers[1:]:
        left, right, only_left, only_right = diff_html(first.abstract, other.abstract)
        relation = relation_text(first.abstract, other.abstract)
        comparisons.append(Comparison(Side(first, left, only_left), Side(other, right, only_right), relation))
    return GroupView(index, candidate, tuple(comparisons))


def fetch(lib: Library, prefer: Collection[int] = (), position: int = 0) -> Snapshot:
    """The groups to review now and the one to show (see `pick`)."""
    from desk.core.edits.merge_plan import MERGEABLE_KINDS, mergeable

    groups = list(lib.duplicates.groups())
    while groups:
        index = pick(groups, prefer, position)
        assert index is not None
        try:
            view = load_view(lib, groups, index)
        except PaperNotFound:  # changed by another program since the groups were found
            del groups[index]
            continue
        counts = tuple((k, sum(mergeable(g, k) for g in groups)) for k in MERGEABLE_KINDS)
        return Snapshot(tuple(groups), view, counts)
    return Snapshot((), None)


def merge_exact(lib: Library, wanted: Collection[tuple[int, ...]]) -> tuple[list[int], str | None]:
    """Merge every group still equal after cleanup whose ids are in `wanted` (first paper kept).

    Returns the kept ids, in order (what undo needs), and the error that stopped it, if any.
    """
    kept: list[int] = []
    for group in lib.duplicates.groups():
        if not group.exact_after_cleanup or group.ids not in wanted:
            continue
        try:
            lib.duplicates.merge(group.ids[0], list(group.ids[1:]))
        except DeskError as exc:
            return kept, str(exc)
        kept.append(group.ids[0])
    return kept, None


def merge_plan_lines(lib: Library, kind: str) -> list[str]:
    """What merging every group of `kind` would do, one line a group (the preview), the papers
    named by their titles: "keep “Whole title” ← “Cut title” (45 % of it)"."""
    steps = lib.duplicates.plan(kind)
    titles = lib.summaries([i for step in steps for i in (step.keep, *step.others)])

    def named(pid: int) -> str:
        found = titles.get(pid)
        return f"“{_short(found.title, PREVIEW_TITLE)}”" if found is not None else f"paper {pid}"

    return [f"keep {named(step.keep)} ← {', '.join(named(i) for i in step.others)}" for step in steps]


PREVIEW_TITLE = 60  # characters of a title in the merge preview


def _short(title: str, limit: int) -> str:
    return title if len(title) <= limit else title[: limit - 1].rstrip() + "…"


def merge_kind(lib: Library, kind: str) -> list[int]:
    """Merge every group of `kind` (one undo step in the history); the kept ids, in order."""
    return [step.keep for step in lib.duplicates.merge_all(kind)]


def unmerge_all(lib: Library, kept: Sequence[int]) -> list[int]:
    """Undo the merges that kept these papers, latest first; the ids brought back."""
    restored: list[int] = []
    for pid in reversed(kept):
        restored.extend(lib.duplicates.unmerge(pid))
    return restored
