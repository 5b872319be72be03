"""The semantic signal: LSA against numpy's SVD, the fused ranking, related papers, the vector store."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest
from dev_texts import needs_dev_corpus
from semantic_corpus import ALL, NERF, POINTS, SPEECH, write_list

from desk.core.library.facade import Library
from desk.core.semantic import lsa, store
from desk.core.semantic.store import StoreError, StoreState


@pytest.fixture
def topics(tmp_path: Path):
    lib = Library(tmp_path / "lib")
    lib.import_paths([write_list(tmp_path / "topics.txt", ALL)])
    yield lib
    lib.close()


def _id_of(lib: Library, text_start: str) -> int:
    for p in lib.papers(lib.paper_ids()):
        if p.abstract.startswith(text_start):
            return p.id
    raise AssertionError(text_start)


# ---- LSA ---------------------------------------------------------------------------------------


def test_randomized_svd_matches_numpy_on_a_low_rank_matrix() -> None:
    rng = np.random.default_rng(1)
    dense = (rng.random((60, 5)) @ rng.random((5, 40))).astype(np.float32)
    dense[dense < np.quantile(dense, 0.3)] = 0  # sparse-ish, still close to rank 5
    rows = [np.flatnonzero(r) for r in dense]
    indptr = np.concatenate([[0], np.cumsum([len(r) for r in rows])])
    sparse = lsa.Sparse(indptr, np.concatenate(rows).astype(np.int32), dense[dense != 0], dense.shape)
    m = rng.standard_normal((40, 3)).astype(np.float32)
    assert np.allclose(sparse.dot(m), dense @ m, atol=1e-4)
    assert np.allclose(sparse.transpose().dot(rng.random((60, 2)).astype(np.float32)).shape, (40, 2))
    _, s, _ = lsa.randomized_svd(sparse, 5)
    exact = np.linalg.svd(dense, compute_uv=False)[:5]
    assert np.allclose(s, exact, rtol=1e-3)


def test_lsa_places_a_text_near_its_topic() -> None:
    docs = [lsa.terms(t) for t in NERF + POINTS + SPEECH]
    model = lsa.fit(docs)
    vecs = model.encode(NERF + POINTS + SPEECH)
    query = model.encode(["radiance"])[0]
    best = np.argsort(-(vecs @ query))[:5]
    assert set(best.tolist()) == set(range(5))  # the NeRF papers
    assert not model.encode(["zzz unknown words"]).any()  # unknown words: a zero vector


def test_fit_reads_its_dimensions_at_the_call(monkeypatch: pytest.MonkeyPatch) -> None:
    """A benchmark's setting of DIMENSIONS takes effect (a default bound at import ignored it)."""
    docs = [lsa.terms(t) for t in NERF + POINTS + SPEECH]
    assert lsa.fit(docs).components.shape[1] == 3  # 15 papers: at most 15 // 4 dimensions
    monkeypatch.setattr(lsa, "DIMENSIONS", 2)
    assert lsa.fit(docs).components.shape[1] == 2
    assert lsa.fit(docs, k=1).components.shape[1] == 1


# ---- the fused ranking ---------------------------------------------------------------------------


def test_fused_search_finds_a_paraphrase_bm25_alone_misses(topics: Library) -> None:
    target = _id_of(topics, "A NeRF of a moving human")
    lexical = [r.paper.id for r in topics.search("radiance", limit=20).rows]
    assert target not in lexical  # before the vectors exist: words only, and it lacks the word
    assert topics.discovery.ensure_vectors() == "built"
    fused = topics.search("radiance", limit=10)
    ids = [r.paper.id for r in fused.rows]
    assert target in ids
    assert set(ids[: len(lexical)]) == set(lexical)  # every paper holding the word still comes first
    assert fused.total == len(lexical) + sum(1 for r in fused.rows if r.paper.id not in lexical)


def test_papers_join_on_meaning_only_when_about_as_near_as_the_words_matches() -> None:
    """A word the library holds (a rare name) matches its papers at a cosine far above the rest:
    the rest, at chance cosines, do not join. Without word matches the absolute floor holds."""
    from desk.core.semantic import fusion

    cosine = np.array([0.30, 0.28, 0.32, 0.08, 0.06, 0.20, 0.02], np.float32)
    everyone = np.arange(len(cosine))
    found = [(0, 1, 5.0), (1, 1, 4.0), (2, 1, 3.0)]  # the words' matches, best first
    joined = fusion.nearest(cosine, everyone, found)
    assert [d for d, _ in joined] == [5]  # 0.20 ≥ half the matches' median 0.30; 0.08 is chance
    assert fusion.join_floor(cosine, found) == pytest.approx(fusion.JOIN_SHARE * 0.30)
    assert {d for d, _ in fusion.nearest(cosine, everyone, [])} == {0, 1, 2, 3, 4, 5}
    far = [(6, 1, 2.0)]  # a match far in meaning itself: the floor is MIN_COSINE, not below
    assert fusion.join_floor(cosine, far) == fusion.MIN_COSINE


def test_a_query_product_runs_blas_on_one_thread(topics: Library, monkeypatch: pytest.MonkeyPatch) -> None:
    """A query's matrix-vector product never lets BLAS spin a second thread against the window's."""
    from threadpoolctl import threadpool_info

    assert topics.discovery.ensure_vectors() == "built"
    seen: list[int] = []
    product = store._chunk_product

    def recording(block: np.ndarray, query: np.ndarray, out: np.ndarray) -> None:
        seen.extend(i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas")
        product(block, query, out)

    monkeypatch.setattr(store, "_chunk_product", recording)
    ids = np.asarray(sorted(topics.paper_ids()), np.int64)
    vec = topics.vectors.vector_of(int(ids[0]))
    assert vec is not None
    cos = topics.vectors.cosines(vec, ids)
    assert cos[0] == pytest.approx(1.0, abs=1e-4)
    assert seen and set(seen) == {1}
    assert any(i["user_api"] == "blas" for i in threadpool_info())  # BLAS itself is left as it was


def test_filters_keep_meaning_alone_out(topics: Library) -> None:
    topics.discovery.ensure_vectors()
    target = _id_of(topics, "A NeRF of a moving human")
    assert target not in [r.paper.id for r in topics.search("radiance -speech", limit=20).rows]
    assert target not in [r.paper.id for r in topics.search("radiance is:starred", limit=20).rows]


def test_related_papers_use_meaning(topics: Library) -> None:
    topics.discovery.ensure_vectors()
    target = _id_of(topics, "A NeRF of a moving human")
    nerf = {_id_of(topics, t[:30]) for t in NERF}
    related = [r.paper.id for r in topics.discovery.related(target, limit=5).rows]
    assert set(related) == nerf and target not in related


# ---- the vector store ----------------------------------------------------------------------------


def _vectors_dir(lib: Library) -> Path:
    return lib.directory / store.DIR_NAME


def test_store_is_built_after_import_not_during(topics: Library) -> None:
    assert store.state(_vectors_dir(topics)) is StoreState.MISSING  # the import did not build it
    assert topics.search("point cloud").rows  # the list and search work meanwhile
    topics.discovery.ensure_vectors()
    assert store.state(_vectors_dir(topics)) is StoreState.OK
    assert topics.discovery.ensure_vectors() is None  # up to date: nothing to do
    assert topics.check() == [] and topics.discovery.vectors_repaired is None


def test_store_missing_is_rebuilt(topics: Library) -> None:
    topics.discovery.ensure_vectors()
    for p in _vectors_dir(topics).iterdir():
        p.unlink()
    with Library(topics.directory) as again:
        assert again.discovery.vector_problems() == ["semantic vectors: there are no semantic vectors"]
        assert again.check() == []
        assert store.state(_vectors_dir(again)) is StoreState.OK


def test_store_corrupted_is_found_by_check_and_rebuilt(topics: Library) -> None:
    topics.discovery.ensure_vectors()
    path = _vectors_dir(topics) / "vectors.npy"
    data = bytearray(path.read_bytes())
    data[-5] ^= 0xFF
    path.write_bytes(bytes(data))
    with Library(topics.directory) as again:
        assert any("checksum" in p for p in again.discovery.vector_problems())
        assert again.check() == []
        assert again.discovery.vectors_repaired == "rebuilt (corrupt)"
        assert again.discovery.vector_problems() == []


def test_store_of_another_version_is_rebuilt(topics: Library) -> None:
    topics.discovery.ensure_vectors()
    manifest = _vectors_dir(topics) / store.MANIFEST_NAME
    meta = json.loads(manifest.read_text())
    meta["version"] = store.STORE_VERSION + 1
    manifest.write_text(json.dumps(meta))
    assert store.state(_vectors_dir(topics)) is StoreState.OLD_VERSION
    with Library(topics.directory) as again:
        assert again.discovery.ensure_vectors() == "rebuilt (old version)"
        assert store.state(_vectors_dir(again)) is StoreState.OK


def test_store_stale_after_import_is_updated(topics: Library, tmp_path: Path) -> None:
    topics.discovery.ensure_vectors()
    more = ["Point cloud denoising removes outliers from noisy scans of points with a graph network."]
    topics.import_paths([write_list(tmp_path / "more.txt", more)])
    problems = topics.discovery.vector_problems()
    # LSA's store, then the sentence encoder's where its model is installed
    assert len(problems) == 1 + topics.encoded.available
    assert all("1 papers missing from the store" in p for p in problems)
    assert topics.discovery.ensure_vectors() == "updated"  # placed by the fitted model, no refit
    assert topics.discovery.vector_problems() == []
    new = _id_of(topics, "Point cloud denoising")
    assert new in [r.paper.id for r in topics.discovery.related(_id_of(topics, POINTS[0][:30]), limit=5).rows]


def test_store_never_unpickles(topics: Library) -> None:
    topics.discovery.ensure_vectors()
    folder = _vectors_dir(topics)
    planted = folder / "ids.npy"
    np.save(planted, np.array([object()], dtype=object), allow_pickle=True)
    meta = json.loads((folder / store.MANIFEST_NAME).read_text())
    meta["files"]["ids"] = {"shape": [1], "crc32": store.file_crc(planted)}
    (folder / store.MANIFEST_NAME).write_text(json.dumps(meta))
    with pytest.raises(StoreError) as err:
        store.read(folder)
    assert err.value.state is StoreState.CORRUPT


def test_a_build_elsewhere_cancelled_kills_its_process_and_does_nothing(topics: Library) -> None:
    import multiprocessing
    import threading

    cancel = threading.Event()
    cancel.set()  # the window closed as the build began
    assert topics.discovery.ensure_vectors_elsewhere(cancel) is None
    assert not multiprocessing.active_children()  # the build's process was killed and reaped
    assert topics.discovery.vectors_pending()  # not built here instead: the next opening builds it
    assert store.state(_vectors_dir(topics)) is not StoreState.OK
    assert topics.discovery.ensure_vectors_elsewhere() == "built"  # nothing left half-done in the way
    assert topics.check() == []


def test_vectors_are_held_and_stored_as_int16_and_float_stores_read_alike(topics: Library) -> None:
    """The vectors are held and written as int16 (half of float32's memory: 384 MB, not 768, at a
    million papers), a search reads the file as it is, the cosines are float32's within 1e-4, and
    a store written as float16 or float32 before reads as the same vectors and is written again."""
    topics.discovery.ensure_vectors()
    folder = _vectors_dir(topics)
    on_disk = np.load(folder / "vectors.npy", allow_pickle=False)
    assert on_disk.dtype == np.int16
    data = store.read(folder)
    assert data.vectors.dtype == np.int16 and np.array_equal(data.vectors, on_disk)
    floats = data.rows(slice(None))
    assert floats.dtype == np.float32
    norms = np.linalg.norm(floats, axis=1)
    assert np.allclose(norms[norms > 0], 1.0, atol=1e-3)
    query = floats[3]
    assert np.allclose(data.products(query), floats @ query, atol=1e-5)
    exact = floats / np.maximum(norms, 1e-9)[:, None]
    assert np.abs(data.products(query) - exact @ query).max() < 1e-4
    path = folder / "vectors.npy"
    for dtype in (np.float16, np.float32):  # as sessions 6 and 7 wrote them (a new file replacing
        # the old, as store.write does: the store read above maps the file it opened)
        np.save(folder / "old.npy", floats.astype(dtype), allow_pickle=False)
        os.replace(folder / "old.npy", path)
        meta = json.loads((folder / store.MANIFEST_NAME).read_text())
        meta["files"]["vectors"]["crc32"] = store.file_crc(path)
        (folder / store.MANIFEST_NAME).write_text(json.dumps(meta))
        old = store.read(folder)
        assert old.vectors.dtype == np.int16
        assert np.abs(old.vectors.astype(np.int32) - data.vectors).max() <= 8  # 8 / 32767 < 3e-4
        assert store.stored_as_floats(folder)
        with Library(topics.directory) as again:  # the next ensure writes them as int16
            assert again.discovery.ensure_vectors() is None
        assert not store.stored_as_floats(folder)
        assert np.load(path, allow_pickle=False).dtype == np.int16


def test_a_query_vectors_cosines_are_kept_while_its_last_word_is_typed(topics: Library) -> None:
    """As a prefix grows letter by letter the query's vector is the same: the product is not redone,
    and the kept answer is the product's own (a search answers the same with it as without)."""
    assert topics.discovery.ensure_vectors() == "built"
    sem = topics.vectors
    ids = np.asarray(sorted(topics.paper_ids()), np.int64)
    vec = sem.vector_of(int(ids[0]))
    other = sem.vector_of(int(ids[1]))
    assert vec is not None and other is not None
    first = sem.cosines(vec, ids)
    assert sem.cosines(vec.copy(), ids) is first  # kept: an equal vector, the same papers
    assert not first.flags.writeable
    fresh = sem.cosines(other, ids)
    assert fresh is not first and not np.array_equal(fresh, first)
    sem._cosines.clear()
    assert np.array_equal(sem.cosines(vec, ids), first)  # what the product gives again
    typed = ["radiance f", "radiance fi", "radiance fie", "radiance fiel", "radiance field"]
    kept = [[(h.id, h.score) for h in topics.search_ids(t + "*", 20).hits] for t in typed]
    cold = []
    for t in typed:
        sem._cosines.clear()
        cold.append([(h.id, h.score) for h in topics.search_ids(t + "*", 20).hits])
    assert kept == cold


def test_a_one_shot_read_skips_the_crcs_of_files_as_written_and_checks_any_other(
    topics: Library, monkeypatch: pytest.MonkeyPatch
) -> None:
    """store.read(verify="changed") (a command-line search): files whose size and time are those
    vectors.json recorded at the write are not read for their CRC; a file written since (another
    time) is, and fails. A change that keeps a file's size and time is found by the full read
    (the window, desk check), not by the one-shot one: the trade the module's doc states."""
    topics.discovery.ensure_vectors()
    folder = _vectors_dir(topics)
    entries = json.loads((folder / store.MANIFEST_NAME).read_text(encoding="utf-8"))["files"]
    for name, entry in entries.items():
        info = (folder / f"{name}.npy").stat()
        assert (entry["size"], entry["mtime_ns"]) == (info.st_size, info.st_mtime_ns)
    crcs: list[Path] = []
    real_crc = store.file_crc
    monkeypatch.setattr(store, "file_crc", lambda path: crcs.append(path) or real_crc(path))
    whole, quick = store.read(folder), store.read(folder, verify="changed")
    assert len(crcs) == len(store.ARRAYS)  # the full read's only
    assert np.array_equal(whole.ids, quick.ids) and np.array_equal(whole.vectors, quick.vectors)
    assert np.array_equal(whole.model.components, quick.model.components)
    path = folder / "idf.npy"
    data = bytearray(path.read_bytes())
    data[-1] ^= 0xFF
    info = path.stat()
    path.write_bytes(bytes(data))
    os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns + 1_000_000))  # written later
    with pytest.raises(StoreError) as changed:
        store.read(folder, verify="changed")
    assert changed.value.state is StoreState.CORRUPT
    os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns))  # size and time as recorded
    store.read(folder, verify="changed")
    assert store.state(folder) is StoreState.CORRUPT  # the full read finds it


def test_a_store_written_before_sizes_were_recorded_is_checked_whole(topics: Library) -> None:
    topics.discovery.ensure_vectors()
    folder = _vectors_dir(topics)
    manifest = json.loads((folder / store.MANIFEST_NAME).read_text(encoding="utf-8"))
    for entry in manifest["files"].values():
        del entry["size"], entry["mtime_ns"]
    (folder / store.MANIFEST_NAME).write_text(json.dumps(manifest), encoding="utf-8")
    assert store.read(folder, verify="changed").ids.size
    path = folder / "idf.npy"
    data = bytearray(path.read_bytes())
    data[-1] ^= 0xFF
    info = path.stat()
    path.write_bytes(bytes(data))
    os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns))
    with pytest.raises(StoreError):
        store.read(folder, verify="changed")


# ---- which cosines a search reads --------------------------------------------------------------


@pytest.fixture
def real(tmp_path: Path):
    from dev_texts import dev_abstracts

    lib = Library(tmp_path / "real")
    lib.import_paths([write_list(tmp_path / "real.txt", dev_abstracts()[:400])])
    assert lib.discovery.ensure_vectors() == "built"
    yield lib
    lib.close()


@needs_dev_corpus
def test_cosines_of_some_papers_equal_the_product_over_all(real: Library) -> None:
    sem = real.vectors
    ids = np.asarray(sorted(real.paper_ids()), np.int64)
    vec = sem.vector_of(int(ids[3]))
    assert vec is not None
    every = sem.cosines(vec, ids)
    some = ids[[5, 0, 77, 3, 200]]
    # BLAS may sum a lone row in another order than a block's: equal to the last bit or two
    assert np.allclose(sem.cosines_of(vec, some), every[[5, 0, 77, 3, 200]], rtol=1e-6, atol=1e-7)
    assert np.array_equal(sem.cosines_of(vec, np.asarray([10**9], np.int64)), np.zeros(1, np.float32))


@pytest.mark.slow
@needs_dev_corpus
def test_a_query_whose_words_fill_a_page_reads_only_its_hits_cosines(
    real: Library, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The product over every paper is skipped once the words find JOIN_BELOW papers: nothing would
    join on a page. The page is what the full product ranks, and the total counts the matches."""
    from desk.core.search import searching
    from desk.core.search.rescore import RESCORE_DEPTH
    from desk.core.semantic import fusion

    assert fusion.JOIN_BELOW <= RESCORE_DEPTH  # every match is in hand when papers may join
    query = "image segmentation"
    with monkeypatch.context() as always:  # the product over every paper, as before JOIN_BELOW
        always.setattr(searching, "JOIN_BELOW", 10**9)
        full = [(h.id, h.score) for h in real.search_ids(query, 50).hits]
    real.vectors._cosines.clear()

    products = store.Vectors.products
    computed: list[int] = []

    def counted(self: store.Vectors, query: np.ndarray) -> np.ndarray:
        computed.append(len(self.ids))
        return products(self, query)

    monkeypatch.setattr(store.Vectors, "products", counted)
    result = real.search_ids(query, 50)
    assert computed == []
    assert result.total >= fusion.JOIN_BELOW
    assert [h.id for h in result.hits] == [i for i, _ in full]
    assert [h.score for h in result.hits] == pytest.approx([s for _, s in full], rel=1e-6)
    vectors, encoded = real.index.semantic, real.index.encoded
    real.index.semantic = real.index.encoded = None
    try:
        assert real.search_ids(query, 50).total == result.total  # no paper joined on meaning alone
    finally:
        real.index.semantic, real.index.encoded = vectors, encoded
    few = real.search_ids("radiance", 50)  # few matches: the nearest papers in meaning join
    assert computed == [400]
    real.index.semantic = real.index.encoded = None
    try:
        words = real.search_ids("radiance", 50)
    finally:
        real.index.semantic, real.index.encoded = vectors, encoded
    assert 0 < words.total < fusion.JOIN_BELOW and few.total > words.total
    assert {h.id for h in words.hits} < {h.id for h in few.hits}
