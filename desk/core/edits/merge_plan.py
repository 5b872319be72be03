"""Merging every group of one kind at once: which groups, which paper each keeps (a preview first).

Only kinds a person need not read to trust: texts equal after cleanup, and copies cut from a
longer text with all of the shorter found in the longer (a cut copy with edits of its own is
left for the review). Revisions differ in what they say and are
reviewed one by one. Each group keeps its longest text (the full version; the oldest paper on a
tie), the others are folded into it as ``merging.merge`` does, each merge undoable on its own.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from desk.core.dedup import EXACT, TRUNCATION, Candidate, describe_group
from desk.core.runtime.errors import DeskError

MERGEABLE_KINDS = (EXACT, TRUNCATION)
WHOLE = 0.98
"""A truncation group is merged all at once only when all of each shorter text is in the longer
one ("all of it"): a cut copy with words of its own (a v2 cut short) is reviewed by hand."""


@dataclass(frozen=True)
class PlannedMerge:
    """One group's merge: the paper kept, the papers folded into it, and why."""

    keep: int
    others: tuple[int, ...]
    kind: str
    description: str
    """What the group is, in words ("#40 is 45 % of #12, all of it in #12")."""


def mergeable(group: Candidate, kind: str) -> bool:
    """Whether "merge all of ``kind``" merges this group (what its button counts, too)."""
    return group.kind == kind and (kind != TRUNCATION or group.containment >= WHOLE)


def plan(groups: Sequence[Candidate], kind: str, lengths: Mapping[int, int]) -> list[PlannedMerge]:
    """The merges "merge all of this kind" would make, best groups first.

    ``lengths``: each paper's abstract length; the longest of a group is kept.
    """
    if kind not in MERGEABLE_KINDS:
        allowed = " or ".join(MERGEABLE_KINDS)
        raise DeskError(f"only {allowed} groups can be merged all at once; review {kind} groups one by one")
    out = []
    for group in groups:
        if not mergeable(group, kind):
            continue
        keep = max(group.ids, key=lambda i: (lengths.get(i, 0), -i))
        others = tuple(i for i in group.ids if i != keep)
        out.append(PlannedMerge(keep, others, kind, describe_group(group)))
    return out
