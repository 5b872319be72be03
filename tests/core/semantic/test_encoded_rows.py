"""The sentence encoder's rows on disk: int8 codes with a scale a row, checked, mapped, converted."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from desk.core.semantic import encoded as encoded_module
from desk.core.semantic import encoded_files, rows8
from desk.core.semantic.encoded import EncodedVectors
from desk.core.semantic.store import SCALE, file_crc


def _unit_rows(n: int, seed: int = 3) -> np.ndarray:
    """Unit rows with cluster structure (as sentence vectors have), not uniform noise."""
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(8, rows8.DIMENSIONS))
    x = centres[rng.integers(0, 8, n)] + 0.7 * rng.normal(size=(n, rows8.DIMENSIONS))
    return (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.float32)


def _write_store(folder: Path, n: int = 300) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    ids = np.arange(1, n + 1, dtype=np.int64) * 3
    keys = np.arange(n, dtype=np.int64) + 1000
    floats = _unit_rows(n)
    EncodedVectors(folder, model_folder=None)._write(ids, keys, rows8.quantize(floats))
    return ids, keys, floats


def test_int8_rows_keep_cosines_and_nearest_neighbours_of_float_rows() -> None:
    floats = _unit_rows(2000)
    rows = rows8.quantize(floats)
    assert rows.dtype == rows8.ROW and rows.itemsize == 388
    query = floats[7]
    exact = floats @ query
    approx = rows8.products(rows, query)
    assert float(np.abs(approx - exact).max()) < 5e-3
    assert np.allclose(rows8.products_at(rows, np.array([5, 7, 1999]), query), approx[[5, 7, 1999]])
    top = set(np.argsort(-exact)[:10].tolist())
    assert len(top & set(np.argsort(-approx)[:10].tolist())) >= 9
    zero = rows8.quantize(np.zeros((1, rows8.DIMENSIONS), np.float32))
    assert float(zero["scale"][0]) == 0.0 and not zero["codes"].any()
    assert np.allclose(rows8.floats(rows), floats, atol=3e-3)


def test_rows_of_another_width_are_refused() -> None:
    with pytest.raises(ValueError):
        rows8.quantize(np.zeros((2, 192), np.float32))


def test_a_store_is_388_bytes_a_paper_read_through_a_mapping(tmp_path: Path) -> None:
    folder = tmp_path / "encoded"
    ids, keys, floats = _write_store(folder)
    size = (folder / "vectors.npy").stat().st_size
    assert len(ids) * 388 <= size <= len(ids) * 388 + 256  # the .npy header
    store = EncodedVectors(folder, model_folder=None)
    assert store.load() and store.vectors is not None and store.ids is not None
    assert not store.vectors.flags.owndata and not store.vectors.flags.writeable  # mapped, read-only
    assert np.array_equal(store.ids, ids) and np.array_equal(store.keys, keys)
    wanted = ids[[0, 10, 299]]
    cosines = store.cosines_of(floats[10], np.concatenate([wanted, [2]]))  # 2: no such paper
    assert np.allclose(cosines[:3], floats[[0, 10, 299]] @ floats[10], atol=5e-3) and cosines[3] == 0
    every = store.cosines_of(floats[10], ids)  # most papers: one pass over the mapping
    assert np.allclose(every, floats @ floats[10], atol=5e-3)
    assert np.allclose(store.unit_rows(), floats, atol=3e-3)


def _write_int16_store(folder: Path, ids: np.ndarray, keys: np.ndarray, floats: np.ndarray) -> None:
    """A store as version 2 wrote it: int16 unit rows times SCALE."""
    folder.mkdir(parents=True)
    int16 = np.rint(floats * SCALE).astype(np.int16)
    files = {}
    for name, array in (("ids", ids), ("keys", keys), ("vectors", int16)):
        path = folder / f"{name}.npy"
        np.save(path, array, allow_pickle=False)
        files[name] = {"crc32": file_crc(path), "size": path.stat().st_size}
    manifest = {
        "version": 2,
        "model": encoded_module.MODEL_NAME,
        "max_tokens": encoded_module.MAX_TOKENS,
        "count": len(ids),
        "files": files,
    }
    (folder / encoded_files.MANIFEST_NAME).write_text(json.dumps(manifest), encoding="utf-8")


def test_a_store_of_the_int16_format_is_converted_and_written_back(tmp_path: Path) -> None:
    folder = tmp_path / "encoded"
    ids = np.array([2, 5, 9, 40], np.int64)
    keys = np.array([11, 12, 13, 14], np.int64)
    floats = _unit_rows(4)
    _write_int16_store(folder, ids, keys, floats)
    old_size = (folder / "vectors.npy").stat().st_size
    store = EncodedVectors(folder, model_folder=None)
    assert store.load()  # read, not encoded again
    assert store.vectors is not None and store.vectors.dtype == rows8.ROW
    assert np.allclose(store.cosines_of(floats[1], ids), floats @ floats[1], atol=5e-3)
    manifest = json.loads((folder / encoded_files.MANIFEST_NAME).read_text(encoding="utf-8"))
    assert manifest["version"] == encoded_files.STORE_VERSION
    assert (folder / "vectors.npy").stat().st_size < old_size
    again = EncodedVectors(folder, model_folder=None)
    assert again.load() and np.array_equal(again.ids, ids) and np.array_equal(again.keys, keys)
    assert not again.vectors.flags.owndata  # this time mapped as it is


def test_a_conversion_is_not_written_over_a_store_changed_meanwhile(tmp_path: Path) -> None:
    folder = tmp_path / "encoded"
    ids, keys, floats = np.array([1, 2], np.int64), np.array([5, 6], np.int64), _unit_rows(2)
    _write_int16_store(folder, ids, keys, floats)
    read = (folder / encoded_files.MANIFEST_NAME).read_text(encoding="utf-8")
    store = EncodedVectors(folder, model_folder=None)
    assert store.load()
    (folder / encoded_files.MANIFEST_NAME).unlink()  # dropped since (a restore) ...
    store._convert(read)
    assert not (folder / encoded_files.MANIFEST_NAME).exists()  # ... and not written back


class _Boom:
    def __reduce__(self):  # unpickling this would run code
        return (Path.touch, (Path("/nonexistent-never-made"),))


@pytest.mark.parametrize("kind", ["pickled", "int16 labelled int8", "cut short", "flipped byte"])
def test_a_damaged_or_foreign_vectors_file_is_refused_and_pending(tmp_path: Path, kind: str) -> None:
    folder = tmp_path / "encoded"
    ids, _, _ = _write_store(folder, 50)
    path = folder / "vectors.npy"
    if kind == "pickled":
        with path.open("wb") as f:
            np.save(f, np.array([_Boom()] * 50, dtype=object), allow_pickle=True)
    elif kind == "int16 labelled int8":
        np.save(path, np.zeros((50, rows8.DIMENSIONS), np.int16), allow_pickle=False)
    elif kind == "cut short":
        path.write_bytes(path.read_bytes()[:-388])
    else:
        raw = bytearray(path.read_bytes())
        raw[-5] ^= 0x40
        path.write_bytes(bytes(raw))
        assert not EncodedVectors(folder, model_folder=None).load()  # the checksum
    if kind != "flipped byte":  # the manifest made to agree: the format itself is checked
        manifest = json.loads((folder / encoded_files.MANIFEST_NAME).read_text(encoding="utf-8"))
        manifest["files"]["vectors"] = {"crc32": file_crc(path), "size": path.stat().st_size}
        (folder / encoded_files.MANIFEST_NAME).write_text(json.dumps(manifest), encoding="utf-8")
    store = EncodedVectors(folder, model_folder=None)
    assert not store.load() and store.vectors is None
    assert not Path("/nonexistent-never-made").exists()
    wanted = EncodedVectors(folder, model_folder=tmp_path)  # a model "installed": the store is wanted
    assert wanted.pending(ids)
    assert wanted.problems(ids) == [f"{encoded_module.PROBLEM_PREFIX} missing, damaged or of another version"]
