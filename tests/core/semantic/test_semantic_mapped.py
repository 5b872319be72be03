"""The semantic vectors mapped from their file: the window holds the pages a product reads, not the
whole store (384 MB at a million papers), and the answers are the held arrays' own."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest
from semantic_corpus import ALL, write_list
from test_mapped_release import _resident_kb as _mapped_kb

from desk.core.library.facade import Library
from desk.core.semantic import store
from desk.core.semantic.lsa import LsaModel, Vocabulary
from desk.core.semantic.store import Vectors


@pytest.fixture
def topics(tmp_path: Path):
    lib = Library(tmp_path / "lib")
    lib.import_paths([write_list(tmp_path / "topics.txt", ALL)])
    yield lib
    lib.close()


def _random_store(folder: Path, rows: int, dims: int = 64, seed: int = 3) -> Vectors:
    rng = np.random.default_rng(seed)
    vecs = rng.standard_normal((rows, dims)).astype(np.float32)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    vecs[5] = 0  # an abstract of unknown words
    words = [f"w{i}" for i in range(10)]
    components = rng.standard_normal((10, dims)).astype(np.float32)
    model = LsaModel(Vocabulary(words, np.ones(10, np.float32)), components)
    data = Vectors(np.arange(1, rows + 1, dtype=np.int64) * 3, vecs, model, rows)
    store.write(folder, data)
    return data


def _resident_kb(path: Path) -> int | None:
    """Resident kB of this process's mappings of ``path``, None without /proc."""
    return _mapped_kb(str(path))  # a mapping's path ends with the path only when it is the path


def test_vectors_are_mapped_and_answer_as_the_held_arrays(tmp_path: Path) -> None:
    """store.read maps the int16 vectors (read-only, not owning their memory); products, rows and
    cosines equal those of the same arrays held in memory, bit for bit."""
    held = _random_store(tmp_path / "vectors", 9_000)
    data = store.read(tmp_path / "vectors")
    assert data.pages is not None
    assert not data.vectors.flags.writeable and not data.vectors.flags.owndata
    assert data.vectors.dtype == np.int16 and np.array_equal(data.vectors, held.vectors)
    query = held.rows(7)
    assert np.array_equal(data.products(query), held.products(query))
    picked = np.array([0, 5, 4_321, 8_999])
    assert np.array_equal(data.rows(picked), held.rows(picked))
    assert np.array_equal(data.rows(slice(None)), held.rows(slice(None)))


@pytest.mark.parametrize("order", ["C", "F"])  # F: as lsa.fit leaves them (a product's transpose)
def test_the_components_are_mapped_and_place_a_query_as_the_held_ones(tmp_path: Path, order: str) -> None:
    """store.read maps the float32 components too (a query reads its few words' rows: reading the
    whole file was ~3 ms of a `desk search` at 10k papers), in the order np.load gives; a query and
    papers are placed as by the components held in memory, and a store written again leaves the
    mapped ones as they were."""
    held = _random_store(tmp_path / "vectors", 200)
    if order == "F":
        model = LsaModel(held.model.vocabulary, np.asfortranarray(held.model.components))
        held = Vectors(held.ids, held.vectors, model, held.fitted_on)
        store.write(tmp_path / "vectors", held)
    data = store.read(tmp_path / "vectors")
    components = data.model.components
    assert not components.flags.writeable and not components.flags.owndata
    assert components.dtype == np.float32 and np.array_equal(components, held.model.components)
    loaded = np.load(tmp_path / "vectors" / "components.npy")
    assert components.strides == loaded.strides and components.flags.f_contiguous == (order == "F")
    docs = [["w1", "w3", "w3"], ["w9"], ["nothing"], ["w0", "w2", "w4", "w6", "w8"]]
    assert np.array_equal(data.model.encode_terms(docs), held.model.encode_terms(docs))
    _random_store(tmp_path / "vectors", 200, seed=4)  # replaced beside the mapping
    assert np.array_equal(components, held.model.components)
    assert not np.array_equal(store.read(tmp_path / "vectors").model.components, components)


def test_a_product_gives_the_mapped_pages_back(tmp_path: Path) -> None:
    """After a product (every row read) and a gather of rows, the file's pages are not left in the
    process's resident memory: 20,000 x 64 int16 rows are 2.5 MB mapped."""
    folder = tmp_path / "vectors"
    held = _random_store(folder, 20_000)
    data = store.read(folder)
    path = (folder / "vectors.npy").resolve()
    if _resident_kb(path) is None:
        pytest.skip("no /proc/self/smaps here")
    np.asarray(data.vectors).sum()  # every page touched, as a product without release would
    assert (_resident_kb(path) or 0) > 2_000
    assert np.array_equal(data.products(held.rows(3)), held.products(held.rows(3)))
    assert (_resident_kb(path) or 0) <= 8  # at most the pages at either end of the last chunk
    data.rows(np.arange(0, 20_000, 7))
    assert (_resident_kb(path) or 0) <= 8


def test_a_store_written_again_leaves_the_mapped_vectors_as_they_were(tmp_path: Path) -> None:
    """store.write replaces the file: vectors mapped before still read the store they were read from."""
    folder = tmp_path / "vectors"
    first = _random_store(folder, 3_000, seed=1)
    mapped = store.read(folder)
    assert mapped.pages is not None
    second = _random_store(folder, 3_000, seed=2)
    assert np.array_equal(mapped.vectors, first.vectors)
    assert np.array_equal(store.read(folder).vectors, second.vectors)


def test_the_library_uses_its_vectors_mapped_after_ensure_and_load(topics: Library) -> None:
    """ensure builds in memory, writes, then uses the written store mapped; so does load; searches
    answer the same either way."""
    assert topics.discovery.ensure_vectors() == "built"
    current = topics.vectors.current
    assert current is not None and current.pages is not None
    mapped = [(h.id, h.score) for h in topics.search_ids("radiance field", 20).hits]
    held = Vectors(current.ids, np.array(current.vectors), current.model, current.fitted_on)
    topics.vectors._set(held)
    assert [(h.id, h.score) for h in topics.search_ids("radiance field", 20).hits] == mapped
    with Library(topics.directory) as again:
        again.vectors.load()
        assert again.vectors.current is not None and again.vectors.current.pages is not None


def test_the_window_writes_a_float_store_again_as_int16(topics: Library) -> None:
    """A float store (written before int16) is read whole; the window's build process writes the
    same vectors again as int16 (mapped from then on), saying nothing changed."""
    topics.discovery.ensure_vectors()
    folder = topics.directory / store.DIR_NAME
    path = folder / "vectors.npy"
    floats = store.read(folder).rows(slice(None))
    np.save(folder / "old.npy", floats.astype(np.float16), allow_pickle=False)
    os.replace(folder / "old.npy", path)
    meta = json.loads((folder / store.MANIFEST_NAME).read_text())
    meta["files"]["vectors"]["crc32"] = store.file_crc(path)
    (folder / store.MANIFEST_NAME).write_text(json.dumps(meta))
    with Library(topics.directory) as again:
        assert not again.discovery.vectors_pending()
        current = again.vectors.current
        assert current is not None and current.pages is None  # held whole, quantized
        assert again.discovery.ensure_vectors_elsewhere() is None
        assert not store.stored_as_floats(folder)
        current = again.vectors.current
        assert current is not None and current.pages is not None
        assert again.discovery.ensure_vectors_elsewhere() is None  # nothing left to do
