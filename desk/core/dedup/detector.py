"""The incremental near-duplicate index: MinHash-LSH and sentence-key candidates, verification, groups.

A small numpy band index rather than ``datasketch.MinHashLSH``: the same banding, but the keys
live in one array (50k abstracts: 13 MB, where MinHashLSH's dicts of sets grow the process by
~900 MB and take 19 s to insert and query; ``bench/dedup_bench.py`` measures both), and a batch
pass sorts each band instead of inserting 3M keys one by one.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import cast

import numpy as np

from desk.core.dedup.candidates import (
    band_pairs,
    fingerprint_pairs,
    sentence_pairs,
    unique_pairs,
    with_evidence,
)
from desk.core.dedup.groups import Candidate, join
from desk.core.dedup.sentences import sentence_words, structure
from desk.core.dedup.shingles import shingle_words
from desk.core.dedup.signature import band_keys, signatures
from desk.core.dedup.verify import DEFAULT_THRESHOLD, KINDS, Match, compare, content_mask
from desk.core.runtime.processes import WorkerPool

DEFAULT_NUM_PERM = 192
BAND_ROWS = 3
"""Hash values per LSH band. With 192 permutations, 64 bands make a pair of Jaccard 0.4 a
candidate with p = 0.985, 0.43 (a containment of 0.6 between equal lengths) with p = 0.995 and
0.5 (a copy cut at half) with p = 0.9998, one of 0.05 with p = 0.008. 128 permutations (42 bands)
missed one half-length copy in 900 on the benchmark; 192 cost 2 % more indexing time."""

SKETCH_BITS = 1024
"""Bits of the content-word sketch a candidate pair is screened with."""
MIN_WORDS_SHARED = 0.55
# Candidates verified per paper at most, the likeliest first (the sketches' shared words): real
# lists give a paper a handful; a file of templated abstracts gave each ~50, all near-identical,
# and a 10k import spent minutes verifying them. Groups still form: links join transitively.
MAX_CANDIDATES = 8
"""A candidate pair is verified when the sketches say the text with fewer content words shares
this share of them with the other: a cut copy shares all, the revisions of the real-abstract
bench set 0.62 and more (5th percentile 0.77), papers of one group on one problem 0.22-0.55."""

LINK_ARRAYS = ("params", "ids", "fps", "pending", "link_ids", "link_figures", "link_flags")
"""The arrays of state_arrays() that questions about links need: without every text's words and
band keys (at a million papers 16 MB of a 1.2 GB cache), see ``desk.core.dedup.saved_links``."""

_SMALL_BATCH = 48  # pending texts matched one by one against the whole index below this
_CHUNK = 1024  # texts hashed together: vectorised, with temporaries of a few MB
_REPORT_EVERY = 512  # candidate pairs verified between two progress reports

#: progress(done, total, step): how far finding near-duplicates is ("hashing", "checking pairs").
DedupProgress = Callable[[int, int, str], None]
# Fewer than pool.tuning.dedup_on_workers_from texts are hashed here: a worker's start-up costs more.


@dataclass(frozen=True)
class Prepared:
    """What indexing a batch of texts needs, computed apart from the index (in a worker process)."""

    words: list[np.ndarray]
    starts: list[np.ndarray]
    sentence_keys: list[np.ndarray]
    cleanup: np.ndarray
    keys: np.ndarray
    """``(n, bands)`` LSH band keys; zeros for a text without shingles."""

    def subset(self, rows: Sequence[int]) -> Prepared:
        """What prepare() gives for the texts at ``rows`` alone, in that order."""
        at = np.asarray(rows, dtype=np.int64)
        return Prepared(
            [self.words[r] for r in rows],
            [self.starts[r] for r in rows],
            [self.sentence_keys[r] for r in rows],
            self.cleanup[at],
            self.keys[at],
        )


def prepare(texts: Sequence[str], num_perm: int) -> Prepared:
    """Words, sentences, fingerprints and band keys of ``texts`` (readable abstracts)."""
    words, starts = sentence_words(texts)
    shingled = shingle_words(words)
    sets = shingled.sets
    keys = np.zeros((len(texts), num_perm // BAND_ROWS), dtype=np.uint32)
    filled = [k for k, s in enumerate(sets) if len(s)]
    if filled:
        keys[np.array(filled)] = band_keys(signatures([sets[k] for k in filled], num_perm), BAND_ROWS)
    structured = structure(shingled.hashes, shingled.counts, starts)
    return Prepared(structured.words, structured.starts, structured.keys, shingled.cleanup, keys)


def links_from_arrays(arrays: dict[str, np.ndarray]) -> dict[int, dict[int, Match]]:
    """The verified links state_arrays() saved, both ways round; ValueError when they do not fit."""
    link_ids, figures, flags = arrays["link_ids"], arrays["link_figures"], arrays["link_flags"]
    if link_ids.ndim != 2 or link_ids.shape[1:] != (2,) or figures.shape != (len(link_ids), 4):
        raise ValueError("bad links")
    if flags.shape != (len(link_ids), 3) or ((flags < 0) | (flags > 2)).any():
        raise ValueError("bad link flags")
    links: dict[int, dict[int, Match]] = {}
    for (a, b), (score, sim, contained, ratio), (kind, shorter, reordered) in zip(
        link_ids.tolist(), figures.tolist(), flags.tolist(), strict=True
    ):
        match = Match(KINDS[kind], score, sim, contained, ratio, bool(shorter), bool(reordered))
        links.setdefault(a, {})[b] = match
        links.setdefault(b, {})[a] = match.flipped()
    return links


class NearDuplicateIndex:
    """Incremental near-duplicate index over paper texts; no all-pairs comparison.

    ``add`` only hashes; links are found lazily for the texts added since the last question:
    pairs sharing an LSH band bucket, the cleanup fingerprint or a sentence key, each verified
    by ``verify.compare``. One by one when few, by sorting each band when many. Saved as plain arrays
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
        self._live = np.zeros(0, dtype=bool)  # alive and with at least one word
        self._fps = np.zeros(0, dtype=np.uint64)
        self._words: list[np.ndarray | None] = []
        self._starts: list[np.ndarray] = []
        self._skeys: list[np.ndarray] = []
        self._flat: tuple[np.ndarray, np.ndarray] | None = None  # (sentence keys, rows), built lazily
        self._sketch: np.ndarray | None = None  # content-word bit sets, filled lazily per row
        self._sketch_done = np.zeros(0, dtype=bool)
        self._row_of: dict[int, int] = {}
        self._used = 0
        self._pending: set[int] = set()
        self._links: dict[int, dict[int, Match]] = {}
        self.checks = 0
        """Candidate pairs verified so far (a benchmark figure)."""

    def __len__(self) -> int:
        return len(self._row_of)

    def __getstate__(self) -> dict[str, object]:
        """Used rows only, and the per-text arrays in one buffer each (for sending to another
        process; the on-disk cache is state_arrays(), never a pickle)."""
        state = dict(vars(self))
        used = self._used
        for name in ("_keys", "_ids", "_live", "_fps"):
            state[name] = state[name][:used]
        state["_flat"], state["_sketch"], state["_sketch_done"] = None, None, np.zeros(0, dtype=bool)
        for name, dtype in (("_words", np.uint32), ("_starts", np.uint32), ("_skeys", np.uint32)):
            arrays = [np.zeros(0, dtype) if a is None else a for a in getattr(self, name)]
            sizes = np.array([len(a) for a in arrays], dtype=np.int64)
            state[name] = (sizes, np.concatenate(arrays or [np.zeros(0, dtype)]).astype(dtype))
        return state

    def __setstate__(self, state: dict[str, object]) -> None:
        packed = {name: state.pop(name) for name in ("_words", "_starts", "_skeys")}
        vars(self).update(state)
        for name, pair in packed.items():
            sizes, values = cast("tuple[np.ndarray, np.ndarray]", pair)  # as __getstate__ left it
            ends = np.cumsum(sizes).tolist()
            setattr(self, name, [values[e - n : e] for n, e in zip(sizes.tolist(), ends, strict=True)])
        alive = set(self._row_of.values())
        for row in range(self._used):  # a removed paper's row has no words
            if row not in alive:
                self._words[row] = None

    def state_arrays(self) -> dict[str, np.ndarray]:
        """The whole index as plain numeric arrays (what the on-disk cache holds: data only)."""
        rows = np.array(sorted(self._row_of.values()), dtype=np.int64)
        packed: dict[str, np.ndarray] = {}
        for name in ("words", "starts", "skeys"):
            arrays = [getattr(self, "_" + name)[r] for r in rows.tolist()]
            arrays = [np.zeros(0, np.uint32) if a is None else np.asarray(a, dtype=np.uint32) for a in arrays]
            packed[f"{name}_sizes"] = np.array([len(a) for a in arrays], dtype=np.int64)
            packed[f"{name}_values"] = np.concatenate(arrays or [np.zeros(0, np.uint32)])
        link_ids: list[tuple[int, int]] = []
        link_figures: list[tuple[float, float, float, float]] = []
        link_flags: list[tuple[int, int, int]] = []
        for a, peers in self._links.items():
            for b, m in peers.items():
                if a < b:
                    link_ids.append((a, b))
                    link_figures.append((m.score, m.similarity, m.containment, m.length_ratio))
                    link_flags.append((KINDS.index(m.kind), int(m.a_is_shorter), int(m.reordered)))
        return {
            "params": np.array([self.threshold, float(self.num_perm), float(self.checks)], dtype=np.float64),
            "keys": self._keys[rows],
            "ids": self._ids[rows],
            "live": self._live[rows],
            "fps": self._fps[rows],
            **packed,
            "pending": np.array(sorted(self._pending), dtype=np.int64),
            "link_ids": np.array(link_ids, dtype=np.int64).reshape(-1, 2),
            "link_figures": np.array(link_figures, dtype=np.float64).reshape(-1, 4),
            "link_flags": np.array(link_flags, dtype=np.int8).reshape(-1, 3),
        }

    @classmethod
    def from_state_arrays(cls, arrays: dict[str, np.ndarray]) -> NearDuplicateIndex:
        """The index state_arrays() describes; ValueError when the arrays do not fit together."""
        threshold, num_perm, checks = (float(v) for v in arrays["params"].tolist())
        if num_perm != int(num_perm) or num_perm < BAND_ROWS:
            raise ValueError("bad num_perm")
        index = cls(threshold, int(num_perm))
        ids = arrays["ids"]
        n = len(ids)
        expected = {
            "ids": (np.int64, (n,)),
            "keys": (np.uint32, (n, index._keys.shape[1])),
            "live": (np.bool_, (n,)),
            "fps": (np.uint64, (n,)),
            **{f"{name}_sizes": (np.int64, (n,)) for name in ("words", "starts", "skeys")},
        }
        for name, (dtype, shape) in expected.items():
            if arrays[name].dtype != dtype or arrays[name].shape != shape:
                raise ValueError(f"bad array {name}")
        per_text: dict[str, list[np.ndarray]] = {}
        for name in ("words", "starts", "skeys"):
            sizes, values = arrays[f"{name}_sizes"], arrays[f"{name}_values"]
            if values.dtype != np.uint32 or values.ndim != 1 or (sizes < 0).any():
                raise ValueError(f"bad {name}")
            if sizes.sum() != len(values):
                raise ValueError(f"bad {name}")
            ends = np.cumsum(sizes).tolist()
            per_text[name] = [values[e - k : e] for k, e in zip(sizes.tolist(), ends, strict=True)]
        for words, starts in zip(per_text["words"], per_text["starts"], strict=True):
            if len(starts) and (int(starts[0]) != 0 or int(starts.max()) >= len(words)):
                raise ValueError("bad sentence starts")
        if len(set(ids.tolist())) != n:
            raise ValueError("repeated ids")
        index._keys, index._ids, index._live, index._fps = arrays["keys"], ids, arrays["live"], arrays["fps"]
        index._words = list(per_text["words"])
        index._starts, index._skeys = per_text["starts"], per_text["skeys"]
        index._row_of = {int(pid): k for k, pid in enumerate(ids.tolist())}
        index._used = n
        pending = set(arrays["pending"].tolist())
        links = links_from_arrays(arrays)
        if not pending <= index._row_of.keys() or not links.keys() <= index._row_of.keys():
            raise ValueError("bad pending or links")
        index._pending = pending
        index._links = links
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
        words = ready.words
        rows = slice(self._used, self._used + len(ids))
        self._keys[rows] = ready.keys
        self._ids[rows] = ids
        self._live[rows] = [len(w) > 0 for w in words]
        self._fps[rows] = ready.cleanup
        self._words.extend(words)
        self._starts.extend(ready.starts)
        self._skeys.extend(ready.sentence_keys)
        self._flat = None
        for k, paper_id in enumerate(ids):
            self._row_of[paper_id] = self._used + k
            if len(words[k]):
                self._pending.add(paper_id)
        self._used += len(ids)

    def remove(self, paper_id: int) -> None:
        """Forget a paper (unknown ids are ignored)."""
        row = self._row_of.pop(paper_id, None)
        if row is None:
            return
        self._live[row] = False
        self._words[row] = None
        self._flat = None
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

        self._keys, self._ids, self._live, self._fps = (
            grown(self._keys),
            grown(self._ids),
            grown(self._live),
            grown(self._fps),
        )

    def _compact(self) -> None:
        rows = np.array(sorted(self._row_of.values()), dtype=np.int64)
        self._keys, self._ids = self._keys[rows], self._ids[rows]
        self._live, self._fps = self._live[rows], self._fps[rows]
        self._words = [self._words[r] for r in rows]
        self._starts = [self._starts[r] for r in rows]
        self._skeys = [self._skeys[r] for r in rows]
        self._flat, self._sketch = None, None
        self._row_of = {int(pid): k for k, pid in enumerate(self._ids)}
        self._used = len(rows)

    # -- questions ----------------------------------------------------------------------

    def candidates_for(self, paper_id: int) -> list[tuple[int, float]]:
        """Verified near-duplicates of one paper as ``(other_id, score)``, best first."""
        self._settle()
        links = self._links.get(paper_id, {})
        return sorted(((b, m.score) for b, m in links.items()), key=lambda item: (-item[1], item[0]))

    def match(self, a: int, b: int) -> Match | None:
        """How paper ``b`` compares with paper ``a`` when they are linked (``a_is_shorter`` is a's)."""
        self._settle()
        return self._links.get(a, {}).get(b)

    def groups(
        self, exclude_pairs: Collection[tuple[int, int]] = (), progress: DedupProgress | None = None
    ) -> list[Candidate]:
        """All groups of linked papers, best first; no group holds a pair of ``exclude_pairs``
        (see ``groups.join``). ``progress`` hears how many candidate pairs are verified."""
        self.settle(progress)
        return join(self._links, lambda i: int(self._fps[self._row_of[i]]), exclude_pairs)

    # -- finding links ------------------------------------------------------------------

    def settle(self, progress: DedupProgress | None = None) -> None:
        """Find and verify the links of every text added since the last question (seconds for
        tens of thousands: ``progress`` hears how many candidate pairs are verified)."""
        self._settle(progress)

    def _settle(self, progress: DedupProgress | None = None) -> None:
        """Find and verify the links of every pending text."""
        if not self._pending:
            return
        pending = np.array([self._row_of[p] for p in self._pending], dtype=np.int64)
        if len(pending) < _SMALL_BATCH:
            pairs = np.concatenate([self._pairs_of(int(r)) for r in pending])
        else:
            pairs = self._all_pairs(pending)
        worth = self._worth_verifying(pairs, self._sentence_pairs(pending)).tolist()
        for done, (lo, hi) in enumerate(worth, 1):
            self._verify(lo, hi)
            if progress is not None and (done % _REPORT_EVERY == 0 or done == len(worth)):
                progress(done, len(worth), "checking pairs")
        self._pending.clear()

    def _worth_verifying(self, band_pairs: np.ndarray, sentence_pairs: np.ndarray) -> np.ndarray:
        """The candidate pairs worth verifying: those with enough evidence (``with_evidence``) whose
        sketches share enough content words, the likeliest MAX_CANDIDATES of each row."""
        pairs, exact = with_evidence(band_pairs, sentence_pairs, self._keys, self._fps, self._used)
        if not len(pairs):
            return pairs
        sketch = self._sketches(np.unique(pairs))
        a, b = sketch[pairs[:, 0]], sketch[pairs[:, 1]]
        both = np.bitwise_count(a & b).sum(axis=1)
        fewer = np.minimum(np.bitwise_count(a).sum(axis=1), np.bitwise_count(b).sum(axis=1))
        kept = exact | (both >= MIN_WORDS_SHARED * np.maximum(fewer, 1))
        pairs, share = pairs[kept], both[kept] / np.maximum(fewer[kept], 1) + exact[kept]
        return pairs[likeliest_per_row(pairs, share, MAX_CANDIDATES)]

    def _sketches(self, rows: np.ndarray) -> np.ndarray:
        """``(used, SKETCH_BITS // 64)`` bit sets of each text's content words, filled for ``rows``
        (a cheap estimate of how many words two texts share, before verifying them)."""
        if self._sketch is None or len(self._sketch) < self._used:
            grown = np.zeros((len(self._ids), SKETCH_BITS // 64), dtype=np.uint64)
            done = np.zeros(len(self._ids), dtype=bool)
            if self._sketch is not None:
                grown[: len(self._sketch)] = self._sketch
                done[: len(self._sketch_done)] = self._sketch_done
            self._sketch, self._sketch_done = grown, done
        todo = [r for r in rows[~self._sketch_done[rows]].tolist() if self._words[r] is not None]
        if todo:
            held = [cast(np.ndarray, self._words[r]) for r in todo]
            words = np.concatenate(held)
            owner = np.repeat(np.array(todo, dtype=np.int64), [len(w) for w in held])
            content = content_mask(words)
            bits = (words[content] % np.uint32(SKETCH_BITS)).astype(np.int64)
            flat = self._sketch.reshape(-1)
            cell = owner[content] * (SKETCH_BITS // 64) + (bits >> 6)
            np.bitwise_or.at(flat, cell, np.left_shift(np.uint64(1), (bits & 63).astype(np.uint64)))
        self._sketch_done[rows] = True
        return self._sketch

    def _pairs_of(self, row: int) -> np.ndarray:
        """Rows sharing a band bucket or the cleanup fingerprint with ``row``, as row pairs."""
        n = self._used
        hits = (self._keys[:n] == self._keys[row]).any(axis=1) | (self._fps[:n] == self._fps[row])
        hits &= self._live[:n]
        hits[row] = False
        others = np.flatnonzero(hits)
        return np.stack([np.minimum(others, row), np.maximum(others, row)], axis=1)

    def _sentence_pairs(self, pending: np.ndarray) -> np.ndarray:
        """Row pairs sharing a sentence key, one end pending (only the pending texts' keys are looked up)."""
        if self._flat is None:
            rows = [r for r in range(self._used) if self._live[r] and len(self._skeys[r])]
            keys = np.concatenate([self._skeys[r] for r in rows] or [np.zeros(0, np.uint32)])
            owners = np.repeat(np.array(rows, dtype=np.int64), [len(self._skeys[r]) for r in rows])
            order = np.argsort(keys, kind="stable")
            self._flat = (keys[order], owners[order])
        held = [self._skeys[r] for r in pending.tolist()]
        wanted = np.unique(np.concatenate(held or [np.zeros(0, np.uint32)]))
        keys, owners = self._flat
        return sentence_pairs(keys, owners, wanted, self._pending_mask(pending))

    def _pending_mask(self, pending: np.ndarray) -> np.ndarray:
        is_pending = np.zeros(self._used, dtype=bool)
        is_pending[pending] = True
        return is_pending

    def _all_pairs(self, pending: np.ndarray) -> np.ndarray:
        """Row pairs sharing a band bucket or the cleanup fingerprint, one end pending."""
        rows = np.flatnonzero(self._live[: self._used])
        is_pending = self._pending_mask(pending)
        same = fingerprint_pairs(self._fps, rows)
        same = np.sort(same, axis=1)[is_pending[same[:, 0]] | is_pending[same[:, 1]]]
        return unique_pairs(np.concatenate([same, band_pairs(self._keys, rows, is_pending)]), self._used)

    def _verify(self, lo: int, hi: int) -> None:
        a, b = int(self._ids[lo]), int(self._ids[hi])
        if b in self._links.get(a, ()):
            return
        words_a, words_b = self._words[lo], self._words[hi]
        if words_a is None or words_b is None:
            return
        self.checks += 1
        exact = bool(self._fps[lo] == self._fps[hi])
        match = compare(words_a, self._starts[lo], words_b, self._starts[hi], exact)
        if match.score >= self.threshold:
            self._links.setdefault(a, {})[b] = match
            self._links.setdefault(b, {})[a] = match.flipped()


def likeliest_per_row(pairs: np.ndarray, score: np.ndarray, limit: int) -> np.ndarray:
    """A mask of ``pairs`` (row pairs) keeping, for each row, its ``limit`` pairs of the highest
    ``score`` (ties by position): a pair stays when it is among the best of either of its rows."""
    keep = np.zeros(len(pairs), dtype=bool)
    if not len(pairs):
        return keep
    for end in (0, 1):
        rows = pairs[:, end]
        order = np.lexsort((-score, rows))  # by row, then best first
        ranked = rows[order]
        first = np.flatnonzero(np.r_[True, ranked[1:] != ranked[:-1]])
        rank = np.arange(len(order)) - np.repeat(first, np.diff(np.r_[first, len(order)]))
        keep[order[rank < limit]] = True
    return keep
