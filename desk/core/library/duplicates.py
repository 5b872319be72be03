"""``Library.duplicates``: near-duplicate groups, merging them (and back), "not a duplicate" marks."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import func, select

from desk.core.edits import history, merging, undo
from desk.core.runtime.errors import DeskError
from desk.core.runtime.paths import DUPLICATES_CACHE_NAME
from desk.core.store import Paper
from desk.core.store.queries import raw_connection

if TYPE_CHECKING:  # the near-duplicate detector (MinHash over numpy) loads when first used
    from desk.core.dedup import Candidate
    from desk.core.dedup.detector import DedupProgress
    from desk.core.dedup.finder import DuplicateFinder
    from desk.core.edits.merge_plan import PlannedMerge
    from desk.core.library.copies import Copies
    from desk.core.search.index_sync import IndexSync
    from desk.core.store import Database


class Duplicates:
    """The library's near-duplicates (``lib.duplicates``); every merge is one undo step."""

    def __init__(self, db: Database, sync: IndexSync, cache_dir: Path) -> None:
        self.db = db
        self.sync = sync
        self.cache = cache_dir / DUPLICATES_CACHE_NAME
        self._finder: DuplicateFinder | None = None  # opened by the first command that needs it
        self._copies_cache: tuple[int, Copies] | None = None  # (data version, copies) of copies()

    @property
    def finder(self) -> DuplicateFinder:
        """The near-duplicate finder (its module and cache are loaded on first use)."""
        if self._finder is None:
            from desk.core.dedup.finder import DuplicateFinder

            self._finder = DuplicateFinder(self.db, self.cache)
        return self._finder

    def save(self) -> None:
        """Keep the finder's signatures for the next process (when it was opened)."""
        if self._finder is not None:
            self._finder.save()

    def groups(self, progress: DedupProgress | None = None) -> list[Candidate]:
        """Groups of papers that look like one paper, best first, minus pairs ruled out
        (``progress``: papers hashed and candidate pairs verified, when that is long)."""
        return self.finder.groups(self.distinct_pairs(), progress)

    def copies(self) -> Copies:
        """The near-duplicate groups not yet merged or ruled out, as the lists show them: one
        copy each (the longest), the others hidden (``desk.core.library.copies``). Read again when
        the database changed; while only hashing papers would tell, no copy is hidden."""
        from desk.core.library.copies import NO_COPIES, abstract_lengths, copies_of, saved_copies

        version = self.db.data_version()
        cached = self._copies_cache
        if cached is not None and cached[0] == version:
            return cached[1]
        copies: Copies | None = None
        if self._finder is None:  # the saved links first: no detector loaded for a library without any
            with self.db.reading() as session:
                copies = saved_copies(raw_connection(session), self.cache)
        if copies is None:
            groups = self.finder.quick_groups(self.distinct_pairs())
            if groups is None:
                return NO_COPIES  # asked again next time: the review's count loads the index
            with self.db.reading() as session:
                lengths = abstract_lengths(raw_connection(session), [i for g in groups for i in g.ids])
            copies = copies_of(groups, lengths)
        self._copies_cache = (version, copies)
        return copies

    def merge(self, keep_id: int, other_ids: Sequence[int]) -> None:
        """Fold other papers into keep (sources kept, star/read OR-ed, notes joined); undo with unmerge."""
        others = list(dict.fromkeys(i for i in other_ids if i != keep_id))
        with self.db.writing() as session:
            payload = undo.merge_with_tags(session, keep_id, others)
            label = f"Merge {', '.join(map(str, others))} into {keep_id}"
            history.record(session, "merge", label, payload)
        self.sync.flush()

    def unmerge(self, paper_id: int) -> list[int]:
        """Undo the latest merge paper_id took part in; returns the ids brought back."""
        with self.db.writing() as session:
            payload = undo.merge_payload(session, paper_id)
            if payload is None:
                raise DeskError(f"paper {paper_id} is not part of a merge that can be undone")
            applied, step = undo.unmerge_step(session, payload)
            restored = applied.paper_ids[1:]
            label = f"Unmerge {', '.join(map(str, payload['others']))} from {payload['keep']}"
            history.record(session, "unmerge", label, step)
        self.sync.flush()
        return restored

    def mark_distinct(self, a: int, b: int) -> None:
        """Remember that two papers are not duplicates; they are never offered again."""
        with self.db.writing() as session:
            lo, hi = sorted((a, b))
            known = (lo, hi) in merging.distinct_pairs(session)
            merging.mark_distinct(session, a, b)
            if not known:
                label = f"Say {lo} and {hi} are not duplicates"
                history.record(session, "distinct", label, {"a": lo, "b": hi})

    def unmark_distinct(self, a: int, b: int) -> None:
        """Take back "not a duplicate": the two papers can be offered together again (one undo step)."""
        with self.db.writing() as session:
            lo, hi = sorted((a, b))
            merging.unmark_distinct(session, a, b)
            history.record(
                session, "undistinct", f"Offer {lo} and {hi} as duplicates again", {"a": lo, "b": hi}
            )

    def plan(self, kind: str) -> list[PlannedMerge]:
        """What merging every group of ``kind`` ("exact" or "truncation") would do: a preview."""
        groups = self.groups()
        ids = [i for g in groups if g.kind == kind for i in g.ids]
        with self.db.reading() as session:
            lengths = {
                int(i): int(n or 0)
                for i, n in session.execute(
                    select(Paper.id, func.length(Paper.abstract)).where(Paper.id.in_(ids))
                )
            }
        from desk.core.edits import merge_plan

        return merge_plan.plan(groups, kind, lengths)

    def merge_all(self, kind: str) -> list[PlannedMerge]:
        """Merge every group of ``kind`` as plan() shows it, as one undo step (each merge can
        also be taken back alone with unmerge)."""
        planned = self.plan(kind)
        if not planned:
            return planned
        with self.db.writing() as session:
            payloads = [undo.merge_with_tags(session, step.keep, list(step.others)) for step in planned]
            folded = sum(len(step.others) for step in planned)
            label = f"Merge {len(planned)} {kind} groups ({folded} papers)"
            history.record(session, "merge-all", label, {"merges": payloads})
        self.sync.flush()
        return planned

    def distinct_pairs(self) -> set[tuple[int, int]]:
        """Every (a, b) pair, a < b, a user said is not a duplicate."""
        with self.db.reading() as session:
            return merging.distinct_pairs(session)
