"""Near-duplicate groups answered from a saved index's links alone, without its texts' hashes.

Loading the whole saved index means every paper's words, sentence starts and keys as small
arrays and its LSH band keys: at a million papers ~2.5 GB in the process, for a window that
only wants to say how many groups there are. The groups depend on the verified links, the
papers' cleanup fingerprints and which papers are still in the library, so when the library
holds no paper the index has not hashed and no text waits to be verified, those few arrays
give the same groups as the whole index (tests/core/dedup/test_saved_links.py compares both).
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

import numpy as np

from desk.core.dedup.detector import links_from_arrays
from desk.core.dedup.groups import Candidate, join
from desk.core.dedup.verify import Match
from desk.core.store.id_digest import id_digest_of


@dataclass(frozen=True)
class SavedLinks:
    """The links part of a saved near-duplicate index (detector.LINK_ARRAYS)."""

    ids: np.ndarray
    """Every paper the index held, sorted."""
    fingerprints: np.ndarray
    """Their cleanup fingerprints, in the order of ``ids``."""
    links: dict[int, dict[int, Match]]
    waiting: bool
    """Texts were hashed but not yet compared: only the whole index can answer."""

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray]) -> SavedLinks:
        """The saved links; ValueError (or KeyError) when the arrays do not fit together."""
        ids, fps = arrays["ids"], arrays["fps"]
        if ids.dtype != np.int64 or ids.ndim != 1 or fps.dtype != np.uint64 or fps.shape != ids.shape:
            raise ValueError("bad ids or fingerprints")
        order = np.argsort(ids, kind="stable")
        ids, fps = ids[order], fps[order]
        if len(ids) > 1 and not (ids[1:] > ids[:-1]).all():
            raise ValueError("repeated ids")
        links = links_from_arrays(arrays)
        linked = np.fromiter(links, dtype=np.int64, count=len(links))
        if not np.isin(linked, ids).all():
            raise ValueError("links of papers the index does not hold")
        return cls(ids, fps, links, bool(len(arrays["pending"])))

    def id_digest(self) -> tuple[int, int, int]:
        """(count, sum, sum of squares mod 2^31 - 1) of the ids held, as ``QuickLibrary.id_digest``
        digests the database's: equal digests mean the same papers (ids are never reused)."""
        return id_digest_of(self.ids)

    def groups(
        self, in_library: np.ndarray, exclude_pairs: Collection[tuple[int, int]]
    ) -> list[Candidate] | None:
        """The groups ``NearDuplicateIndex.groups`` gives once reconciled with the papers
        ``in_library`` (sorted ids), or None when that needs the whole index (papers it never
        hashed, or texts waiting to be compared)."""
        if self.waiting:
            return None
        at = np.searchsorted(self.ids, in_library)
        held = at < len(self.ids)
        if not held.all() or not (self.ids[at] == in_library).all():
            return None
        still = np.zeros(len(self.ids), dtype=bool)
        still[at] = True
        gone = set(self.ids[~still].tolist())
        links = {
            a: {b: m for b, m in peers.items() if b not in gone}
            for a, peers in self.links.items()
            if a not in gone
        }
        links = {a: peers for a, peers in links.items() if peers}
        members = np.fromiter(links, dtype=np.int64, count=len(links))
        rows = np.searchsorted(self.ids, members)
        fingerprint = dict(zip(members.tolist(), self.fingerprints[rows].tolist(), strict=True))
        return join(links, fingerprint.__getitem__, exclude_pairs)
