"""The map's core: a layout and clusters that depend only on the vectors and the seed, and keep
groups together; labels that name what sets a cluster apart, distinct, acronyms spelled out; the
derived file that reads back or reads as absent."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from desk.core.atlas import build, layout, store
from desk.core.atlas.clusters import cluster_range, find_clusters
from desk.core.atlas.labels import label_clusters
from desk.core.atlas.store import PaperMap
from desk.core.atlas.words import pair_cosines, word_rows


def blobs(groups: int = 4, per: int = 60, dims: int = 64, seed: int = 3) -> tuple[np.ndarray, np.ndarray]:
    """Unit vectors around ``groups`` random directions, and the group of each."""
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((groups, dims))
    truth = np.repeat(np.arange(groups), per)
    points = centres[truth] + 0.35 * rng.standard_normal((len(truth), dims))
    return layout.unit_rows(points.astype(np.float32)), truth


@pytest.mark.slow
def test_the_same_vectors_and_seed_give_the_same_layout_and_clusters_and_another_seed_another() -> None:
    vectors, _ = blobs()
    a_xy, a_graph, a_reduced = layout.lay_out(vectors, seed=5)
    b_xy, _, _ = layout.lay_out(vectors, seed=5)
    c_xy, _, _ = layout.lay_out(vectors, seed=6)
    assert np.array_equal(a_xy, b_xy)
    assert not np.array_equal(a_xy, c_xy)
    assert np.array_equal(find_clusters(a_graph, a_reduced, 5), find_clusters(a_graph, a_reduced, 5))


def test_groups_of_like_vectors_stay_together_on_the_map_and_in_the_clusters() -> None:
    vectors, truth = blobs()
    xy, graph, reduced = layout.lay_out(vectors, seed=0)
    found = find_clusters(graph, reduced, 0)
    # every group lies (almost) whole in one cluster
    for g in range(4):
        assert np.bincount(found[truth == g]).max() >= 0.9 * np.sum(truth == g)
    # a point's ten nearest on the map are of its group
    d2 = ((xy[:, None, :] - xy[None, :, :]) ** 2).sum(axis=2)
    np.fill_diagonal(d2, np.inf)
    near = np.argsort(d2, axis=1)[:, :10]
    assert (truth[near] == truth[:, None]).mean() > 0.95


def test_memberships_sum_to_log2_k_and_the_graph_is_symmetric() -> None:
    vectors, _ = blobs(groups=2, per=30)
    idx, dist = layout.neighbours(vectors, 10)
    assert idx.shape == (60, 10) and not np.any(idx == np.arange(60)[:, None])
    weights = layout.memberships(dist)
    assert np.allclose(weights.sum(axis=1), np.log2(10), atol=1e-3)
    graph = layout.fuzzy_graph(idx, weights)
    assert abs(graph - graph.T).max() < 1e-6


@pytest.mark.parametrize("n", [0, 1, 2, 5])
def test_a_library_of_a_few_papers_or_none_still_has_a_map(n: int) -> None:
    vectors, _ = blobs(groups=1, per=max(n, 1))
    vectors = vectors[:n]
    made = build.build(np.arange(1, n + 1), vectors, ["a paper on point clouds"] * n, "lsa")
    assert len(made) == n and made.xy.shape == (n, 2)
    assert np.all((made.xy >= 0) & (made.xy <= 1))
    assert len(set(made.labels)) == len(made.labels)


def test_cluster_counts_stay_within_eight_to_eighty_for_a_large_library() -> None:
    assert cluster_range(2359) == (8, 80)
    assert cluster_range(100_000) == (8, 80)
    assert cluster_range(95) == (8, 9)
    assert cluster_range(12) == (1, 1)


def test_labels_name_what_sets_a_cluster_apart_distinct_and_an_acronym_spelled_out() -> None:
    nerf = [
        "We render scenes with neural radiance fields (NeRF). Our NeRF renders novel views fast.",
        "A NeRF for dynamic scenes: view synthesis of moving people with radiance.",
        "Faster NeRF training for view synthesis with hash grids.",
    ]
    clouds = [
        "Point cloud registration with LiDAR scans of streets.",
        "We segment a point cloud from LiDAR into parts.",
        "Completion of a partial point cloud captured by LiDAR.",
    ]
    same = ["Image classification with transformers."] * 3
    texts = nerf + clouds + same + same
    clusters = np.array([0] * 3 + [1] * 3 + [2] * 3 + [3] * 3)
    labels = label_clusters(texts, clusters)
    assert "neural radiance fields" in labels[0]
    assert "point cloud" in labels[1] and "LiDAR" in labels[1]
    assert len({label.casefold() for label in labels}) == 4
    assert all(1 <= len(label.replace(",", " ").split()) <= 6 for label in labels)


def sample_map() -> PaperMap:
    ids = np.array([3, 5, 9, 12], np.int64)
    xy = np.array([[0.1, 0.2], [0.2, 0.2], [0.8, 0.9], [0.9, 0.8]], np.float32)
    return PaperMap(ids, xy, np.array([0, 0, 1, 1], np.int32), ("point cloud, LiDAR", "diffusion"), "lsa", 0)


def test_the_map_file_reads_back_and_a_damaged_or_planted_one_reads_as_absent(tmp_path: Path) -> None:
    path = tmp_path / "cache" / store.FILE_NAME
    store.write(path, sample_map())
    back = store.read(path)
    assert back is not None
    assert np.array_equal(back.ids, sample_map().ids) and back.labels == sample_map().labels
    raw = path.read_bytes()
    where = raw.find(np.float32(0.9).tobytes())  # a paper moved by an edit of the file
    assert where > 0
    path.write_bytes(raw[:where] + np.float32(0.5).tobytes() + raw[where + 4 :])
    assert store.read(path) is None
    np.save(tmp_path / "planted.npy", np.array([object()], dtype=object), allow_pickle=True)
    assert store.read(tmp_path / "planted.npy") is None
    assert store.read(tmp_path / "missing.npz") is None


def test_a_paper_added_lands_beside_its_nearest_and_joins_their_cluster_and_one_removed_goes() -> None:
    old = sample_map()
    ids = np.array([3, 5, 9, 13], np.int64)  # 12 removed, 13 added
    vectors = layout.unit_rows(np.array([[1, 0], [1, 0.1], [0, 1], [0.05, 1]], np.float32))
    made = build.update(old, ids, vectors)
    assert made.ids.tolist() == [3, 5, 9, 13]
    assert made.clusters[3] == 1
    assert np.linalg.norm(made.xy[3] - old.xy[2]) < 0.05
    assert made.placed == 2
    assert build.needs_layout(made, ids, "lsa")  # 2 of 4 changed: more than a tenth
    assert build.needs_layout(made, ids, "minilm")


def test_the_cosines_of_word_rows_for_the_proposed_pairs_are_those_of_the_full_product() -> None:
    texts = ["video frames over time", "frames of a video clip", "graph nodes and edges", "edges of a graph"]
    texts.append("")
    rows = word_rows(texts)
    idx = np.array([[1, 2], [0, 3], [3, 0], [2, 4], [0, 1]], np.int32)
    full = (rows @ rows.T).toarray()
    assert np.allclose(pair_cosines(rows, idx), np.take_along_axis(full, idx, axis=1), atol=1e-6)
    assert pair_cosines(rows, idx)[0, 0] > 0.3 and pair_cosines(rows, idx)[4].tolist() == [0.0, 0.0]


def word_groups(seed: int = 4) -> tuple[np.ndarray, list[str], np.ndarray]:
    """150 papers whose vectors are all alike but whose abstracts repeat one of three sets of words."""
    rng = np.random.default_rng(seed)
    truth = np.repeat(np.arange(3), 50)
    points = rng.standard_normal(64) + 0.5 * rng.standard_normal((150, 64))
    vectors = layout.unit_rows(points.astype(np.float32))
    topics = [["video", "temporal", "frames"], ["graph", "nodes", "edges"], ["speech", "audio", "spoken"]]
    filler = ["image", "scene", "object", "shape", "texture", "color", "light", "camera", "depth", "pixel"]
    texts = [" ".join(topics[g] * 2 + list(rng.choice(filler, 4, replace=False))) for g in truth]
    return vectors, texts, truth


def test_papers_alike_in_meaning_are_told_apart_on_the_map_and_in_clusters_by_the_words_they_repeat() -> None:
    vectors, texts, truth = word_groups()
    made = build.build(np.arange(1, 151), vectors, texts, "lsa")
    d2 = ((made.xy[:, None, :] - made.xy[None, :, :]) ** 2).sum(axis=2)
    np.fill_diagonal(d2, np.inf)
    near = np.argsort(d2, axis=1)[:, :10]
    assert (truth[near] == truth[:, None]).mean() > 0.95
    # each cluster (8 at least, more than the three groups) holds papers of one group
    purity = sum(np.bincount(truth[made.clusters == c]).max() for c in range(len(made.labels))) / len(truth)
    assert purity > 0.9
    again = build.build(np.arange(1, 151), vectors, texts, "lsa")
    assert np.array_equal(made.xy, again.xy) and np.array_equal(made.clusters, again.clusters)
