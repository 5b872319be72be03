"""``lib.atlas``: the map of a library, kept beside it, updated as it changes, ``cluster:`` and ``near:``."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from desk.core.atlas import store
from desk.core.library.atlas import NEAR_COUNT
from desk.core.library.facade import Library
from desk.core.runtime.paths import CACHE_DIR_NAME
from desk.core.search.query import parse


def test_the_map_covers_every_paper_is_kept_on_disk_and_read_back_by_the_next_open(seeded_dir: Path) -> None:
    with Library(seeded_dir) as lib:
        assert lib.atlas.current() is None and lib.atlas.pending()
        made = lib.atlas.ensure()
        assert sorted(made.ids.tolist()) == sorted(lib.paper_ids())
        assert made.source == "lsa"  # no sentence encoder in the tests
        assert 8 <= len(made.labels) <= 9 and len(set(made.labels)) == len(made.labels)
        assert not lib.atlas.pending()
    assert (seeded_dir / CACHE_DIR_NAME / store.FILE_NAME).is_file()
    with Library(seeded_dir) as lib:
        again = lib.atlas.current()
        assert again is not None and np.array_equal(again.xy, made.xy) and again.labels == made.labels
        assert lib.atlas.ensure() is again  # up to date: nothing laid out


def test_cluster_filters_the_search_by_number_or_label_and_an_unknown_one_matches_nothing(
    seeded_dir: Path,
) -> None:
    with Library(seeded_dir) as lib:
        assert lib.search_ids("cluster:0", limit=200).hits == ()  # no map yet: nothing, no error
        made = lib.atlas.ensure()
        members = set(made.members(1).tolist())
        assert {h.id for h in lib.search_ids("cluster:1", limit=200).hits} == members
        label = made.labels[1]
        assert {h.id for h in lib.search_ids(f'cluster:"{label.upper()}"', limit=200).hits} == members
        assert lib.search_ids("cluster:99", limit=200).hits == ()
        assert lib.search_ids('cluster:"no such words"', limit=200).hits == ()
        some = {h.id for h in lib.search_ids("policy cluster:1", limit=200).hits}
        assert some <= members


def test_a_paper_removed_leaves_the_map_and_marks_follow_the_database(seeded_dir: Path) -> None:
    with Library(seeded_dir) as lib:
        made = lib.atlas.ensure()
        first = int(made.ids[0])
        lib.set_starred([first], True)
        marks = lib.atlas.marks(made.ids)
        assert marks["starred"][0] and marks["starred"].sum() == 1
        lib.trash.delete([first])
        assert lib.atlas.pending()
        updated = lib.atlas.ensure()
        assert first not in updated.ids.tolist() and updated.placed == 1
        assert updated.labels == made.labels  # one paper of 94: updated, not laid out again


def test_cluster_typed_without_its_number_says_what_it_needs() -> None:
    parsed = parse("diffusion cluster:")
    assert parsed.hint is not None and "a cluster's number or label" in parsed.hint


def test_near_lists_the_papers_nearest_one_on_the_map_and_a_bad_id_matches_nothing(seeded_dir: Path) -> None:
    with Library(seeded_dir) as lib:
        some = int(lib.paper_ids()[5])
        assert lib.search_ids(f"near:{some}", limit=200).hits == ()  # no map yet: nothing, no error
        made = lib.atlas.ensure()
        row = int(np.searchsorted(made.ids, some))
        distance = np.sqrt(((made.xy - made.xy[row]) ** 2).sum(axis=1))
        found = {h.id for h in lib.search_ids(f"near:{some}", limit=200).hits}
        assert len(found) == NEAR_COUNT and some in found
        inside = np.isin(made.ids, list(found))
        assert distance[inside].max() <= distance[~inside].min()  # the nearest, none passed over
        assert lib.atlas.nearest(str(some))[0] == some
        words = {h.id for h in lib.search_ids(f"policy near:{some}", limit=200).hits}
        assert words <= found
        for bad in ("abc", "999999", "-3", "٣", "1.5"):
            assert lib.search_ids(f'near:"{bad}"', limit=200).hits == (), bad
    hint = parse("near:").hint
    assert hint is not None and "needs a paper's id" in hint
