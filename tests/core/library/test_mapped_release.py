"""Mapped files give their pages back (desk/core/runtime/resident.py): on a kernel that caches files in
large folios a few bytes read from a mapping map megabytes, all counted in the window's RSS (at a
million papers one search mapped ~1 GB of flat postings). After a search over its budget the flat
postings' mappings hold no resident page, and searches answer the same as without the release."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_flat_postings import _answers, _segmented

from desk.core.runtime import resident
from desk.core.search import flat_postings, postings, segment_upkeep
from desk.core.search.flat_postings import EXT


@pytest.fixture(autouse=True)
def _no_tiny_folding(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(segment_upkeep, "TINY_SEGMENT", 10)


def _resident_kb(suffix: str) -> int | None:
    """Resident kB of this process's mappings of files ending in ``suffix``, None without /proc."""
    try:
        lines = Path("/proc/self/smaps").read_text().splitlines()
    except OSError:
        return None
    total, inside = 0, False
    for line in lines:
        head = line.split()
        if head and "-" in head[0] and len(head) >= 5 and ":" in head[3]:  # a mapping's first line
            inside = len(head) >= 6 and head[5].endswith(suffix)
        elif inside and line.startswith("Rss:"):
            total += int(head[1])
    return total


def test_a_search_over_the_budget_leaves_no_flat_page_mapped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if resident.file_resident() is None or _resident_kb(EXT) is None:
        pytest.skip("no /proc/self/statm or smaps here")
    monkeypatch.setattr(flat_postings, "READ_WHOLE_UP_TO", 0)  # these small files mapped, as big ones are
    ix = _segmented(tmp_path / "index", 3, 300)
    monkeypatch.setattr(resident, "MAPPED_BUDGET", 1 << 40)  # never over: pages stay mapped
    kept = _answers(ix)
    assert ix._cache is not None and ix._cache.flat_reads > 0
    assert (_resident_kb(EXT) or 0) > 0
    monkeypatch.setattr(resident, "MAPPED_BUDGET", 0)  # always over: given back after each search
    ix.search("diffusion model")
    assert _resident_kb(EXT) == 0
    assert _answers(ix) == kept  # lists kept from the mapping read its pages again
    assert _resident_kb(EXT) == 0
    assert ix.related(1, limit=10).hits and _resident_kb(EXT) == 0


def test_flat_pages_are_given_back_during_a_search_not_only_after_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Lookups and lists read count towards postings.FLAT_RELEASE_BYTES; past it the mapped pages
    are given back mid-search (one search of a million papers mapped ~580 MB before its end)."""
    if resident.file_resident() is None or _resident_kb(EXT) is None:
        pytest.skip("no /proc/self/statm or smaps here")
    monkeypatch.setattr(flat_postings, "READ_WHOLE_UP_TO", 0)
    monkeypatch.setattr(resident, "MAPPED_BUDGET", 1 << 40)  # the end-of-search release never runs
    ix = _segmented(tmp_path / "index", 3, 300)
    monkeypatch.setattr(postings, "FLAT_RELEASE_BYTES", 1 << 40)
    held = _answers(ix)
    kept = _resident_kb(EXT) or 0
    assert kept > 0
    ix.close()  # a fresh cache: every list read again
    monkeypatch.setattr(postings, "FLAT_RELEASE_BYTES", 1)  # given back after every lookup
    assert _answers(ix) == held
    assert (_resident_kb(EXT) or 0) < kept / 2
