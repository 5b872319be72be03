"""A long-lived index keeps the readers of segments a commit left alone (desk.core.search.readers).

After each edit (a note, a title, a deletion, a fold of small segments) the index that reused
its readers must answer exactly as one opened afresh on the same folder, and it must have kept
the readers of the big segments the edit did not touch. The abstracts are real
(../shared/dev-corpus/, read from there) when it is there, else the seeds'.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from desk.core.search import IndexDoc, SearchIndex
from desk.core.search.segment_upkeep import TINY_SEGMENT

ROOT = Path(__file__).resolve().parents[3]
DEV = ROOT.parent / "shared" / "dev-corpus" / "cvpr2023.txt"
QUERIES = ("diffusion model", "note:zebra", "note:okapi OR title:okapi", "segmentation -video", "trans*", "")


def _abstracts() -> list[str]:
    if DEV.is_file():
        return DEV.read_text(encoding="utf-8").split("\n\n")[1:]
    texts = [
        p for f in sorted((ROOT / "seeds").glob("*.txt")) for p in f.read_text("utf-8").split("\n\n")[1:]
    ]
    return (texts * (3 * TINY_SEGMENT // len(texts) + 2))[: 3 * TINY_SEGMENT + 60]


def _doc(i: int, text: str, rev: int = 1, note: str = "", title: str = "") -> IndexDoc:
    return IndexDoc(i, rev, title or f"Paper {i}", "", text, note, False, False, ("CVPR 2023",))


def _answers(index: SearchIndex) -> list[tuple[int, list[tuple[int, float]], str | None]]:
    out = []
    for q in QUERIES:
        result = index.search(q, limit=30)
        out.append((result.total, [(h.id, round(h.score, 6)) for h in result.hits], result.suggestion))
    return out


def _with_a_fresh_reader(index: SearchIndex) -> list[tuple[int, list[tuple[int, float]], str | None]]:
    """The answers once the index's searcher is opened afresh (its caches and lexicon kept: only
    the reader differs), as before readers were reused."""
    with index._lock:
        old = index._searcher
        index._searcher = index._corpus = None
    answers = _answers(index)
    assert old is not None
    old.close()
    return answers


def _totals(directory: Path) -> list[int]:
    fresh = SearchIndex(directory)
    try:
        return [fresh.search(q, limit=1).total for q in QUERIES]
    finally:
        fresh.close()


def _leaves(index: SearchIndex) -> dict[str, object]:
    corpus = index._current()
    assert corpus is not None
    return {segid: leaf for leaf, _, segid in corpus.leaves}


@pytest.fixture
def built(tmp_path: Path) -> tuple[SearchIndex, list[str]]:
    texts = _abstracts()
    per = TINY_SEGMENT + 40  # segments an edit's commit never folds
    ix = SearchIndex(tmp_path / "ix")
    ix.rebuild([], 0)
    for start in (0, per, 2 * per):
        ix.update([_doc(i + 1, texts[i]) for i in range(start, min(start + per, len(texts)))])
    return ix, texts


@pytest.mark.slow
def test_a_reader_reused_across_edits_answers_as_a_fresh_one(
    built: tuple[SearchIndex, list[str]], tmp_path: Path
) -> None:
    index, texts = built
    assert _answers(index)[0][0] > 0
    edits = [
        [_doc(5, texts[4], 2, note="a zebra crossing")],
        [_doc(TINY_SEGMENT + 50, texts[TINY_SEGMENT + 49], 2, title="Okapi detection")],
        [_doc(7, texts[6], 2, note="zebra again"), _doc(8, texts[7], 2, note="and an okapi")],
        [_doc(5, texts[4], 3, note="")],  # the note cleared: its second version deleted in turn
    ] + [[_doc(20 + k, texts[19 + k], 2, note=f"zebra {k}")] for k in range(12)]  # folds small segments
    for k, docs in enumerate(edits):
        before = _leaves(index)
        index.update(docs)
        after = _leaves(index)
        kept = [segid for segid in before.keys() & after.keys() if before[segid] is after[segid]]
        assert len(kept) >= 2, f"edit {k}: the untouched big segments' readers are kept"
        reused = _answers(index)
        assert reused == _with_a_fresh_reader(index), f"edit {k}"
        assert [a[0] for a in reused] == _totals(tmp_path / "ix"), f"edit {k}"
    total = index.search("").total
    index.delete([9, TINY_SEGMENT + 60])
    assert _answers(index) == _with_a_fresh_reader(index)
    assert index.search("").total == _totals(tmp_path / "ix")[-1] == total - 2
    index.update([_doc(30 + k, texts[29 + k], 2, note=f"okapi {k}") for k in range(3)])
    index.merge_small()
    reused = _answers(index)
    assert reused == _with_a_fresh_reader(index)
    assert [a[0] for a in reused] == _totals(tmp_path / "ix")
    index.close()
