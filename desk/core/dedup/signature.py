"""MinHash signatures (datasketch's ``affine32`` scheme, vectorised) and LSH band keys.

``datasketch.MinHash`` hashes and permutes one text at a time in Python; here its permutations
are applied to many texts' shingle fingerprints at once with numpy, giving the very hash values
``MinHash(num_perm, scheme="affine32", hashfunc=<the fingerprint>)`` gives, ten times faster.
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import cache
from itertools import pairwise

import numpy as np

from desk.core.dedup.shingles import mix64

SEED = 1
_CHUNK = 1 << 14  # shingles per block: 16k x 128 x 4 bytes = 8 MB per temporary


@cache
def permutations(num_perm: int) -> tuple[np.ndarray, np.ndarray]:
    """The affine permutations ``(a, b)`` that ``datasketch.MinHash(num_perm, seed=SEED,
    scheme="affine32")`` draws, drawn the same way here (importing datasketch takes 0.4 s;
    a test checks that the signatures are equal)."""
    gen = np.random.RandomState(SEED)
    a = gen.randint(0, 1 << 31, num_perm, dtype=np.uint32) * np.uint32(2) + np.uint32(1)
    b = gen.randint(0, 1 << 32, num_perm, dtype=np.uint32)
    return a, b


def fmix32(h: np.ndarray) -> np.ndarray:
    """The MurmurHash3 32-bit finalizer datasketch applies before permuting."""
    h = h ^ (h >> np.uint32(16))
    h = h * np.uint32(0x85EBCA6B)
    h = h ^ (h >> np.uint32(13))
    h = h * np.uint32(0xC2B2AE35)
    return h ^ (h >> np.uint32(16))


def _block(values: np.ndarray, offsets: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    permuted = a[:, None] * fmix32(values)[None, :]  # (num_perm, shingles): reduceat runs along rows
    permuted += b[:, None]
    return np.minimum.reduceat(permuted, offsets, axis=1).T


def signatures(sets: Sequence[np.ndarray], num_perm: int) -> np.ndarray:
    """A ``(len(sets), num_perm)`` uint32 array of MinHash values; every set must be non-empty."""
    a, b = permutations(num_perm)
    out = np.empty((len(sets), num_perm), dtype=np.uint32)
    if not sets:
        return out
    sizes = np.fromiter((len(s) for s in sets), dtype=np.int64, count=len(sets))
    starts = np.concatenate(([0], np.cumsum(sizes)))
    values = np.concatenate(sets)
    # Blocks of whole texts, about _CHUNK shingles each; numpy releases the GIL, so two threads use two cores.
    cuts = np.unique(np.searchsorted(starts, np.arange(0, starts[-1], _CHUNK), side="right") - 1)
    cuts = np.append(cuts, len(sets))
    jobs = [(int(lo), int(hi)) for lo, hi in pairwise(cuts.tolist()) if hi > lo]

    def run(job: tuple[int, int]) -> None:
        lo, hi = job
        out[lo:hi] = _block(values[starts[lo] : starts[hi]], starts[lo:hi] - starts[lo], a, b)

    if len(jobs) > 1:
        with ThreadPoolExecutor(max_workers=2) as pool:
            list(pool.map(run, jobs))
    else:
        run(jobs[0])
    return out


def band_keys(sigs: np.ndarray, rows: int) -> np.ndarray:
    """One 32-bit key per band of ``rows`` consecutive hash values: ``(n, num_perm // rows)``.

    Two different bands colliding in 32 bits only adds a candidate, which verification drops.
    """
    bands = sigs.shape[1] // rows
    grouped = sigs[:, : bands * rows].reshape(len(sigs), bands, rows).astype(np.uint64)
    keys = np.zeros((len(sigs), bands), dtype=np.uint64)
    for r in range(rows):
        keys = mix64(keys ^ grouped[:, :, r])
    return (keys >> np.uint64(32)).astype(np.uint32)
