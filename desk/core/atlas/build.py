"""A map from the papers' vectors and abstracts: the layout, the clusters and their labels.

A library that changed a little since its map (a few papers added or removed: at most
REBUILD_SHARE of the map) keeps its map: the papers gone are dropped, a paper added is placed
at the mean of its PLACE_NEIGHBOURS nearest mapped papers (by their vectors; the nearest weigh most) and joins
their most common cluster, as UMAP's own ``transform`` places new points. Beyond that the map is
laid out again, as it is when better vectors (the sentence encoder's) cover the library.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from desk.core.atlas import layout
from desk.core.atlas.clusters import find_clusters
from desk.core.atlas.labels import label_clusters
from desk.core.atlas.store import PaperMap
from desk.core.atlas.words import word_rows

Progress = Callable[[int, int], None]

REBUILD_SHARE = 0.1  # papers added or removed, as a share of the map, before it is laid out again
PLACE_NEIGHBOURS = 10
PLACE_SHARPNESS = 0.05  # cosine by which a neighbour's weight falls by e
SEED = 0  # the map's seed: the same library, the same map


def fit_square(xy: np.ndarray) -> np.ndarray:
    """``xy`` moved and scaled into [0, 1] x [0, 1], its longer side spanning it (the shape kept)."""
    if not len(xy):
        return np.zeros((0, 2), np.float32)
    low, high = xy.min(axis=0), xy.max(axis=0)
    span = float((high - low).max())
    centred = (xy - (low + high) / 2) / (span if span > 0 else 1.0) + 0.5
    return np.clip(centred, 0.0, 1.0).astype(np.float32)


def build(
    ids: np.ndarray,
    vectors: np.ndarray,
    texts: Sequence[str],
    source: str,
    seed: int = SEED,
    progress: Progress | None = None,
) -> PaperMap:
    """The map of the papers ``ids`` (ascending), with their ``vectors`` (rows) and abstracts
    ``texts``: the neighbour graph weighs both the vectors and the abstracts' words (layout.py),
    and the clusters are groups of that graph."""
    ids = np.asarray(ids, np.int64)
    total = 100

    def stage(start: int, width: int) -> Progress | None:
        if progress is None:
            return None
        return lambda done, of: progress(start + (width * done) // max(1, of), total)

    words = word_rows(texts) if len(ids) > 1 else None
    if progress is not None:
        progress(5, total)
    xy, graph, reduced = layout.lay_out(vectors, seed, stage(5, 80), words)
    groups = find_clusters(graph, reduced, seed)
    if progress is not None:
        progress(90, total)
    labels = label_clusters(texts, groups, seed) if len(ids) else []
    if progress is not None:
        progress(total, total)
    return PaperMap(ids, fit_square(xy), groups.astype(np.int32), tuple(labels), source, seed)


def changes(old: PaperMap, ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The ids of ``ids`` the map lacks, and the map's ids ``ids`` lacks."""
    ids = np.asarray(ids, np.int64)
    return np.setdiff1d(ids, old.ids, assume_unique=True), np.setdiff1d(old.ids, ids, assume_unique=True)


def needs_layout(old: PaperMap | None, ids: np.ndarray, source: str) -> bool:
    """Whether the map must be laid out again for the library's ``ids`` (rather than updated)."""
    if old is None or old.source != source or not len(old):
        return True
    added, removed = changes(old, ids)
    return len(added) + len(removed) + old.placed > REBUILD_SHARE * len(old)


def update(old: PaperMap, ids: np.ndarray, vectors: np.ndarray) -> PaperMap:
    """``old`` for the library's ``ids`` (ascending; ``vectors`` their unit rows, in that order):
    the papers gone dropped, those added placed beside their nearest mapped neighbours."""
    ids = np.asarray(ids, np.int64)
    added, removed = changes(old, ids)
    if not len(added) and not len(removed):
        return old
    keep = ~np.isin(old.ids, removed)
    kept_ids, kept_xy, kept_clusters = old.ids[keep], old.xy[keep], old.clusters[keep]
    if len(added) and len(kept_ids):
        kept_vectors = vectors[np.searchsorted(ids, kept_ids)]
        rows_of_added = np.searchsorted(ids, added)
        k = min(PLACE_NEIGHBOURS, len(kept_ids))
        near = np.empty((len(added), k), np.int64)
        near_sims = np.empty((len(added), k), np.float32)
        step = max(1, layout.PRODUCTS_AT_ONCE // len(kept_ids))
        for lo in range(0, len(added), step):  # a block of the added papers at a time
            sims = vectors[rows_of_added[lo : lo + step]] @ kept_vectors.T
            top = np.argpartition(sims, sims.shape[1] - k, axis=1)[:, sims.shape[1] - k :]
            near[lo : lo + step] = top
            near_sims[lo : lo + step] = np.take_along_axis(sims, top, axis=1)
        # the nearest count most: a neighbour 0.1 less alike weighs e^-2 as much
        weight = np.exp((near_sims - near_sims.max(axis=1, keepdims=True)) / PLACE_SHARPNESS)
        placed_xy = (kept_xy[near] * weight[:, :, None]).sum(axis=1) / weight.sum(axis=1, keepdims=True)
        votes = np.zeros((len(added), len(old.labels)))
        np.add.at(votes, (np.repeat(np.arange(len(added)), k), kept_clusters[near].ravel()), weight.ravel())
        placed_clusters = votes.argmax(axis=1)
    else:
        placed_xy = np.full((len(added), 2), 0.5, np.float32)
        placed_clusters = np.zeros(len(added), np.int64)
    all_ids = np.concatenate([kept_ids, added])
    order = np.argsort(all_ids, kind="stable")
    xy = np.concatenate([kept_xy, placed_xy.astype(np.float32)])[order]
    clusters = np.concatenate([kept_clusters, placed_clusters.astype(np.int32)])[order]
    placed = old.placed + len(added) + len(removed)
    return PaperMap(all_ids[order], xy, clusters.astype(np.int32), old.labels, old.source, old.seed, placed)
