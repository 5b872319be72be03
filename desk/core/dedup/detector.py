"""The incremental near-duplicate index: MinHash-LSH candidates, exact verification, groups.

A small numpy band index rather than ``datasketch.MinHashLSH``: the same banding, but the keys
live in one array (50k abstracts: 13 MB, where MinHashLSH's dicts of sets grow the process by
~900 MB and take 19 s to insert and query; ``bench/dedup_bench.py`` measures both), and a batch
pass sorts each band instead of inserting 3M keys one by one.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from functools import partial
from itertools import combinations
from typing import cast

import numpy as np

from desk.core.dedup.score import DEFAULT_THRESHOLD, score_sets
from desk.core.dedup.shingles import TAIL, normalize, shingle
from desk.core.dedup.signature import band_keys, signatures
from desk.core.workers import WorkerPool

DEFAULT_NUM_PERM = 192
BAND_ROWS = 3
"""Hash values per LSH band. With 192 permutations, 64 bands make a pair of Jaccard 0.4 a
candidate with p = 0.985, 0.43 (a containment of 0.6 between equal lengths) with p = 0.995 and
0.5 (a copy cut at half) with p = 0.9998, one of 0.05 with p = 0.008. 128 permutations (42 bands)
missed one half-length copy in 900 on the benchmark; 192 cost 2 % more indexing time."""

MAX_BUCKET = 64
"""A band bucket holding more texts is boilerplate, not a paper; its pairs are not tried
(texts equal after cleanup are linked by their fingerprint anyway)."""

_SMALL_BATCH = 48  # pending texts matched one by one against the whole index below this
_CHUNK = 1024  # texts hashed together: vectorised, with temporaries of a few MB
# Fewer than pool.tuning.dedup_on_workers_from texts are hashed here: a worker's start-up costs more.


@dataclass(frozen=True)
class Candidate:
    """Papers that look like one paper."""

    ids: tuple[int, ...]
    """Sorted, two or more."""
    similarity: float
    """The lowest verified similarity among the group's linked pairs."""
    exact_after_cleanup: bool
    """All texts are equal after cleanup (case, punctuation, markup, math rendering): safe to merge."""


@dataclass(frozen=True)
class Prepared:
    """What indexing a batch of texts needs, computed apart from the index (in a worker process)."""

    sets: list[np.ndarray]
    tails: np.ndarray
    cleanup: np.ndarray
    keys: np.ndarray
    """``(n, bands)`` LSH band keys; zeros for a text without shingles."""

    def subset(self, rows: Sequence[int]) -> Prepared:
        """What prepare() gives for the texts at ``rows`` alone, in that order."""
        at = np.asarray(rows, dtype=np.int64)
        return Prepared([self.sets[r] for r in rows], self.tails[at], self.cleanup[at], self.keys[at])


def prepare(texts: Sequence[str], num_perm: int) -> Prepared:
    """Shingles, fingerprints and band keys of ``texts`` (readable abstracts)."""
    shingled = shingle([normalize(t) for t in texts])
    sets = shingled.sets
    keys = np.zeros((len(texts), num_perm // BAND_ROWS), dtype=np.uint32)
    filled = [k for k, s in enumerate(sets) if len(s)]
    if filled:
        keys[np.array(filled)] = band_keys(signatures([sets[k] for k in filled], num_perm), BAND_ROWS)
    return Prepared(sets, shingled.tails, shingled.cleanup, keys)


class NearDuplicateIndex:
    """Incremental MinHash-LSH index over paper texts; no all-pairs comparison.

    ``add`` only hashes; links are found lazily for the texts added since the last question,
    one by one when they are few, by sorting each band when many. Saved as plain arrays
    (state_arrays / from_state_arrays), never as a pickle.
    """

    def __init__(self, threshold: float = DEFAULT_THRESHOLD, num_perm: int = DEFAULT_NUM_PERM) -> None:
        if num_perm < BAND_ROWS:
            raise ValueError(f"num_perm must be at least {BAND_ROWS}")
        self.threshold = threshold
        self.num_perm = num_perm
        bands = num_perm // BAND_ROWS
        self._keys = np.zeros((0, bands), dtype=np.uint32)
        self._ids = np.zeros(0, dtype=np.int64)
        self._live = np.zeros(0, dtype=bool)  # alive and with at least one shingle
        self._fps = np.zeros(0, dtype=np.uint64)
        self._tails = np.zeros((0, TAIL), dtype=np.uint32)
        self._sets: list[np.ndarray | None] = []
        self._row_of: dict[int, int] = {}
        self._used = 0
        self._pending: set[int] = set()
        self._links: dict[int, dict[int, float]] = {}
        self.checks = 0
        """Candidate pairs verified so far (a benchmark figure)."""

    def __len__(self) -> int:
        return len(self._row_of)

    def __getstate__(self) -> dict[str, object]:
        """Used rows only, and the shingle sets in one buffer (for sending to another process;
        the on-disk cache is state_arrays(), never a pickle)."""
        state = dict(vars(self))
        used = self._used
        for name in ("_keys", "_ids", "_live", "_fps", "_tails"):
            state[name] = state[name][:used]
        sizes = np.array([0 if s is None else len(s) for s in self._sets], dtype=np.int64)
        state["_sets"] = (
            sizes,
            np.concatenate([s for s in self._sets if s is not None] or [np.zeros(0, np.uint32)]),
        )
        return state

    def __setstate__(self, state: dict[str, object]) -> None:
        sizes, values = cast("tuple[np.ndarray, np.ndarray]", state.pop("_sets"))  # as __getstate__ left it
        vars(self).update(state)
        ends = np.cumsum(sizes).tolist()
        self._sets = [values[e - n : e] for n, e in zip(sizes.tolist(), ends, strict=True)]

    def state_arrays(self) -> dict[str, np.ndarray]:
        """The whole index as plain numeric arrays (what the on-disk cache holds: data only)."""
        rows = np.array(sorted(self._row_of.values()), dtype=np.int64)
        sets = [self._sets[r] for r in rows.tolist()]
        link_a, link_b, link_sim = [], [], []
        for a, peers in self._links.items():
            for b, sim in peers.items():
                if a < b:
                    link_a.append(a)
                    link_b.append(b)
                    link_sim.append(sim)
        return {
            "params": np.array([self.threshold, float(self.num_perm), float(self.checks)], dtype=np.float64),
            "keys": self._keys[rows],
            "ids": self._ids[rows],
            "live": self._live[rows],
            "fps": self._fps[rows],
            "tails": self._tails[rows],
            "set_sizes": np.array([0 if s is None else len(s) for s in sets], dtype=np.int64),
            "set_values": np.concatenate(
                [np.asarray(s, dtype=np.uint32) for s in sets if s is not None] or [np.zeros(0, np.uint32)]
            ),
            "pending": np.array(sorted(self._pending), dtype=np.int64),
            "link_a": np.array(link_a, dtype=np.int64),
            "link_b": np.array(link_b, dtype=np.int64),
            "link_sim": np.array(link_sim, dtype=np.float64),
        }

    @classmethod
    def from_state_arrays(cls, arrays: dict[str, np.ndarray]) -> NearDuplicateIndex:
        """The index state_arrays() describes; ValueError when the arrays do not fit together."""
        threshold, num_perm, checks = (float(v) for v in arrays["params"].tolist())
        if num_perm != int(num_perm) or num_perm < BAND_ROWS:
            raise ValueError("bad num_perm")
        index = cls(threshold, int(num_perm))
        ids, keys, live = arrays["ids"], arrays["keys"], arrays["live"]
        fps, tails, sizes, values = arrays["fps"], arrays["tails"], arrays["set_sizes"], arrays["set_values"]
        n = len(ids)
        expected = {
            "ids": (np.int64, (n,)),
            "keys": (np.uint32, (n, index._keys.shape[1])),
            "live": (np.bool_, (n,)),
            "fps": (np.uint64, (n,)),
            "tails": (np.uint32, (n, TAIL)),
            "set_sizes": (np.int64, (n,)),
        }
        for name, (dtype, shape) in expected.items():
            if arrays[name].dtype != dtype or arrays[name].shape != shape:
                raise ValueError(f"bad array {name}")
        if values.dtype != np.uint32 or values.ndim != 1 or (sizes < 0).any() or sizes.sum() != len(values):
            raise ValueError("bad shingle sets")
        if len(set(ids.tolist())) != n:
            raise ValueError("repeated ids")
        ends = np.cumsum(sizes).tolist()
        index._keys, index._ids, index._live, index._fps, index._tails = keys, ids, live, fps, tails
        index._sets = [values[e - k : e] for k, e in zip(sizes.tolist(), ends, strict=True)]
        index._row_of = {int(pid): k for k, pid in enumerate(ids.tolist())}
        index._used = n
        pending = set(arrays["pending"].tolist())
        link_a, link_b = arrays["link_a"].tolist(), arrays["link_b"].tolist()
        link_sim = arrays["link_sim"].tolist()
        if not pending <= index._row_of.keys() or not len(link_a) == len(link_b) == len(link_sim):
            raise ValueError("bad pending or links")
        if not set(link_a) | set(link_b) <= index._row_of.keys():
            raise ValueError("links to unknown papers")
        index._pending = pending
        for a, b, sim in zip(link_a, link_b, link_sim, strict=True):
            index._links.setdefault(a, {})[b] = sim
            index._links.setdefault(b, {})[a] = sim
        index.checks = int(checks)
        return index

    def __contains__(self, paper_id: object) -> bool:
        return paper_id in self._row_of

    def paper_ids(self) -> set[int]:
        """The ids of every paper indexed now."""
        return set(self._row_of)

    # -- adding and removing ------------------------------------------------------------

    def add(self, paper_id: int, text: str) -> None:
        """Index (or re-index) one paper's readable abstract."""
        self.add_many([(paper_id, text)])

    def add_many(self, items: Iterable[tuple[int, str]], pool: WorkerPool | None = None) -> None:
        """Index many papers at once (vectorised, in chunks); a repeated id keeps its last text.

        With a ``pool``, the texts are shingled and hashed on its worker processes.
        """
        latest = dict(items)
        for paper_id in latest:
            if paper_id in self._row_of:
                self.remove(paper_id)
        ids = list(latest)
        self._grow(len(ids))
        chunks = [ids[lo : lo + _CHUNK] for lo in range(0, len(ids), _CHUNK)]
        texts = [[latest[i] for i in chunk] for chunk in chunks]
        if pool is not None and pool.parallel and len(ids) >= pool.tuning.dedup_on_workers_from:
            prepared = pool.map(partial(prepare, num_perm=self.num_perm), texts)
        else:
            prepared = [prepare(t, self.num_perm) for t in texts]
        for chunk, ready in zip(chunks, prepared, strict=True):
            self._append(chunk, ready)

    def add_prepared(self, ids: list[int], ready: Prepared) -> None:
        """Index papers whose texts were prepare()d elsewhere (on a worker process), in that order."""
        for paper_id in ids:
            if paper_id in self._row_of:
                self.remove(paper_id)
        self._grow(len(ids))
        self._append(list(ids), ready)

    def _append(self, ids: list[int], ready: Prepared) -> None:
        sets = ready.sets
        rows = slice(self._used, self._used + len(ids))
        self._keys[rows] = ready.keys
        self._ids[rows] = ids
        self._live[rows] = [len(s) > 0 for s in sets]
        self._fps[rows] = ready.cleanup
        self._tails[rows] = ready.tails
        self._sets.extend(sets)
        for k, paper_id in enumerate(ids):
            self._row_of[paper_id] = self._used + k
            if len(sets[k]):
                self._pending.add(paper_id)
        self._used += len(ids)

    def remove(self, paper_id: int) -> None:
        """Forget a paper (unknown ids are ignored)."""
        row = self._row_of.pop(paper_id, None)
        if row is None:
            return
        self._live[row] = False
        self._sets[row] = None
        self._pending.discard(paper_id)
        for other in self._links.pop(paper_id, {}):
            self._links[other].pop(paper_id, None)
        if self._used > 1024 and len(self._row_of) < self._used // 2:
            self._compact()

    def _grow(self, extra: int) -> None:
        need = self._used + extra
        if need <= len(self._ids):
            return
        cap = max(need, 2 * len(self._ids), 64)

        def grown(a: np.ndarray) -> np.ndarray:
            out = np.zeros((cap, *a.shape[1:]), dtype=a.dtype)
            out[: self._used] = a[: self._used]
            return out

        self._keys, self._ids, self._live = grown(self._keys), grown(self._ids), grown(self._live)
        self._fps, self._tails = grown(self._fps), grown(self._tails)

    def _compact(self) -> None:
        rows = np.array(sorted(self._row_of.values()), dtype=np.int64)
        self._keys, self._ids = self._keys[rows], self._ids[rows]
        self._live, self._fps, self._tails = self._live[rows], self._fps[rows], self._tails[rows]
        self._sets = [self._sets[r] for r in rows]
        self._row_of = {int(pid): k for k, pid in enumerate(self._ids)}
        self._used = len(rows)

    # -- questions ----------------------------------------------------------------------

    def candidates_for(self, paper_id: int) -> list[tuple[int, float]]:
        """Verified near-duplicates of one paper as ``(other_id, similarity)``, best first."""
        self._settle()
        links = self._links.get(paper_id, {})
        return sorted(links.items(), key=lambda item: (-item[1], item[0]))

    def groups(self, exclude_pairs: Collection[tuple[int, int]] = ()) -> list[Candidate]:
        """All groups of linked papers, best first; no group holds a pair of ``exclude_pairs``.

        Groups are the connected components of the verified links; where an excluded pair
        would end up in one component, links are joined strongest first and a link that would
        bring an excluded pair together is left out.
        """
        self._settle()
        banned: dict[int, set[int]] = {}
        for a, b in exclude_pairs:
            banned.setdefault(a, set()).add(b)
            banned.setdefault(b, set()).add(a)
        links = sorted(
            (-sim, a, b)
            for a, peers in self._links.items()
            for b, sim in peers.items()
            if a < b and b not in banned.get(a, ())
        )
        members: dict[int, set[int]] = {}
        for _, a, b in links:
            group_a = members.get(a) or {a}
            group_b = members.get(b) or {b}
            if group_a is group_b or (banned and any(banned.get(m, set()) & group_b for m in group_a)):
                continue
            if len(group_a) < len(group_b):
                group_a, group_b = group_b, group_a
            group_a |= group_b
            for m in group_a:
                members[m] = group_a
        found = {id(g): g for g in members.values()}.values()
        return sorted((self._candidate(g) for g in found), key=lambda c: (-c.similarity, c.ids))

    def _candidate(self, group: set[int]) -> Candidate:
        ids = tuple(sorted(group))
        sims = [sim for a in ids for b, sim in self._links[a].items() if a < b and b in group]
        fps = {int(self._fps[self._row_of[i]]) for i in ids}
        return Candidate(ids, min(sims), len(fps) == 1)

    # -- finding links ------------------------------------------------------------------

    def _settle(self) -> None:
        """Find and verify the links of every pending text."""
        if not self._pending:
            return
        pending = np.array([self._row_of[p] for p in self._pending], dtype=np.int64)
        if len(pending) < _SMALL_BATCH:
            pairs = np.concatenate([self._pairs_of(int(r)) for r in pending])
        else:
            pairs = self._all_pairs(pending)
        for lo, hi in pairs.tolist():
            self._verify(lo, hi)
        self._pending.clear()

    def _pairs_of(self, row: int) -> np.ndarray:
        """Rows sharing a band bucket or the cleanup fingerprint with ``row``, as row pairs."""
        n = self._used
        hits = (self._keys[:n] == self._keys[row]).any(axis=1) | (self._fps[:n] == self._fps[row])
        hits &= self._live[:n]
        hits[row] = False
        others = np.flatnonzero(hits)
        return np.stack([np.minimum(others, row), np.maximum(others, row)], axis=1)

    def _all_pairs(self, pending: np.ndarray) -> np.ndarray:
        """Row pairs sharing a bucket in some band, one end pending; buckets sorted, not probed."""
        rows = np.flatnonzero(self._live[: self._used])
        is_pending = np.zeros(self._used, dtype=bool)
        is_pending[pending] = True
        found = [self._fingerprint_pairs(rows)]
        for band in range(self._keys.shape[1]):
            col = self._keys[rows, band]
            order = np.argsort(col, kind="stable")
            ordered = col[order]
            same = ordered[1:] == ordered[:-1]
            if not same.any():
                continue
            edges = np.flatnonzero(np.diff(np.concatenate(([False], same, [False])).astype(np.int8)))
            starts, stops = edges[0::2], edges[1::2] + 1
            sizes = stops - starts
            twos = starts[sizes == 2]
            found.append(np.stack([rows[order[twos]], rows[order[twos + 1]]], axis=1))
            for s, e in zip(
                starts[(sizes > 2) & (sizes <= MAX_BUCKET)],
                stops[(sizes > 2) & (sizes <= MAX_BUCKET)],
                strict=True,
            ):
                found.append(np.array(list(combinations(rows[order[s:e]].tolist(), 2)), dtype=np.int64))
        pairs = np.concatenate(found)
        pairs = np.sort(pairs, axis=1)
        pairs = pairs[is_pending[pairs[:, 0]] | is_pending[pairs[:, 1]]]
        return np.unique(pairs, axis=0)

    def _fingerprint_pairs(self, rows: np.ndarray) -> np.ndarray:
        """Texts equal after cleanup, each linked to the first of its kind (a star, not a clique)."""
        fps = self._fps[rows]
        order = np.argsort(fps, kind="stable")
        ordered = fps[order]
        first = np.concatenate(([True], ordered[1:] != ordered[:-1]))
        head = np.maximum.accumulate(np.where(first, np.arange(len(order)), 0))
        dup = ~first
        return np.stack([rows[order[head[dup]]], rows[order[dup]]], axis=1)

    def _verify(self, lo: int, hi: int) -> None:
        a, b = int(self._ids[lo]), int(self._ids[hi])
        if b in self._links.get(a, ()):
            return
        self.checks += 1
        set_a, set_b = self._sets[lo], self._sets[hi]
        assert set_a is not None and set_b is not None
        sim = (
            1.0
            if self._fps[lo] == self._fps[hi]
            else score_sets(set_a, set_b, self._tails[lo], self._tails[hi])
        )
        if sim >= self.threshold:
            self._links.setdefault(a, {})[b] = sim
            self._links.setdefault(b, {})[a] = sim
