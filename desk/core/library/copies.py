"""One copy per near-duplicate group in the lists a person reads (search, related, recommend,
triage), until the group is merged or marked "not a duplicate".

A group's shown copy is its longest abstract (a truncation's whole text; the lowest id between
equals); the others are hidden from the lists and counted beside it ("2 copies"). The review
(Ctrl+Shift+D, ``desk dupes``) still shows every copy, and ``desk show`` or a search by id reads
any of them.

It lives beside the Library, not in desk/core/dedup/: a command's search reads the saved links
here without loading the near-duplicate detector, unless some link is saved.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from desk.core.dedup.cache_format import CACHE_KIND, CACHE_VERSION, LINK_PART
from desk.core.store.limits import IDS_PER_STATEMENT

if TYPE_CHECKING:
    from desk.core.dedup.groups import Candidate


@dataclass(frozen=True)
class Copies:
    """The unresolved near-duplicate groups as the lists show them."""

    shown: Mapping[int, int] = field(default_factory=dict)
    """Each paper of a group -> the copy shown for its group."""
    count: Mapping[int, int] = field(default_factory=dict)
    """The copy shown -> how many copies its group holds (2 or more)."""

    @property
    def hidden(self) -> frozenset[int]:
        """The copies not shown: every paper of a group but its shown copy."""
        return frozenset(i for i, shown in self.shown.items() if i != shown)

    @property
    def hidden_for(self) -> dict[int, int]:
        """Each copy not shown -> the copy shown for its group (a search hides a copy only where
        that one is found too: a copy that alone matches a query is listed)."""
        return {i: shown for i, shown in self.shown.items() if i != shown}

    def copies(self, paper_id: int) -> int:
        """How many copies the paper stands for in a list (1 outside any group)."""
        return self.count.get(paper_id, 1)

    def twins(self, paper_id: int) -> frozenset[int]:
        """The paper's own group, the paper included (itself alone outside any group)."""
        shown = self.shown.get(paper_id)
        if shown is None:
            return frozenset((paper_id,))
        return frozenset(i for i, s in self.shown.items() if s == shown)


NO_COPIES = Copies()


def copies_of(groups: Iterable[Candidate], lengths: Mapping[int, int]) -> Copies:
    """The shown copy of each group (the longest abstract, the lowest id among equals).

    A paper in two groups (the groups are disjoint; this is a guard) stays with the first.
    """
    shown: dict[int, int] = {}
    count: dict[int, int] = {}
    for group in groups:
        ids = [i for i in group.ids if i not in shown]
        if len(ids) < 2:
            continue
        best = min(ids, key=lambda i: (-lengths.get(i, 0), i))
        for i in ids:
            shown[i] = best
        count[best] = len(ids)
    return Copies(shown, count)


def collapse_ranked(
    ranked: Sequence[tuple[int, float]], copies: Copies, exclude: Collection[int] = ()
) -> list[tuple[int, float]]:
    """(id, score) best first, each group once, as its shown copy at its best member's place;
    ``exclude`` (a paper's own copies, for "more like this") never listed."""
    out: list[tuple[int, float]] = []
    seen: set[int] = set()
    for pid, score in ranked:
        shown = copies.shown.get(pid, pid)
        if pid in exclude or shown in exclude or shown in seen:
            continue
        seen.add(shown)
        out.append((shown, score))
    return out


def abstract_lengths(conn: sqlite3.Connection, ids: Sequence[int]) -> dict[int, int]:
    """Each paper's abstract length (characters), read with plain SQL."""
    out: dict[int, int] = {}
    wanted = list(ids)
    for lo in range(0, len(wanted), IDS_PER_STATEMENT):
        chunk = wanted[lo : lo + IDS_PER_STATEMENT]
        marks = ", ".join("?" * len(chunk))
        sql = f"SELECT id, length(abstract) FROM paper WHERE id IN ({marks})"
        out.update((int(i), int(n or 0)) for i, n in conn.execute(sql, chunk))
    return out


def saved_copies(conn: sqlite3.Connection, cache_file: Path) -> Copies | None:
    """The copies from a library's saved near-duplicate links alone (a command's quick path), or
    None when only the whole near-duplicate index can say (papers it never hashed)."""
    import numpy as np

    from desk.core.store.derived_files import read_part
    from desk.core.store.id_digest import ALL_IDS_SQL, ID_DIGEST_SQL, id_digest_of

    if not cache_file.exists():
        return None if conn.execute("SELECT 1 FROM paper LIMIT 1").fetchone() is not None else NO_COPIES
    arrays = read_part(cache_file, CACHE_KIND, CACHE_VERSION, LINK_PART)
    if arrays is None or "link_ids" not in arrays or "ids" not in arrays or "pending" not in arrays:
        return None
    if not len(arrays["link_ids"]) and not len(arrays["pending"]):  # no link: no group
        held = arrays["ids"].astype(np.int64)
        count, total, squares = conn.execute(ID_DIGEST_SQL).fetchone()
        if (int(count), int(total), int(squares)) == id_digest_of(held):
            return NO_COPIES
        # Papers gone since leave no group behind; a paper never hashed might make one.
        in_db = np.fromiter((r[0] for r in conn.execute(ALL_IDS_SQL)), np.int64)
        return NO_COPIES if np.isin(in_db, held).all() else None
    from desk.core.dedup.saved_links import SavedLinks  # some link: the detector's module loads

    try:
        saved = SavedLinks.from_arrays(arrays)
    except (KeyError, ValueError, TypeError):
        return None
    in_db = np.array(sorted(r[0] for r in conn.execute(ALL_IDS_SQL)), dtype=np.int64)
    excluded = {(int(a), int(b)) for a, b in conn.execute("SELECT a, b FROM distinct_pair")}
    groups = saved.groups(in_db, excluded)
    if groups is None:
        return None
    return copies_of(groups, abstract_lengths(conn, [i for g in groups for i in g.ids]))
