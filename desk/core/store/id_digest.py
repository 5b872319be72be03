"""A digest of a set of paper ids, computed alike in numpy and inside SQLite.

Derived stores (the near-duplicate links, the vectors) record which papers they hold; comparing
this digest with the database's says whether they still hold the library's papers without
reading every id out of SQLite.
"""

from __future__ import annotations

from typing import Any

ID_PRIME = 2147483647  # 2^31 - 1: a square of an id below it stays inside int64

#: The digest of every paper id, in one scan of a covering index without a row leaving SQLite.
ID_DIGEST_SQL = (
    f"SELECT count(*), coalesce(sum(id), 0), coalesce(sum((id % {ID_PRIME}) * (id % {ID_PRIME})"
    f" % {ID_PRIME}), 0) FROM paper INDEXED BY ix_paper_rev"
)

#: Every paper id, read from the covering index (the table's own pages hold the abstracts).
ALL_IDS_SQL = "SELECT id FROM paper INDEXED BY ix_paper_rev"


def id_digest_of(ids: Any) -> tuple[int, int, int]:
    """(count, sum, sum of squares mod ID_PRIME) of a numpy int64 array of ids: what
    ``ID_DIGEST_SQL`` computes inside SQLite (no numpy import here: the array's own)."""
    squares = int(((ids % ID_PRIME) * (ids % ID_PRIME) % ID_PRIME).sum())
    return len(ids), int(ids.sum()), squares
