"""Derived stores carry data only: a planted or damaged cache runs nothing, is rebuilt."""

from __future__ import annotations

import os
import pickle
import zipfile
from pathlib import Path

import numpy as np
import pytest

from desk.core.dedup import NearDuplicateIndex
from desk.core.dedup.finder import CACHE_VERSION
from desk.core.library.facade import Library
from desk.core.store.derived_files import read_arrays, write_arrays


class _Boom:
    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (os.system, ("touch PWNED",))


def _groups(lib: Library) -> list[tuple[int, ...]]:
    return [g.ids for g in lib.duplicates.groups()]


def _with_variant(seeded_dir: Path, tmp_path: Path) -> list[tuple[int, ...]]:
    with Library(seeded_dir) as lib:
        words = lib.paper(lib.paper_ids()[5]).abstract.split()
        variant = tmp_path / "v2.txt"
        variant.write_text(f"Preprints\n\n{' '.join(words[: int(len(words) * 0.75)])}\n", encoding="utf-8")
        lib.import_paths([variant])
        return _groups(lib)


@pytest.mark.parametrize("name", ["near-duplicates.pickle", "near-duplicates.npz"])
def test_a_planted_pickle_in_the_cache_runs_nothing(
    seeded_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    whole = _with_variant(seeded_dir, tmp_path)
    assert len(whole) == 1
    cache = seeded_dir / "cache"
    for old in cache.iterdir():
        old.unlink()
    (cache / name).write_bytes(pickle.dumps((1, _Boom())))
    monkeypatch.chdir(tmp_path)
    with Library(seeded_dir) as lib:
        assert _groups(lib) == whole
    assert not (tmp_path / "PWNED").exists()
    assert not (cache / "near-duplicates.pickle").exists()  # the old format is dropped on save
    assert read_arrays(cache / "near-duplicates.npz", "desk-near-duplicates", CACHE_VERSION) is not None


def test_the_cache_round_trips_and_a_damaged_one_is_rebuilt(seeded_dir: Path, tmp_path: Path) -> None:
    whole = _with_variant(seeded_dir, tmp_path)
    cache = seeded_dir / "cache" / "near-duplicates.npz"
    assert cache.is_file()
    with Library(seeded_dir) as lib:
        assert _groups(lib) == whole
    data = bytearray(cache.read_bytes())
    for k in range(200, len(data), max(1, len(data) // 50)):
        data[k] ^= 0x5A
    cache.write_bytes(bytes(data))
    with Library(seeded_dir) as lib:
        assert _groups(lib) == whole
    assert read_arrays(cache, "desk-near-duplicates", CACHE_VERSION) is not None  # rewritten whole


def test_an_array_changed_with_its_zip_crc_still_fails_the_checksum(tmp_path: Path) -> None:
    path = tmp_path / "x.npz"
    write_arrays(path, "k", 1, {"a": np.arange(10, dtype=np.int64)})
    assert read_arrays(path, "k", 1) is not None
    assert read_arrays(path, "k", 2) is None and read_arrays(path, "other", 1) is None
    with zipfile.ZipFile(path) as z:
        members = {n: z.read(n) for n in z.namelist()}
    buf = tmp_path / "a.npy"
    np.save(buf, np.arange(1, 11, dtype=np.int64))
    members["a.npy"] = buf.read_bytes()
    with zipfile.ZipFile(path, "w") as z:
        for n, b in members.items():
            z.writestr(n, b)
    assert read_arrays(path, "k", 1) is None


def test_object_arrays_are_refused_both_ways(tmp_path: Path) -> None:
    path = tmp_path / "x.npz"
    with pytest.raises(ValueError):
        write_arrays(path, "k", 1, {"a": np.array([_Boom()], dtype=object)})
    np.savez(path, a=np.array([_Boom()], dtype=object))
    assert read_arrays(path, "k", 1) is None


def test_state_arrays_give_back_the_same_index(seeded: Library) -> None:
    texts = [seeded.paper(i).abstract for i in seeded.paper_ids()[:6]]
    words = texts[0].split()
    index = NearDuplicateIndex()
    index.add_many([*enumerate(texts, start=1), (7, " ".join(words[: len(words) * 3 // 4]))])
    before = index.groups()
    index.add(8, texts[2] + " with a few extra words")
    index.remove(3)
    copy = NearDuplicateIndex.from_state_arrays(index.state_arrays())
    assert copy.paper_ids() == index.paper_ids()
    assert copy.groups() == index.groups()
    assert [g.ids for g in before] == [(1, 7)] and len(copy.groups()) == 1
    copy.add(9, texts[3] + " and more")
    index.add(9, texts[3] + " and more")
    assert copy.groups() == index.groups() and len(index.groups()) == 2
    bad = index.state_arrays()
    bad["ids"] = bad["ids"][:-1]
    with pytest.raises(ValueError):
        NearDuplicateIndex.from_state_arrays(bad)
