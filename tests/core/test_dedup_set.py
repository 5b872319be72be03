"""The labelled set of bench/dedup_set.py: each kind of copy is found, no different paper is offered."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

from desk.core.dedup import NearDuplicateIndex

BENCH = Path(__file__).resolve().parents[2] / "bench"


def _load_set() -> ModuleType:
    spec = importlib.util.spec_from_file_location("dedup_set", BENCH / "dedup_set.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["dedup_set"] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


ds = _load_set()


@pytest.fixture(scope="module")
def labelled() -> tuple[object, dict[int, str], NearDuplicateIndex]:
    data = ds.build(seed=0)
    texts = data.texts()
    index = NearDuplicateIndex()
    index.add_many(texts.items())
    return data, texts, index


def test_the_set_is_built_from_every_seed_abstract() -> None:
    data = ds.build(seed=0)
    assert len(ds.read_seeds()) == 94
    assert {kind for _, _, kind in data.positives} == set(ds.POSITIVE_KINDS)
    assert {kind for _, _, kind in data.negatives} >= {"same-venue", "shared-opening", "shared-frame", "shared-template"}


@pytest.mark.parametrize("kind", ds.POSITIVE_KINDS)
def test_each_kind_of_copy_is_linked_to_its_original(labelled, kind: str) -> None:
    data, _, index = labelled
    pairs = [(a, b) for a, b, k in data.positives if k == kind]
    linked = sum(b in dict(index.candidates_for(a)) for a, b in pairs)
    # A rewritten sentence can be a third of a short abstract: those few are rightly not offered.
    assert linked / len(pairs) >= (0.95 if "changed" in kind else 1.0)


def test_no_hard_negative_is_offered(labelled) -> None:
    data, _, index = labelled
    offered = [(a, b, kind) for a, b, kind in data.negatives if b in dict(index.candidates_for(a))]
    assert offered == []


def test_pair_precision_is_one_and_recall_at_least_95_percent(labelled) -> None:
    data, _, index = labelled
    found = {(a, b) for g in index.groups() for i, a in enumerate(g.ids) for b in g.ids[i + 1:]}
    truth = data.true_pairs()
    assert found <= truth
    assert len(found & truth) / len(truth) >= 0.95


def test_whitespace_and_math_copies_are_exact_after_cleanup(labelled) -> None:
    data, _, index = labelled
    exact = {pair for g in index.groups() if g.exact_after_cleanup for pair in zip(g.ids, g.ids[1:], strict=False)}
    members = {i for g in index.groups() if g.exact_after_cleanup for i in g.ids}
    assert exact
    restyled = [b for a, b, kind in data.positives if kind == "whitespace-punct"]
    assert all(b not in members or any(b in p for p in exact) for b in restyled)
    groups = {i: g for g in index.groups() for i in g.ids}
    assert all(not groups[b].exact_after_cleanup for a, b, kind in data.positives if kind == "truncated")
