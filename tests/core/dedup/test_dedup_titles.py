"""Near-duplicates compare real titles where both papers have one; a bare list's paper has none."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from dedup_texts import PAPER, SECOND, head

from desk.core.dedup.titled import titles_differ
from desk.core.library.facade import Library


def _records(path: Path, records: list[dict[str, object]]) -> Path:
    path.write_text(json.dumps(records), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("a", "b", "differ"),
    [
        ("Attention Is All You Need", "attention is all you need", False),
        ("Schölkopf: Kernels for Causality", "Scholkopf - kernels for causality", False),
        ("Federated Learning at Scale", "Federated Learning at Scale: Extended Version", False),
        ("Federated Learning at Scale", "Robust Aggregation for Heterogeneous Clients", True),
        ("???", "Any Title", False),  # no word: no evidence
    ],
)
def test_titles_name_one_paper_or_two(a: str, b: str, differ: bool) -> None:
    assert titles_differ(a, b) is differ


def test_a_cut_copy_with_another_real_title_is_not_offered(tmp_path: Path) -> None:
    """The same cut copy, once under the full paper's title and once under another title: only
    the first is offered with it; a bare list's copy (no real title) is offered as before."""
    full = _records(tmp_path / "full.json", [{"title": "Heterogeneous Federated Clients", "abstract": PAPER}])
    same = _records(
        tmp_path / "same.json", [{"title": "Heterogeneous federated clients", "abstract": head(PAPER, 0.5)}]
    )
    other = _records(
        tmp_path / "other.json", [{"title": "A Survey of Gradient Compression", "abstract": head(PAPER, 0.6)}]
    )
    bare = tmp_path / "bare.txt"
    bare.write_text("Bare 2026\n\n" + head(PAPER, 0.4) + "\n\n" + SECOND + "\n", encoding="utf-8")
    with Library(tmp_path / "lib") as lib:
        report = lib.import_paths([full, same, other, bare])
        assert report.added == 5
        groups = lib.duplicates.groups()
        titles = {p.id: p.title for p in lib.list_papers()}
    assert len(groups) == 1
    grouped = sorted(titles[i] for i in groups[0].ids)
    assert "A Survey of Gradient Compression" not in grouped
    assert "Heterogeneous Federated Clients" in grouped and "Heterogeneous federated clients" in grouped
    assert len(grouped) == 3  # the bare list's copy too


def test_the_import_summary_does_not_count_a_pair_the_titles_keep_apart(tmp_path: Path) -> None:
    full = _records(tmp_path / "full.json", [{"title": "Heterogeneous Federated Clients", "abstract": PAPER}])
    other = _records(
        tmp_path / "other.json", [{"title": "A Survey of Gradient Compression", "abstract": head(PAPER, 0.6)}]
    )
    with Library(tmp_path / "lib") as lib:
        lib.import_paths([full])
        assert lib.import_paths([other]).near_duplicates == 0
        assert lib.duplicates.groups() == []
