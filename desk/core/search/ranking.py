"""Coordination ranking: more distinct query parts matched first, then BM25F.

Each top-level part of a query (a word, a phrase, ``a OR b``…) is wrapped in
:class:`Shift`, which adds :data:`COORD_BONUS` to the BM25F score of every
document the part matches. Summed by Whoosh's union matchers, a document's
score is then ``parts_matched * COORD_BONUS + bm25f``: a lexicographic order
that keeps Whoosh's block-quality skipping valid, because the bounds shift too.
"""

from __future__ import annotations

from typing import Any

from whoosh import matching
from whoosh.query import Query, WrappingQuery
from whoosh.scoring import BM25F

#: Larger than any BM25F score one query part reaches (boosts included).
COORD_BONUS = 1000.0


def weighting() -> BM25F:
    """The scoring model of every search."""
    return BM25F(B=0.75, K1=1.2)


def parts_matched(score: float) -> int:
    """How many query parts a hit's score says it matched."""
    return int(score // COORD_BONUS)


class ShiftMatcher(matching.WrappingMatcher):
    """Scores ``child.score() * scale + bonus``."""

    def __init__(self, child: matching.Matcher, bonus: float = 0.0, scale: float = 1.0) -> None:
        super().__init__(child)
        self.bonus = bonus
        self.scale = scale

    def copy(self) -> ShiftMatcher:
        return ShiftMatcher(self.child.copy(), self.bonus, self.scale)

    def _replacement(self, newchild: matching.Matcher) -> matching.Matcher:
        if isinstance(newchild, matching.NullMatcherClass):
            return newchild
        return ShiftMatcher(newchild, self.bonus, self.scale)

    def replace(self, minquality: float = 0) -> matching.Matcher:
        if not self.child.is_active():
            return matching.NullMatcher()
        if minquality and self.max_quality() <= minquality:
            return matching.NullMatcher()
        # The child sees the bound without our shift.
        child_min = (minquality - self.bonus) / self.scale if self.scale else 0
        r = self.child.replace(max(child_min, 0))
        return self if r is self.child else self._replacement(r)

    def skip_to_quality(self, minquality: float) -> int:
        if not self.scale:
            return 0
        return self.child.skip_to_quality((minquality - self.bonus) / self.scale)

    def max_quality(self) -> float:
        return self.child.max_quality() * self.scale + self.bonus

    def block_quality(self) -> float:
        return self.child.block_quality() * self.scale + self.bonus

    def weight(self) -> float:
        return self.child.weight()

    def score(self) -> float:
        return self.child.score() * self.scale + self.bonus

    def supports_block_quality(self) -> bool:
        return bool(self.scale) and self.child.supports_block_quality()


class Shift(WrappingQuery):
    """A query whose matches score ``child * scale + bonus``."""

    def __init__(self, child: Query, bonus: float = COORD_BONUS, scale: float = 1.0) -> None:
        super().__init__(child)
        self.bonus = bonus
        self.scale = scale

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Shift)
            and self.child == other.child
            and self.bonus == other.bonus
            and self.scale == other.scale
        )

    def __hash__(self) -> int:
        return hash((self.child, self.bonus, self.scale))

    def _rewrap(self, child: Query) -> Shift:
        return Shift(child, self.bonus, self.scale)

    def matcher(self, searcher: Any, context: Any = None) -> matching.Matcher:
        m = self.child.matcher(searcher, context)
        if isinstance(m, matching.NullMatcherClass) or not m.is_active():
            return matching.NullMatcher()
        return ShiftMatcher(m, self.bonus, self.scale)


def unscored(q: Query) -> Shift:
    """A filter clause: matches like ``q`` and adds nothing to the score."""
    return Shift(q, bonus=0.0, scale=0.0)
