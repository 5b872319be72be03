"""Each kind of copy is found as what it is, each look-alike is kept apart, and the figures say
what the two texts share (texts written in dedup_texts.py, not the dev corpus)."""

from __future__ import annotations

import re

import pytest
from dedup_texts import (
    DEFINITION,
    PAPER,
    SAME_TOPIC,
    SECOND,
    head,
    middle,
    reordered,
    revised,
    sentences,
    shared_opening,
    tail,
)

from desk.core.dedup import REVISION, TRUNCATION, NearDuplicateIndex, describe, match

CUTS = {"head": head, "tail": tail, "middle": middle}


@pytest.mark.parametrize("share", [0.3, 0.4, 0.5])
@pytest.mark.parametrize("where", sorted(CUTS))
def test_a_copy_cut_to_a_third_or_half_is_a_truncation(where: str, share: float) -> None:
    cut = CUTS[where](PAPER, share)
    found = match(PAPER, cut)
    assert found.offered and found.kind == TRUNCATION
    assert not found.a_is_shorter and found.containment >= 0.99
    assert abs(found.length_ratio - share) < 0.04
    assert abs(found.similarity - share) < 0.04  # what they share: the cut copy's part of the paper


def test_a_truncation_says_how_much_of_the_longer_it_is() -> None:
    found = match(PAPER, head(PAPER, 0.45))
    assert re.fullmatch(r"B is 4\d % of A, all of it in A", describe(found, "A", "B"))
    assert describe(found.flipped(), "A", "B").startswith("A is 4")


def test_a_revised_version_shares_most_sentences() -> None:
    found = match(PAPER, revised(PAPER))
    assert found.offered and found.kind == REVISION
    assert 0.7 <= found.similarity < 1.0
    assert re.fullmatch(r"\d\d % of sentences shared", describe(found))


def test_reordered_sentences_and_added_boilerplate_are_duplicates() -> None:
    moved = match(PAPER, reordered(PAPER))
    assert moved.offered and moved.reordered and describe(moved).endswith("in another order")
    code = match(PAPER, PAPER + " Code is available at https://github.com/example/glassdepth.")
    assert code.offered and code.kind == TRUNCATION and code.containment >= 0.99


def test_a_paper_sharing_the_first_two_sentences_is_kept_apart() -> None:
    other = shared_opening(PAPER)
    assert not match(PAPER, other).offered
    # A copy cut just past the shared opening ends in text the other paper does not have.
    assert len(" ".join(sentences(PAPER)[:2]).split()) < 0.3 * len(PAPER.split())
    assert not match(head(PAPER, 0.3), other).offered
    assert match(head(PAPER, 0.3), PAPER).offered


def test_papers_quoting_one_definition_or_on_one_topic_are_kept_apart() -> None:
    parts = sentences(SECOND)
    with_definition = " ".join([parts[0], DEFINITION, *parts[1:]])
    assert not match(with_definition, SAME_TOPIC).offered
    assert not match(SECOND, SAME_TOPIC).offered
    assert match(SECOND, with_definition).offered  # the same paper with a sentence added


def test_the_index_groups_each_kind_with_its_figures() -> None:
    index = NearDuplicateIndex()
    index.add_many(
        [
            (1, PAPER),
            (2, head(PAPER, 0.35)),
            (3, SECOND),
            (4, revised(SECOND.replace("3.1 points", "3.4 points"))),
            (5, shared_opening(PAPER)),
            (6, SAME_TOPIC),
        ]
    )
    groups = {g.ids: g for g in index.groups()}
    assert set(groups) == {(1, 2), (3, 4)}
    cut = groups[(1, 2)]
    assert cut.kind == TRUNCATION and cut.containment >= 0.99 and abs(cut.similarity - 0.35) < 0.05
    [link] = cut.links
    assert describe(link.match, f"#{link.a}", f"#{link.b}").startswith("#2 is 3")


def test_a_copy_of_a_shared_opening_joins_one_paper_not_both() -> None:
    """Cut inside the two sentences two papers share, a copy is either's: never both in one group."""
    opening = " ".join(sentences(PAPER)[:2])
    index = NearDuplicateIndex()
    index.add_many([(1, PAPER), (2, shared_opening(PAPER)), (3, opening)])
    groups = index.groups()
    assert all(not {1, 2} <= set(g.ids) for g in groups)


def test_merge_all_takes_only_whole_truncations_and_keeps_the_longest() -> None:
    from desk.core.edits.merge_plan import plan
    from desk.core.runtime.errors import DeskError

    index = NearDuplicateIndex()
    edited_cut = (
        head(SECOND, 0.8).replace("anchor prototypes", "anchor exemplars").replace("site-invariant", "shared")
    )
    index.add_many([(1, PAPER), (2, head(PAPER, 0.4)), (3, SECOND), (4, edited_cut)])
    groups = index.groups()
    assert {g.ids: g.kind for g in groups} == {(1, 2): TRUNCATION, (3, 4): TRUNCATION}
    lengths = {1: len(PAPER), 2: len(head(PAPER, 0.4)), 3: len(SECOND), 4: len(edited_cut)}
    [step] = plan(groups, TRUNCATION, lengths)  # the cut copy with a word of its own is left
    assert (step.keep, step.others) == (1, (2,)) and "all of it in #1" in step.description
    with pytest.raises(DeskError):
        plan(groups, REVISION, lengths)
