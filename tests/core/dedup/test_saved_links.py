"""Near-duplicate groups from the saved links alone: the same answer as the whole index, without
loading every paper's hashes (at a million papers the whole index held ~2.5 GB in the window)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from desk.core.dedup.finder import CACHE_KIND, CACHE_VERSION, LINK_PART
from desk.core.dedup.groups import Candidate
from desk.core.library.facade import Library
from desk.core.store.derived_files import has_part, read_arrays, read_part, write_arrays
from tests.core.dev_texts import dev_abstracts

CACHE = Path("cache") / "near-duplicates.npz"


def _described(groups: list[Candidate]) -> list[tuple[Any, ...]]:
    return [
        (
            g.ids,
            g.similarity,
            g.exact_after_cleanup,
            g.kind,
            g.containment,
            [(x.a, x.b, x.match) for x in g.links],
        )
        for g in groups
    ]


def _variants(texts: list[str]) -> list[str]:
    """Real abstracts changed the ways near-duplicates arrive: cut short, numbers revised, a
    sentence dropped, spacing and quotes changed."""
    out = []
    for k, text in enumerate(texts):
        words = text.split()
        if k % 3 == 0:
            out.append(" ".join(words[: int(len(words) * 0.7)]))
        elif k % 3 == 1:
            out.append(
                re.sub(r"\d+(\.\d+)?", lambda m: str(len(m.group()) * 7), text) + " Code is available."
            )
        else:
            sentences = text.split(". ")
            out.append(". ".join(sentences[:1] + sentences[2:]) if len(sentences) > 2 else "  " + text)
    return out


def _write_list(path: Path, header: str, texts: list[str]) -> Path:
    path.write_text(header + "\n\n" + "\n\n".join(texts) + "\n", encoding="utf-8")
    return path


@pytest.fixture
def library_dir(tmp_path: Path) -> Path:
    """A library of 80 real abstracts and variants of 24 of them, its cache saved on close."""
    texts = dev_abstracts()[:80]
    directory = tmp_path / "lib"
    with Library(directory) as lib:
        lib.import_paths([_write_list(tmp_path / "a.txt", "CVPR Papers", texts)])
        lib.import_paths([_write_list(tmp_path / "b.txt", "Preprints", _variants(texts[:24]))])
        assert len(lib.duplicates.groups()) >= 10
    return directory


def _whole(directory: Path) -> list[tuple[Any, ...]]:
    """The groups the whole index gives (loaded first, as an import would)."""
    with Library(directory) as lib:
        lib.duplicates.finder.index()
        return _described(lib.duplicates.groups())


def test_groups_come_from_the_saved_links_alone_and_equal_the_whole_index(library_dir: Path) -> None:
    assert has_part(library_dir / CACHE, LINK_PART)
    with Library(library_dir) as lib:
        quick = _described(lib.duplicates.groups())
        assert lib.duplicates.finder._index is None  # nothing but the links was read
    assert quick == _whole(library_dir)


def test_papers_removed_and_pairs_ruled_out_are_reconciled_from_the_links(library_dir: Path) -> None:
    with Library(library_dir) as lib:
        groups = lib.duplicates.groups()
        lib.trash.delete([groups[0].ids[0]])
        lib.duplicates.mark_distinct(*groups[1].ids[:2])
        lib.duplicates.merge(groups[2].ids[0], groups[2].ids[1:])
    with Library(library_dir) as lib:
        quick = _described(lib.duplicates.groups())
        assert lib.duplicates.finder._index is None
    assert quick == _whole(library_dir)
    held = {i for q in quick for i in q[0]}
    assert groups[0].ids[0] not in held and groups[2].ids[1] not in held  # deleted, merged away
    assert not any(set(groups[1].ids[:2]) <= set(q[0]) for q in quick)


def test_papers_the_cache_never_hashed_make_the_whole_index_answer(library_dir: Path, tmp_path: Path) -> None:
    before = tmp_path / "before.npz"
    shutil.copy(library_dir / CACHE, before)
    texts = dev_abstracts()[80:100]
    with Library(library_dir) as lib:
        lib.import_paths([_write_list(tmp_path / "c.txt", "More", texts + _variants(texts[:3]))])
        expected = _described(lib.duplicates.groups())
    shutil.copy(before, library_dir / CACHE)  # as if another copy of desk added them and never saved
    with Library(library_dir) as lib:
        assert _described(lib.duplicates.groups()) == expected
        assert lib.duplicates.finder._index is not None


def test_a_cache_saved_before_links_were_a_part_is_read_whole_and_written_again(library_dir: Path) -> None:
    path = library_dir / CACHE
    expected = _whole(library_dir)
    arrays = read_arrays(path, CACHE_KIND, CACHE_VERSION)
    assert arrays is not None
    write_arrays(path, CACHE_KIND, CACHE_VERSION, arrays)  # no parts, as an older desk wrote it
    assert not has_part(path, LINK_PART)
    with Library(library_dir) as lib:
        assert _described(lib.duplicates.groups()) == expected
        assert lib.duplicates.finder._index is not None
    assert has_part(path, LINK_PART)


def test_a_part_is_read_alone_and_checked_alone(tmp_path: Path) -> None:
    path = tmp_path / "store.npz"
    arrays = {"small": np.arange(5, dtype=np.int64), "big": np.arange(1000, dtype=np.uint32)}
    write_arrays(path, "k", 1, arrays, parts={"p": ["small"]})
    part = read_part(path, "k", 1, "p")
    assert part is not None and list(part) == ["small"] and part["small"].tolist() == [0, 1, 2, 3, 4]
    assert read_part(path, "k", 1, "other") is None
    assert read_part(path, "k", 2, "p") is None and read_part(path, "x", 1, "p") is None
    with np.load(path, allow_pickle=False) as archive:
        held = {name: archive[name] for name in archive.files}
    held["small"] = held["small"] + 1  # a changed array under the header that described it
    np.savez(path, **held)
    assert read_part(path, "k", 1, "p") is None and read_arrays(path, "k", 1) is None
    with pytest.raises(ValueError):
        write_arrays(path, "k", 1, arrays, parts={"p": ["missing"]})
