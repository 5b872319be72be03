"""The map on disk: a derived file of arrays (desk.core.store.derived_files), never code.

``<library>/cache/map.npz`` holds each paper's id, its place (x, y in [0, 1]) and its cluster,
the clusters' labels (UTF-8 JSON as bytes: an archive of plain numbers reads no objects), the
vectors it was laid out from and the seed, with a SHA-256 over all of it. A file that does not
verify reads as absent: the map is laid out again.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from desk.core.store.derived_files import read_arrays, write_arrays

KIND = "paper-map"
VERSION = 1
FILE_NAME = "map.npz"
SOURCES = ("lsa", "minilm")  # what a map was laid out from (its index is stored)


@dataclass(frozen=True)
class PaperMap:
    """Every paper's place on the map and cluster, and the clusters' names."""

    ids: np.ndarray  # int64, ascending
    xy: np.ndarray  # float32, len(ids) x 2, within [0, 1] (the longer side spans it)
    clusters: np.ndarray  # int32, one a paper: an index of ``labels``
    labels: tuple[str, ...]
    source: str  # one of SOURCES
    seed: int
    placed: int = 0  # papers added since the layout, placed beside their nearest neighbours
    _rows: dict[int, int] = field(default_factory=dict, compare=False, repr=False)

    def __len__(self) -> int:
        return len(self.ids)

    def sizes(self) -> np.ndarray:
        """How many papers each cluster holds."""
        return np.bincount(self.clusters, minlength=len(self.labels))

    def centres(self) -> np.ndarray:
        """Where each cluster's label goes: the member nearest its members' mean (a member, so a
        curved cluster's label is on it, not in a gap); NaN for an empty cluster."""
        out = np.full((len(self.labels), 2), np.nan, np.float32)
        for c in range(len(self.labels)):
            members = self.xy[self.clusters == c]
            if len(members):
                mean = members.mean(axis=0)
                out[c] = members[np.argmin(((members - mean) ** 2).sum(axis=1))]
        return out

    def members(self, cluster: int) -> np.ndarray:
        """The ids of the papers in ``cluster`` (none for a cluster the map does not have)."""
        return self.ids[self.clusters == cluster] if 0 <= cluster < len(self.labels) else self.ids[:0]

    def row_of(self, paper_id: int) -> int | None:
        """The row of ``paper_id`` in the arrays, or None when it is not on the map."""
        row = int(np.searchsorted(self.ids, paper_id))
        return row if row < len(self.ids) and int(self.ids[row]) == paper_id else None


def write(path: Path, data: PaperMap) -> None:
    """Write the map atomically; OSError when it cannot be."""
    labels = np.frombuffer(json.dumps(list(data.labels)).encode("utf-8"), np.uint8)
    arrays: dict[str, np.ndarray] = {
        "ids": np.asarray(data.ids, np.int64),
        "xy": np.asarray(data.xy, np.float32),
        "clusters": np.asarray(data.clusters, np.int32),
        "labels": labels,
        "about": np.array([SOURCES.index(data.source), data.seed, data.placed], np.int64),
    }
    write_arrays(path, KIND, VERSION, arrays)


def read(path: Path) -> PaperMap | None:
    """The map in ``path``, or None when it is missing, damaged, altered or of another version."""
    arrays = read_arrays(path, KIND, VERSION)
    if arrays is None:
        return None
    try:
        ids, xy, clusters = arrays["ids"], arrays["xy"], arrays["clusters"]
        labels = json.loads(bytes(arrays["labels"]).decode("utf-8"))
        source, seed, placed = (int(v) for v in arrays["about"])
    except (KeyError, ValueError, UnicodeDecodeError, TypeError):
        return None
    n = len(ids)
    sound = (
        ids.dtype == np.int64
        and xy.shape == (n, 2)
        and clusters.shape == (n,)
        and isinstance(labels, list)
        and all(isinstance(label, str) for label in labels)
        and 0 <= source < len(SOURCES)
        and bool(np.all(np.diff(ids) > 0))
        and (not n or (int(clusters.min()) >= 0 and int(clusters.max()) < len(labels)))
        and bool(np.all(np.isfinite(xy)))
    )
    if not sound:
        return None
    return PaperMap(
        ids, xy.astype(np.float32), clusters.astype(np.int32), tuple(labels), SOURCES[source], seed, placed
    )
