"""`desk recommend` and `lib.discovery.recommend`: unread papers ranked by what was kept and what was left."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from semantic_corpus import ALL, NERF, POINTS, TARGET, nerf_starred, write_list

from desk.cli.main import main
from desk.core.library.facade import Library


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)


def test_recommend_json_has_the_search_shape_and_skips_what_was_seen(capsys, seeded_dir: Path) -> None:
    lib = str(seeded_dir)
    search = run_json(capsys, "--library", lib, "search", "reinforcement learning", "--json")
    assert main(["--library", lib, "star", *[str(r["id"]) for r in search["results"][:3]]]) == 0
    assert main(["--library", lib, "read", *[str(r["id"]) for r in search["results"][3:8]]]) == 0
    capsys.readouterr()
    got = run_json(capsys, "--library", lib, "recommend", "--limit", "5", "--json")
    assert set(got) == set(search)
    assert got["results"] and len(got["results"]) == 5
    assert set(got["results"][0]) == set(search["results"][0])
    assert all(not r["starred"] and not r["read"] for r in got["results"])
    seen = {r["id"] for r in search["results"][:8]}
    assert not seen & {r["id"] for r in got["results"]}
    assert got["total"] == 94 - 8  # every paper neither starred nor read is a candidate
    scores = [r["score"] for r in got["results"]]
    assert scores == sorted(scores, reverse=True)


def test_recommend_follows_the_stars(tmp_path: Path) -> None:
    with nerf_starred(tmp_path, 2) as (lib, nerf, by_text):
        recommended = [r.paper.id for r in lib.discovery.recommend(limit=4).rows]
        assert recommended == sorted(recommended, key=lambda i: -1 if i in nerf else 1)
        assert set(recommended) == set(nerf[2:])  # the unread NeRF papers, and nothing else first
        points = [by_text[t] for t in POINTS]
        assert not set(lib.discovery.recommend(limit=4).rows) & set(points)


def test_recommend_without_stars_says_what_to_do(capsys, seeded_dir: Path) -> None:
    got = run_json(capsys, "--library", str(seeded_dir), "recommend", "--json")
    assert got["results"] == [] and got["total"] == 0
    assert main(["--library", str(seeded_dir), "recommend"]) == 0
    assert "Star or tag" in capsys.readouterr().err


def test_recommend_for_a_tag_learns_from_its_papers(capsys, tmp_path: Path) -> None:
    lib_dir = tmp_path / "lib"
    with Library(lib_dir) as lib:
        lib.import_paths([write_list(tmp_path / "t.txt", ALL)])
        by_text = {p.abstract: p.id for p in lib.papers(lib.paper_ids())}
        points = [by_text[t] for t in POINTS]
        lib.tags.add(points[:2], "3D")
        lib.set_starred([by_text[NERF[0]]], True)  # a star elsewhere does not steer a tag's list
    got = run_json(capsys, "--library", str(lib_dir), "recommend", "--tag", "3D", "--limit", "3", "--json")
    ids = [r["id"] for r in got["results"]]
    assert set(ids) == set(points[2:]) and got["query"] == "recommend:3D"


def test_the_recommended_sort_puts_what_recommend_offers_first_and_keeps_every_match(tmp_path: Path) -> None:
    with Library(tmp_path / "lib") as lib:
        lib.import_paths([write_list(tmp_path / "t.txt", ALL)])
        lib.discovery.ensure_vectors()
        by_text = {p.abstract: p.id for p in lib.papers(lib.paper_ids())}
        nerf = [by_text[t] for t in [*NERF, TARGET]]
        lib.set_starred(nerf[:2], True)
        offered = [r.paper.id for r in lib.discovery.recommend(limit=100).rows]
        hits = [h.id for h in lib.search_ids("", limit=100, sort="recommended").hits]
        assert hits[: len(offered)] == offered  # recommend's order, then the rest
        assert sorted(hits) == sorted(lib.paper_ids())  # a sort: nothing is left out
        assert set(hits[len(offered) :]) == set(nerf[:2])  # the starred ones follow
        # Inside a query: its matches only, the offered ones in recommend's order first.
        inside = [h.id for h in lib.search_ids("novel view", limit=100, sort="recommended").hits]
        # (as every sort but relevance: the word matches, without papers joined on meaning alone)
        assert set(inside) == {h.id for h in lib.search_ids("novel view", limit=100, sort="title").hits}
        assert inside[:4] == [i for i in offered if i in set(inside)][:4]
        # For a tag: the papers it would gain first.
        points = [by_text[t] for t in POINTS]
        lib.tags.add(points[:2], "3D")
        for_tag = [
            h.id for h in lib.search_ids('-tag:"3D"', limit=100, sort="recommended", recommend_for="3D").hits
        ]
        assert set(for_tag[:3]) == set(points[2:])
