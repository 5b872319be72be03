"""The words the kept papers share (desk/core/semantic/profile.py): their part in "Recommended for you"."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from dev_texts import DEV, needs_dev_corpus

from desk.core.library.facade import Library
from desk.core.semantic import profile, recommend
from desk.core.semantic.lsa import terms

IDF = {stem: 2.0 for stem in terms("radiance field scene view render camera light model method")}


def test_words_every_kept_paper_uses_lead_and_rarer_ones_weigh_more() -> None:
    kept = [
        "A neural radiance field renders the scene from a new view.",
        "Radiance field of a scene lit by one light.",
        "We fit a radiance field to camera images of the scene.",
    ]
    idf = {**IDF, "scene": 1.0}  # a commoner word than "radiance"
    words, strength = profile.shared_words(kept, [], idf)
    weights = dict(words)
    assert strength == 1.0  # "radiance" is in every kept paper
    assert weights["radianc"] == weights["field"] == 2.0  # idf × 1 ** SHARE_POWER
    assert weights["scene"] == 1.0  # as shared, less rare
    assert "view" not in weights and "light" not in weights  # one kept paper's words only
    assert "neural" not in weights  # a word the model does not know (not in idf)
    assert [w for w, _ in words][:2] == ["field", "radianc"]  # heaviest first, then by stem


def test_a_word_the_papers_left_use_too_weighs_less_and_one_they_all_use_nothing() -> None:
    kept = ["radiance field of the scene", "a radiance field and a camera", "radiance field from a camera"]
    left = ["a camera model", "the camera method"]
    weights = dict(profile.shared_words(kept, left, IDF)[0])
    assert weights["radianc"] == 2.0
    assert "camera" not in weights  # in 2 of 3 kept papers, and in every paper left: weight 0
    half_left = dict(profile.shared_words(kept, ["a camera model", "a light"], IDF)[0])
    assert half_left["camera"] == pytest.approx(2.0 * (2 / 3) ** profile.SHARE_POWER * 0.5)


def test_kept_papers_about_different_things_share_words_weakly() -> None:
    kept = ["radiance field", "radiance field", "a camera model", "a camera model", "light"]
    words, strength = profile.shared_words(kept, [], IDF)
    assert strength == pytest.approx((2 / 5) ** profile.SHARE_POWER)  # no word in most of them
    assert {w for w, _ in words} == {"radianc", "field", "camera", "model"}
    assert profile.shared_words([], ["left"], IDF) == ([], 0.0)
    assert profile.shared_words(["one radiance field paper"], [], IDF)[1] == 1.0  # one paper: its words


def test_sample_spreads_evenly_and_keeps_short_lists() -> None:
    assert profile.sample([3, 1, 2]) == [3, 1, 2]
    picked = profile.sample(list(range(1000)), 10)
    assert picked == list(range(0, 1000, 100))


def test_fuse_adds_z_scores_weighted_by_strength() -> None:
    candidates = np.array([5, 7, 9, 11])
    probability = np.array([0.9, 0.8, 0.7, 0.6])
    word_ids, word_scores = np.array([9, 11, 40]), np.array([1.0, 10.0, 3.0])  # 40: not a candidate
    none = profile.fuse(candidates, probability, word_ids, word_scores, 0.0)
    assert list(np.argsort(-none)) == [0, 1, 2, 3]  # strength 0: the classifier's order
    assert np.all((none > 0) & (none < 1))
    fused = profile.fuse(candidates, probability, word_ids, word_scores, 1.0)
    assert int(np.argmax(fused)) == 3  # the only paper holding the heaviest words rises
    assert fused[0] > fused[1] > fused[2]  # the rest keep the classifier's order
    flat = profile.fuse(candidates, probability, np.zeros(0, np.int64), np.zeros(0), 1.0)
    assert np.allclose(flat, none)  # no paper holds the words: nothing changes


@needs_dev_corpus
@pytest.mark.slow
def test_recommendations_follow_the_words_five_stars_share(tmp_path: Path) -> None:
    """For each of three topics, five stars on real papers whose title names it and twenty other
    papers read and left: over the three, the shared words bring more papers of the topic into
    the first 20 than the classifier alone (bench/recommend_bench.py measures 20 topics)."""
    titles = [
        line.split("\t")[2]
        for line in (DEV.parent / "titles.tsv").read_text(encoding="utf-8").splitlines()[1:]
    ]
    with Library(tmp_path / "lib") as lib:
        lib.import_paths([DEV])
        lib.discovery.ensure_vectors()
        data = lib.vectors.current
        assert data is not None
        id_of = {s.index: p.id for p in lib.list_papers() for s in p.sources}
        title_of = {id_of[i]: t for i, t in enumerate(titles)}
        gains = []
        for topic, step in (("video", 7), ("segmentation", 30), ("pose", 13)):
            on = [i for i, t in title_of.items() if re.search(rf"\b{topic}", t, re.I)]
            off = [i for i, t in title_of.items() if not re.search(rf"\b{topic}", t, re.I)]
            starred, left = on[::step][:5], off[::100][:20]
            lib.set_starred(starred, True)
            lib.set_read(left, True)

            def precision(ids: list[int], topic: str = topic) -> float:
                return sum(bool(re.search(rf"\b{topic}", title_of[i], re.I)) for i in ids[:20]) / 20

            fused = [r.paper.id for r in lib.discovery.recommend(limit=20).rows]
            seen = set(starred) | set(left)
            assert len(fused) == 20 and not set(fused) & seen
            scored = recommend.score(data, starred, left, [i for i in title_of if i not in seen])
            assert scored is not None
            ids, scores = scored
            alone = [int(ids[k]) for k in np.argsort(-scores, kind="stable")]
            gains.append(precision(fused) - precision(alone))
            lib.set_starred(starred, False)
            lib.set_read(left, False)
        assert sum(gains) / len(gains) >= 0.1, gains


def test_recommended_papers_show_the_words_the_stars_share_marked(tmp_path: Path) -> None:
    """The page of `recommend` names the shared stems (its terms) and marks them in each snippet,
    as a search marks its words: why a paper is offered can be seen."""
    from semantic_corpus import nerf_starred

    with nerf_starred(tmp_path, 3) as (lib, nerf, _):
        page = lib.discovery.recommend(limit=3)
        assert "radianc" in page.terms  # every starred paper says "radiance"
        first = page.rows[0]
        assert first.paper.id in nerf
        marked = [first.snippet[a:b] for a, b in first.highlights]
        assert marked == ["novel", "view", "synthesis", "volume", "rendering"]  # its shared words
        assert {terms(w)[0] for w in marked} <= set(page.terms)
