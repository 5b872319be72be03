"""The pinned Whoosh, the start-up check of its internals, and the public paths taken when it fails.

The fallback tests force the check to fail (the verified version is made another one) and
compare what the public read and write paths give with what the fast paths give.
"""

from __future__ import annotations

import logging
import re
import tomllib
from collections.abc import Iterator
from dataclasses import replace
from importlib.metadata import version
from pathlib import Path

import pytest

from desk.core.runtime.processes import WorkerPool
from desk.core.search import IndexDoc, SearchIndex, SearchResult, whoosh_internals
from desk.core.search.whoosh_internals import VERIFIED_VERSION, check, fast

ROOT = Path(__file__).resolve().parents[3]
SEEDS = ROOT / "seeds"

QUERIES = [
    "reinforcement learning",
    '"reinforcement learning"',
    '"large language models"',
    "diffus*",
    "polic* NOT robot",
    "graph OR kernel",
    "title:learning",
    "is:starred",
    "is:unread has:note",
    "note:remember",
    "reinforcment lerning",  # a typo: the suggestion path
    "",
    "zzqxwv",
]


@pytest.fixture
def public_whoosh(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Make the start-up check fail, as it does when another Whoosh is installed."""
    monkeypatch.setattr(whoosh_internals, "VERIFIED_VERSION", "0.0.0")
    check.cache_clear()
    yield
    check.cache_clear()  # the next check sees the real verified version again


def pinned() -> str:
    """The whoosh-reloaded version pyproject.toml pins."""
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["dependencies"]
    pins = [m.group(1) for d in deps if (m := re.fullmatch(r"whoosh-reloaded==([\w.]+)", d.replace(" ", "")))]
    assert pins, f"pyproject.toml must pin whoosh-reloaded to one version (==), not {deps}"
    return pins[0]


def test_the_installed_whoosh_is_the_pinned_one_whose_internals_were_verified() -> None:
    installed = version("whoosh-reloaded")
    assert pinned() == VERIFIED_VERSION, (
        f"pyproject.toml pins whoosh-reloaded {pinned()}, but desk/core/search/whoosh_internals.py "
        f"says its internals were verified with {VERIFIED_VERSION}: verify them, then change both"
    )
    assert installed == VERIFIED_VERSION, (
        f"whoosh-reloaded {installed} is installed, but desk pins {VERIFIED_VERSION}: "
        f"run pip install -e '.[test]' (desk would take its slower public Whoosh paths)"
    )
    assert check().ok, check().message()
    assert fast()


def test_a_whoosh_not_as_verified_is_said_once_and_turns_the_fast_paths_off(
    public_whoosh: None, capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger=whoosh_internals.__name__):
        assert not fast()
        assert not fast()  # checked once
        check()
    assert check().problems == (f"version {version('whoosh-reloaded')}",)
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith("desk: whoosh-reloaded ")
    assert "slower public API" in err[0] and "whoosh-reloaded==0.0.0" in err[0]
    assert [r.getMessage() for r in caplog.records] == [err[0].removeprefix("desk: ")]


def test_a_missing_private_piece_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    attributes = dict(whoosh_internals.CLASS_ATTRIBUTES)
    attributes["whoosh.writing:SegmentWriter"] += ("_gone_in_a_later_release",)
    attributes["whoosh.no_such_module:Thing"] = ("x",)
    monkeypatch.setattr(whoosh_internals, "CLASS_ATTRIBUTES", attributes)
    problems = whoosh_internals._problems(VERIFIED_VERSION)
    assert problems == ["SegmentWriter has no _gone_in_a_later_release", "no whoosh.no_such_module.Thing"]


# ---- the public paths give what the fast ones give --------------------------------------------


def make_docs() -> list[IndexDoc]:
    """Seven hundred papers from the seeds' abstracts: one segment too big to be merged on edits."""
    abstracts: list[str] = []
    for path in sorted(SEEDS.glob("*.txt")):
        paragraphs = [p.strip() for p in path.read_text(encoding="utf-8").split("\n\n")]
        abstracts.extend(p for p in paragraphs[1:] if p)
    docs = []
    for i in range(1, 701):
        text = abstracts[i % len(abstracts)]
        words = text.split()
        k = i // len(abstracts)
        abstract = " ".join(words[k:] + words[:k])  # each copy a little different
        note = "remember this one" if i % 50 == 0 else ""
        docs.append(
            IndexDoc(i, 1, " ".join(words[k : k + 8]), "", abstract, note, i % 7 == 0, i % 3 == 0, ("Seeds",))
        )
    return docs


def build(directory: Path, docs: list[IndexDoc]) -> SearchIndex:
    """A rebuild, then edits: deletions in the big segment and a small segment beside it."""
    index = SearchIndex(directory)
    index.rebuild(docs, len(docs))
    index.delete([5, 6, 7, 300])
    index.update([replace(d, rev=2, starred=not d.starred, note="remember the edit") for d in docs[10:14]])
    index.update([replace(docs[20], rev=3, abstract="Kangaroo routing with learned graphs.")])
    return index


def answers(index: SearchIndex) -> list[tuple[object, ...]]:
    """Everything a search shows, for each query (the time taken left out), and related papers."""
    results: list[SearchResult] = [index.search(q, limit=60) for q in QUERIES]
    results += [index.related(doc_id, limit=10) for doc_id in (1, 12, 21, 400)]
    return [(r.query, r.total, r.hits, r.suggestion, r.corrected, r.terms, r.message) for r in results]


@pytest.fixture(scope="module")
def docs() -> list[IndexDoc]:
    return make_docs()


@pytest.fixture(scope="module")
def fast_index(tmp_path_factory: pytest.TempPathFactory, docs: list[IndexDoc]) -> Iterator[SearchIndex]:
    check.cache_clear()
    assert fast()
    index = build(tmp_path_factory.mktemp("fast") / "index", docs)
    yield index
    index.close()


@pytest.fixture(scope="module")
def fast_answers(fast_index: SearchIndex) -> list[tuple[object, ...]]:
    return answers(fast_index)


def test_the_public_read_path_finds_what_the_fast_one_finds(
    fast_index: SearchIndex, fast_answers: list[tuple[object, ...]], public_whoosh: None
) -> None:
    assert not fast()
    reread = SearchIndex(fast_index.directory)  # nothing cached: every posting read the public way
    try:
        assert reread.doc_count() == fast_index.doc_count() == 696
        assert answers(reread) == fast_answers
        assert reread.revisions() == fast_index.revisions()
    finally:
        reread.close()


@pytest.mark.slow
def test_the_public_write_path_writes_an_index_that_searches_the_same(
    fast_index: SearchIndex,
    fast_answers: list[tuple[object, ...]],
    docs: list[IndexDoc],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(whoosh_internals, "VERIFIED_VERSION", "0.0.0")
    check.cache_clear()
    assert not fast()
    assert SearchIndex.can_stage(WorkerPool(2)) is False  # no segments moved in from worker processes
    written = build(tmp_path / "index", docs)
    written.close()
    monkeypatch.undo()
    check.cache_clear()
    assert fast()  # read back the fast way: the segments are the same format
    reread = SearchIndex(tmp_path / "index")
    try:
        assert answers(reread) == fast_answers
        assert reread.revisions() == fast_index.revisions()
        fast_words = (fast_index.directory / "words.tsv").read_text(encoding="utf-8")
        assert (tmp_path / "index" / "words.tsv").read_text(encoding="utf-8") == fast_words
    finally:
        reread.close()
