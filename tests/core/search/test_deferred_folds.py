"""The window's edits: searchable without folding earlier edits' segments, folded when it is idle.

A Library opened with ``defer_folds`` (as the window opens it) commits each star or note as a
segment of its own; ``fold_edits()`` (the window's idle moment) folds them as an edit's commit
would have, and a run of edits with no pause still folds once MAX_DEFERRED_SEGMENTS wait.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from desk.core.library.facade import Library
from desk.core.search import index_sync


def _small_segments(lib: Library) -> int:
    return lib.index.small_segments()


def _segment_count(lib: Library) -> int:
    return len(lib.index._index()._segments())


def _search_ids(lib: Library, query: str) -> list[int]:
    return [h.id for h in lib.search_ids(query, limit=200).hits]


def test_deferred_edits_are_searchable_at_once_and_folded_when_idle(seeded_dir: Path) -> None:
    with Library(seeded_dir, defer_folds=True) as lib:
        ids = lib.paper_ids()[:9]
        before = _segment_count(lib)
        assert lib.fold_edits() == 0  # no edit yet: nothing owed, nothing written
        for k, pid in enumerate(ids):
            lib.set_note(pid, f"deferred note zqfold{k}")
            assert _search_ids(lib, f"note:zqfold{k}") == [pid]  # searchable as soon as saved
        # Nine edits, nine segments: none was folded by an edit's commit.
        assert _segment_count(lib) == before + len(ids)
        expected = {q: _search_ids(lib, q) for q in ("note:deferred", "learning", '"language model"')}
        written = lib.fold_edits()
        assert written >= len(ids)  # every edited paper written again into fewer segments
        # Folded as tiered_choice folds (three of a size class at a time): at most a few stay.
        assert _segment_count(lib) <= before + 2
        assert {q: _search_ids(lib, q) for q in expected} == expected
        assert lib.fold_edits() == 0  # owed once, done once
        assert lib.check() == []


def test_edits_of_a_library_opened_as_a_command_fold_as_they_commit(seeded_dir: Path) -> None:
    with Library(seeded_dir) as lib:
        ids = lib.paper_ids()[:9]
        before = _segment_count(lib)
        for k, pid in enumerate(ids):
            lib.set_note(pid, f"command note zqcmd{k}")
            assert _search_ids(lib, f"note:zqcmd{k}") == [pid]
        # Folded along the way: at most MERGE_FANIN - 1 (two) segments of each size class stay.
        assert _segment_count(lib) <= before + 4
        assert lib.fold_edits() == 0  # nothing was left for later


def test_a_long_run_of_edits_without_a_pause_still_folds(
    seeded_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(index_sync, "MAX_DEFERRED_SEGMENTS", 4)
    with Library(seeded_dir, defer_folds=True) as lib:
        for k, pid in enumerate(lib.paper_ids()[:12]):
            lib.set_note(pid, f"busy zqrun{k}")
            # Never more small segments than the cap, the one just committed and the seeds' own.
            assert _small_segments(lib) <= 4 + 2
        assert len(_search_ids(lib, "note:busy")) == 12


def test_closing_folds_what_edits_left(seeded_dir: Path) -> None:
    with Library(seeded_dir, defer_folds=True) as lib:
        before = _segment_count(lib)
        for pid in lib.paper_ids()[:6]:
            lib.set_note(pid, "left for later")
        assert _segment_count(lib) == before + 6
    with Library(seeded_dir) as lib:
        assert _segment_count(lib) <= before + 2
        assert len(_search_ids(lib, "note:later")) == 6
        assert lib.check() == []
