"""in:"collection" and saved:"name" in the query language: the sidebar's entries as filters."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from desk.core.library.facade import Library
from desk.core.search.query import ScopeFilter, parse


def _ids(lib: Library, query: str, **kw: object) -> list[int]:
    return [h.id for h in lib.search_ids(query, limit=10_000, **kw).hits]  # type: ignore[arg-type]


def test_in_is_exactly_one_collection_any_case(seeded: Library) -> None:
    per = seeded.stats().collections
    assert set(per) == {"ICML 2026 Papers", "ICML 2026 论文列表"}
    english = _ids(seeded, 'in:"ICML 2026 Papers"')
    chinese = _ids(seeded, 'in:"icml  2026 论文列表"')
    assert len(english) == per["ICML 2026 Papers"] and len(chinese) == per["ICML 2026 论文列表"]
    for pid in english:
        assert "ICML 2026 Papers" in seeded.paper(pid).collections
    # The phrase field collection: matches both ("ICML 2026" is in each name); in: only the whole name.
    assert seeded.search_ids('collection:"ICML 2026"', limit=0).total == seeded.count()
    assert seeded.search_ids('in:"ICML 2026"', limit=0).total == 0
    # Words typed inside a collection: only its papers, ranked by the words.
    inside = _ids(seeded, 'in:"ICML 2026 Papers" policy')
    assert inside and set(inside) <= set(english)
    assert set(inside) == set(_ids(seeded, "policy")) & set(english)


def test_saved_is_the_matches_of_the_saved_query_and_follows_the_library(seeded: Library) -> None:
    seeded.saved_searches.save("RL", "reinforcement")
    words = set(_ids(seeded, "reinforcement", sort="collection"))  # sorted: lexical matches only
    assert set(_ids(seeded, 'saved:"rl"')) == words
    inside = _ids(seeded, "saved:RL offline")
    assert inside and set(inside) == words & set(_ids(seeded, "offline", sort="collection"))
    first = sorted(words)[0]
    seeded.tags.add([first], "keep")
    seeded.saved_searches.save("kept RL", "saved:RL tag:keep")  # one saved search inside another
    assert _ids(seeded, 'saved:"kept RL"') == [first]
    seeded.saved_searches.delete("RL")
    assert _ids(seeded, 'saved:"kept RL"') == [] and _ids(seeded, "saved:RL") == []
    seeded.history.undo()  # the saved search is back, and so are its matches
    assert _ids(seeded, 'saved:"kept RL"') == [first]


def test_a_saved_search_that_names_itself_matches_nothing_and_does_not_hang(seeded: Library) -> None:
    seeded.saved_searches.save("loop", "saved:loop OR policy")
    assert seeded.search_ids("saved:loop", limit=10).total >= 0  # returns; depth-limited
    seeded.saved_searches.save("empty", "is:starred")
    assert seeded.search_ids("saved:empty", limit=10).total == 0
    assert seeded.search_ids('saved:"no such search"', limit=10).total == 0


def test_unfinished_scope_names_wait_for_the_quote() -> None:
    parsed = parse('in:"ICML 20', typing=True)
    assert parsed.parts == [] and parsed.hint and "in:" in parsed.hint
    assert parse('saved:"two words" x').parts[0] == ScopeFilter("saved", "two words")
    assert parse("in:CVPR").parts == [ScopeFilter("in", "CVPR")]
    assert parse("in:", typing=True).hint


@given(st.text(max_size=40))
def test_scope_filters_never_raise(text: str) -> None:
    for field in ("in", "saved"):
        parse(f'{field}:"{text}"')
        parse(f"{field}:{text}", typing=True)
