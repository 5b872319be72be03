"""Tags and reading lists, saved searches, sort orders, and tag: in the query language."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from desk.core.library.facade import Library
from desk.core.runtime.errors import DeskError, PaperNotFound
from desk.core.search.query import TagFilter, parse
from desk.core.text.tag_names import normalize_name


def _ids(page) -> list[int]:  # type: ignore[no-untyped-def]
    return [r.paper.id for r in page.rows]


def test_tags_any_unicode_one_tag_per_spelling_counted_in_creation_order(seeded: Library) -> None:
    a, b, c, d = seeded.paper_ids()[:4]
    change = seeded.tags.add([a, b, c], "  Théorie   des  graphes ")
    assert change.name == "Théorie des graphes" and change.added == (a, b, c)
    assert seeded.tags.add([a, d], "THÉORIE DES GRAPHES").added == (d,)  # same tag, any case
    seeded.tags.add([b], "读书会")
    assert [(t.name, t.count) for t in seeded.tags.counts()] == [("Théorie des graphes", 4), ("读书会", 1)]
    assert seeded.paper(a).tags == ("Théorie des graphes",)
    assert seeded.summaries([b])[b].tags == ("Théorie des graphes", "读书会")
    assert seeded.stats().tags == {"Théorie des graphes": 4, "读书会": 1}
    assert seeded.tags.remove([a, b], "théorie des graphes").removed == (a, b)
    assert seeded.tags.papers("Théorie des graphes") == [c, d]  # the tag's order: as tagged
    assert seeded.check() == []


def test_a_bad_name_or_an_unknown_id_changes_nothing(seeded: Library) -> None:
    first = seeded.paper_ids()[0]
    with pytest.raises(DeskError):
        seeded.tags.add([first], "   ")
    with pytest.raises(PaperNotFound):
        seeded.tags.add([first, 999_999], "x")
    assert seeded.tags.counts() == [] and seeded.history.entries() == []


def test_toggle_over_a_selection_is_all_on_then_all_off(seeded: Library) -> None:
    ids = seeded.paper_ids()[:5]
    seeded.tags.add(ids[:2], "later")
    assert seeded.tags.toggle(ids, "later").added == tuple(ids[2:])
    assert seeded.tags.toggle(ids, "later").removed == tuple(ids)
    assert seeded.tags.counts() == []


def test_a_tag_is_searchable_as_soon_as_it_is_set(seeded: Library) -> None:
    ids = seeded.paper_ids()
    seeded.tags.add(ids[:3], "reading group")
    seeded.tags.add(ids[2:4], "x")
    assert sorted(_ids(seeded.search('tag:"reading group"', limit=100))) == ids[:3]
    assert sorted(_ids(seeded.search("tag:X", limit=100))) == ids[2:4]
    assert seeded.search('-tag:"reading group"', limit=0).total == len(ids) - 3
    assert sorted(_ids(seeded.search("has:tag", limit=100))) == ids[:4]
    assert sorted(_ids(seeded.search('tag:x OR tag:"reading group"', limit=100))) == ids[:4]
    assert seeded.search("tag:nothing-like-it", limit=10).total == 0
    words = seeded.search("policy tag:x", limit=100)
    assert set(_ids(words)) <= set(ids[2:4])
    seeded.tags.remove(ids[:1], "reading group")
    assert sorted(_ids(seeded.search('tag:"reading group"', limit=100))) == ids[1:3]


def test_saved_searches_follow_the_library(seeded: Library) -> None:
    ids = seeded.paper_ids()
    saved = 'tag:"reading group" is:unread'
    seeded.saved_searches.save("Group, unread", saved)
    assert [(s.name, s.query) for s in seeded.saved_searches.all()] == [("Group, unread", saved)]
    query = seeded.saved_searches.all()[0].query
    assert seeded.search(query).total == 0
    seeded.tags.add(ids[:3], "reading group")
    seeded.set_read(ids[:1], True)
    assert sorted(_ids(seeded.search(query))) == ids[1:3]
    seeded.saved_searches.save("group, UNREAD", "tag:other")  # same name, any case: replaced
    assert [s.query for s in seeded.saved_searches.all()] == ["tag:other"]
    assert seeded.saved_searches.delete("Group, unread") and seeded.saved_searches.all() == []
    assert not seeded.saved_searches.delete("Group, unread")


def test_sort_orders_of_lists_and_results(seeded: Library) -> None:
    ids = seeded.paper_ids()
    seeded.set_starred([ids[10], ids[20]], True)
    titles = [p.title.casefold() for p in seeded.list_papers(sort="title")]
    assert titles == sorted(titles)
    assert seeded.paper_ids(sort="recent")[0] == max(ids)
    assert seeded.paper_ids(sort="starred")[:2] == [ids[10], ids[20]]
    by_collection = seeded.list_papers(sort="collection")
    keys = [(p.sources[0].collection, p.sources[0].file, p.sources[0].index) for p in by_collection]
    assert keys == sorted(keys)
    ranked = seeded.search("policy", limit=100)
    starred_first = seeded.search("policy", limit=100, sort="starred")
    assert sorted(_ids(ranked)) == sorted(_ids(starred_first)) and starred_first.total == ranked.total
    flags = [r.paper.starred for r in starred_first.rows]
    assert flags == sorted(flags, reverse=True)
    unstarred = [i for i in _ids(starred_first) if i not in (ids[10], ids[20])]
    assert unstarred == [i for i in _ids(ranked) if i not in (ids[10], ids[20])]  # relevance kept
    by_title = seeded.search("policy", limit=5, offset=5, sort="title")
    all_titles = [r.paper.title.casefold() for r in seeded.search("policy", limit=100, sort="title").rows]
    assert [r.paper.title.casefold() for r in by_title.rows] == all_titles[5:10]
    assert all(r.snippet for r in by_title.rows)
    matched = set(_ids(ranked))
    for sort in ("title", "collection", "recent"):  # a sorted search: the list's order, filtered
        got = _ids(seeded.search("policy", limit=100, sort=sort))
        assert got == [i for i in seeded.paper_ids(sort=sort) if i in matched], sort
    with pytest.raises(DeskError, match="no sort order"):
        seeded.search("policy", sort="sideways")


def test_tags_go_out_in_the_markdown_export_escaped(seeded: Library) -> None:
    first = seeded.paper_ids()[0]
    seeded.tags.add([first], "# not a heading [x](http://e)")
    text = seeded.export_markdown(seeded.tags.papers("# not a heading [x](http://e)"), what="tagged")
    line = next(x for x in text.splitlines() if x.startswith("Tags: "))
    assert line == "Tags: \\# not a heading \\[x\\](http://e)"  # no heading, no link


# ---- the query language --------------------------------------------------------------------

_names = st.text(
    alphabet=st.characters(blacklist_categories=("Cs", "Cc"), blacklist_characters='"()'),
    min_size=1,
    max_size=30,
).filter(lambda s: s.strip())


@given(_names)
def test_a_quoted_tag_name_parses_back_to_that_tag(name: str) -> None:
    parsed = parse(f'tag:"{name}"')
    assert parsed.parts == [TagFilter(" ".join(name.split()))]
    assert parse(f'-tag:"{name}"').parts[0].child == TagFilter(" ".join(name.split()))  # type: ignore[union-attr]


@given(st.text(max_size=60))
def test_any_text_after_tag_parses_without_raising(text: str) -> None:
    for q in (f"tag:{text}", f'tag:"{text}', f"has:tag {text}", f"-tag:{text} OR tag:x"):
        parse(q)


@given(_names)
def test_tag_names_normalise_once(name: str) -> None:
    try:
        once = normalize_name(name)
    except DeskError:
        return
    assert normalize_name(once) == once and once == once.strip() and "  " not in once


def test_tag_filters_parse_as_filters() -> None:
    assert parse("has:tag").parts == [TagFilter(None)]
    assert parse("TAG:ml diffusion").parts[0] == TagFilter("ml")
    assert parse("tag:").parts == [] and parse("tag:").hint  # being typed
    assert parse("tag: x").message and parse("tag: x").parts[0] != TagFilter("x")


def test_a_star_or_a_read_is_searchable_without_re_indexing(seeded: Library) -> None:
    ids = seeded.paper_ids()[:40]
    revisions = seeded.index.revisions()
    seeded.set_starred(ids, True)
    seeded.set_read(ids[:10], True)
    assert seeded.index.revisions() == revisions  # nothing was written to the index
    assert sorted(_ids(seeded.search("is:starred", limit=100))) == ids
    assert seeded.search("is:unread is:starred", limit=0).total == 30
    assert seeded.search("is:unstarred", limit=0).total == 94 - 40
    seeded.history.undo()
    assert seeded.search("is:read", limit=0).total == 0
    assert seeded.check() == []
