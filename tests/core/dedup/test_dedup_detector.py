"""The near-duplicate index: candidates, groups, exclusions, removal, rebuild."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from desk.core.dedup import Candidate, NearDuplicateIndex

BASE = (
    "Multi-task vehicle routing solvers via deep reinforcement learning have attracted broad attention and "
    "achieved significant progress in handling multiple constraints. However, existing neural solvers still "
    "face critical challenges, including insufficient representation, unstable training, and inefficient "
    "exploration in large combinatorial action spaces. To address these issues, we propose PoMtVRS, a "
    "plug-and-play framework that jointly improves decoder representations and exploration efficiency "
    "through decoder-side augmentation and preference-driven optimization. Extensive experiments "
    "demonstrate that PoMtVRS elevates state-of-the-art unified neural VRP backbones."
)
OTHER = (
    "Continual training of deep neural networks under non-stationarity often leads to a progressive loss of "
    "plasticity, eventually limiting further learning. We relate plasticity to the curvature of the loss "
    "landscape and show that resetting a small fraction of dormant units restores it without forgetting. "
    "On class-incremental image benchmarks and streaming reinforcement learning tasks our reset rule keeps "
    "accuracy high over hundreds of tasks, and it adds no parameters and almost no compute."
)
TEMPLATE_OPEN = "We propose a novel framework for {} that addresses the limitations of existing approaches."
TEMPLATE_CLOSE = (
    "Extensive experiments on multiple benchmark datasets demonstrate that our method outperforms "
    "state-of-the-art baselines by a large margin."
)


def edited(text: str) -> str:
    """An arXiv v2: one sentence rewritten."""
    return text.replace(
        "However, existing neural solvers still face critical challenges",
        "Yet current learned solvers are hampered by several well-known problems",
    )


def ids(groups: list[Candidate]) -> list[tuple[int, ...]]:
    return [g.ids for g in groups]


def test_an_edited_version_is_a_candidate() -> None:
    index = NearDuplicateIndex()
    index.add_many([(1, BASE), (2, edited(BASE)), (3, OTHER)])
    [(other, sim)] = index.candidates_for(1)
    assert other == 2 and index.threshold <= sim < 1.0
    assert index.candidates_for(3) == []
    [group] = index.groups()
    assert group.ids == (1, 2) and not group.exact_after_cleanup and group.similarity == sim


def test_different_papers_sharing_a_template_are_not_candidates() -> None:
    bodies = [
        "graph representation learning. We encode each node with a spectral positional embedding and train a "
        "message passing network whose aggregation adapts to the local degree distribution of the graph.",
        "time series forecasting. We decompose each series into trend and seasonal parts with a learnable "
        "filter bank and feed them to a lightweight recurrent model with calibrated uncertainty estimates.",
        "offline reinforcement learning. We penalize the critic on actions outside the dataset support using "
        "a conformal bound and recover a policy by advantage weighted regression on the penalized values.",
    ]
    texts = [
        f"{TEMPLATE_OPEN.format(b.split('. ', 1)[0])} {b.split('. ', 1)[1]} {TEMPLATE_CLOSE}" for b in bodies
    ]
    index = NearDuplicateIndex()
    index.add_many(enumerate(texts))
    assert index.groups() == []


def test_latex_and_unicode_copies_are_exact_after_cleanup() -> None:
    latex = r"We prove an $O(n^2)$ bound for $\alpha$-VOR with $\epsilon$-optimal ``policies'' -- " + BASE
    unicode = "We prove an O(n²) bound for α-VOR with ε-optimal “policies” – " + BASE
    index = NearDuplicateIndex()
    index.add_many([(7, latex), (9, unicode), (8, edited(BASE))])
    groups = index.groups()
    assert ids(groups) == [(7, 8, 9)]
    assert not groups[0].exact_after_cleanup
    assert index.candidates_for(7)[0] == (9, 1.0)
    index.remove(8)
    assert index.groups() == [Candidate((7, 9), 1.0, True)]


def test_excluded_pairs_are_never_offered_together() -> None:
    index = NearDuplicateIndex()
    index.add_many([(1, BASE), (2, edited(BASE)), (3, BASE.upper())])
    assert ids(index.groups()) == [(1, 2, 3)]
    assert ids(index.groups(exclude_pairs={(1, 2)})) == [(1, 3)]  # 2 joins neither: 3 is 1's exact copy
    assert ids(index.groups(exclude_pairs=[(1, 3), (2, 3)])) == [(1, 2)]
    assert index.groups(exclude_pairs=[(1, 2), (1, 3), (2, 3)]) == []


def test_groups_are_transitive_components() -> None:
    """A cut-short copy and an edited copy are far apart, yet one paper with the full text."""
    words = BASE.split()
    head = " ".join(words[: int(len(words) * 0.55)])
    other = OTHER.split()
    mixed = " ".join(words[: int(len(words) * 0.4)] + other[: int(len(other) * 0.4)])
    index = NearDuplicateIndex()
    index.add_many(
        [(10, BASE), (11, head), (12, edited(BASE)), (20, OTHER), (21, edited(OTHER) + " Code is public.")]
    )
    groups = index.groups()
    assert sorted(ids(groups)) == [(10, 11, 12), (20, 21)]
    assert all(link.match.score >= index.threshold for g in groups for link in g.links)
    assert {g.ids: g.kind for g in groups}[(10, 11, 12)] == "revision"  # one link is an edit
    index.add(13, mixed)  # shares text with both papers, enough with neither
    assert sorted(ids(index.groups())) == [(10, 11, 12), (20, 21)]


def test_remove_forgets_a_paper_and_its_links() -> None:
    index = NearDuplicateIndex()
    index.add_many([(1, BASE), (2, edited(BASE)), (3, OTHER)])
    assert index.groups()
    index.remove(2)
    index.remove(99)  # unknown: ignored
    assert len(index) == 2 and 2 not in index
    assert index.groups() == [] and index.candidates_for(1) == []
    index.add(2, edited(BASE))
    assert ids(index.groups()) == [(1, 2)]


def test_adding_an_id_again_replaces_its_text() -> None:
    index = NearDuplicateIndex()
    index.add_many([(1, BASE), (2, edited(BASE))])
    index.add(2, OTHER)
    assert len(index) == 2 and index.groups() == []


def test_empty_texts_are_never_candidates() -> None:
    index = NearDuplicateIndex()
    index.add_many([(1, ""), (2, "  ...  "), (3, BASE)])
    assert len(index) == 3 and index.groups() == []


def test_many_papers_at_once_match_one_at_a_time() -> None:
    """The batch pass (sorting bands) and the one-by-one pass find the same groups."""
    texts = [BASE, edited(BASE), OTHER, edited(OTHER), BASE.lower(), " ".join(OTHER.split()[:50])]
    texts += [
        f"Paper {i} studies topic {i * 7919 % 1013} with method {i * 104729 % 997} and nothing else."
        for i in range(60)
    ]
    batch = NearDuplicateIndex()
    batch.add_many(enumerate(texts))
    single = NearDuplicateIndex()
    for i, text in enumerate(texts):
        single.add(i, text)
        single.candidates_for(i)
    assert batch.groups() == single.groups()
    assert sorted(ids(batch.groups())) == [(0, 1, 4), (2, 3, 5)]


def test_the_index_survives_pickling() -> None:
    index = NearDuplicateIndex()
    index.add_many([(1, BASE), (2, OTHER)])
    restored = pickle.loads(pickle.dumps(index))
    restored.add(3, edited(BASE))
    assert ids(restored.groups()) == [(1, 3)]
    assert len(restored) == 3


def test_compaction_after_many_removals_keeps_the_rest() -> None:
    index = NearDuplicateIndex()
    filler = [
        (i, f"Filler abstract number {i} about subject {i % 97} and result {i % 89}.")
        for i in range(100, 1400)
    ]
    index.add_many([(1, BASE), (2, edited(BASE)), *filler])
    for i, _ in filler:
        index.remove(i)
    assert len(index) == 2
    assert ids(index.groups()) == [(1, 2)]


def test_many_copies_of_one_text_are_one_exact_group() -> None:
    """Buckets this full are skipped as boilerplate; equal-after-cleanup texts are linked anyway."""
    copies = [(i, BASE if i % 2 else BASE.upper()) for i in range(150)]
    index = NearDuplicateIndex()
    index.add_many([*copies, (500, OTHER)])
    assert index.groups() == [Candidate(tuple(range(150)), 1.0, True)]


@pytest.mark.slow
def test_texts_hashed_on_worker_processes_give_the_same_groups(monkeypatch) -> None:
    import desk.core.dedup.detector as detector
    from desk.core.runtime.processes import WorkerPool
    from desk.core.runtime.tuning import Tuning

    monkeypatch.setattr(detector, "_CHUNK", 16)  # several chunks (a vectorisation size, not a threshold)
    texts = [(i, f"{OTHER} Variant {i}: {TEMPLATE_OPEN.format(f'topic {i}')}") for i in range(60)]
    texts += [(100, BASE), (101, edited(BASE)), (102, BASE[: len(BASE) * 2 // 3])]
    here, there = NearDuplicateIndex(), NearDuplicateIndex()
    here.add_many(texts)
    with WorkerPool(2, Tuning(dedup_on_workers_from=10)) as pool:
        there.add_many(texts, pool)
        assert pool._pool is not None
    assert ids(there.groups()) == ids(here.groups())
    assert (100, 101, 102) in ids(there.groups())


def test_each_paper_verifies_its_likeliest_candidates_only() -> None:
    from desk.core.dedup.detector import likeliest_per_row

    pairs = np.array([[0, 1], [0, 2], [0, 3], [1, 2], [3, 4]])
    score = np.array([0.9, 0.5, 0.7, 0.6, 0.1])
    # row 0 keeps its two best (with 1 and 3); [0, 2] stays only if row 2 ranks it among its own
    assert likeliest_per_row(pairs, score, 2).tolist() == [True, True, True, True, True]
    assert likeliest_per_row(pairs, score, 1).tolist() == [True, False, True, True, True]
    assert not likeliest_per_row(pairs[:0], score[:0], 3).any()


def test_a_list_of_templated_copies_is_checked_in_time_linear_in_its_size() -> None:
    """Sixty copies of one abstract, each a number apart: every paper has every other as a
    candidate; each verifies its few likeliest, and the copies still form one group (links join)."""
    from desk.core.dedup.detector import MAX_CANDIDATES

    n = 60
    texts = [(i, BASE.replace("multiple constraints", f"{i} constraints")) for i in range(n)]
    index = NearDuplicateIndex()
    index.add_many(texts)
    groups = index.groups()
    assert index.checks <= 2 * MAX_CANDIDATES * n < n * (n - 1) // 2  # a pair is one of either end's best
    assert [g.ids for g in groups] == [tuple(range(n))]
