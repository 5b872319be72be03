"""The search's fast paths answer what Whoosh itself would: prefix expansions narrowed from a
shorter prefix's, postings read from the segments that hold the field, kept across queries.

The index is made of several segments of real abstracts (../shared/dev-corpus/, read from there;
the seeds when it is absent), one of them with notes, so that a field some segments lack and
terms spread over segments are both exercised.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from dev_texts import dev_abstracts, needs_dev_corpus
from hypothesis import given, settings
from hypothesis import strategies as st

from desk.core.search import IndexDoc, SearchIndex, posting_decode, postings
from desk.core.search.postings import MAX_EXPANSION, Corpus
from desk.core.search.segment_upkeep import TINY_SEGMENT

SEGMENTS = 4
pytestmark = needs_dev_corpus  # the segments' words and phrases are the dev corpus's


def _doc(i: int, text: str, note: str) -> IndexDoc:
    title = " ".join(text.split()[:8])
    return IndexDoc(i, 1, title, "", text, note, False, False, ("Dev",))


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> SearchIndex:
    texts = dev_abstracts()
    per = max(TINY_SEGMENT, len(texts) // SEGMENTS)
    ix = SearchIndex(tmp_path_factory.mktemp("fast") / "index")
    ix.rebuild([], 0)
    for s in range(0, min(len(texts), per * SEGMENTS), per):
        # only the last batch carries notes: the other segments have no "note" field at all
        last = s + per >= min(len(texts), per * SEGMENTS)
        ix.update(
            [_doc(i, texts[i], f"reading group: {texts[i][:60]}" if last else "") for i in range(s, s + per)]
        )
    return ix


def _corpus(index: SearchIndex) -> Corpus:
    index.search("warm")
    corpus = index._current()
    assert corpus is not None
    return corpus


def _whoosh_expansion(corpus: Corpus, fieldname: str, prefix: str) -> tuple[str, ...]:
    out: list[str] = []
    for term in corpus.searcher.reader().expand_prefix(fieldname, prefix):
        out.append(term.decode("utf-8") if isinstance(term, bytes) else term)
        if len(out) == MAX_EXPANSION:
            break
    return tuple(out)


def _words(index: SearchIndex) -> list[str]:
    text = " ".join(dev_abstracts()[:400])
    return sorted({w.lower() for w in re.findall(r"[A-Za-z]{4,}", text)}) or ["learn"]


@pytest.mark.slow
def test_the_index_has_segments_with_and_without_notes(index: SearchIndex) -> None:
    corpus = _corpus(index)
    assert len(corpus.leaves) >= 2
    with_notes = [segid for _, _, segid in corpus.leaves if "note" in corpus._fields[segid]]
    assert 0 < len(with_notes) < len(corpus.leaves)


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(data=st.data())
@pytest.mark.fast_paths
def test_a_prefix_narrowed_from_a_shorter_one_lists_what_whoosh_lists(
    index: SearchIndex, data: st.DataObject
) -> None:
    words = _words(index)
    word = data.draw(st.sampled_from(words))
    cut = data.draw(st.integers(min_value=2, max_value=max(2, len(word) - 1)))
    fieldname = data.draw(st.sampled_from(["abstract", "title", "note"]))
    corpus = _corpus(index)
    corpus._expansions.clear()
    calls: list[str] = []
    real = Corpus._walk

    def counted(self: Corpus, f: str, p: str) -> tuple[tuple[str, ...], bool] | None:
        calls.append(p)
        return real(self, f, p)

    Corpus._walk = counted  # type: ignore[method-assign]
    try:
        for n in range(cut, len(word) + 1):  # typed letter by letter
            assert corpus.expand(fieldname, word[:n]) == _whoosh_expansion(corpus, fieldname, word[:n])
    finally:
        Corpus._walk = real  # type: ignore[method-assign]
    # Whoosh was asked again only while the expansion so far was cut at MAX_EXPANSION.
    assert calls[0] == word[:cut]
    assert all(len(_whoosh_expansion(corpus, fieldname, p[:-1])) == MAX_EXPANSION for p in calls[1:])


def test_a_longer_prefix_is_not_narrowed_from_a_cut_expansion(index: SearchIndex) -> None:
    corpus = _corpus(index)
    corpus._expansions.clear()
    reader = corpus.searcher.reader()
    for short in ("co", "re", "in", "pr", "de", "s", "c"):
        full = [t.decode() if isinstance(t, bytes) else t for t in reader.expand_prefix("abstract", short)]
        if len(full) > MAX_EXPANSION:
            break
    else:
        pytest.skip("no prefix with more than MAX_EXPANSION terms in this corpus")
    assert corpus.expand("abstract", short) == tuple(full[:MAX_EXPANSION])
    longer = full[-1][: len(short) + 1]  # its terms lie past the cut of the shorter one's
    assert corpus.expand("abstract", longer) == _whoosh_expansion(corpus, "abstract", longer)
    assert set(corpus.expand("abstract", longer)) - set(full[:MAX_EXPANSION])


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_postings_are_whooshs_own_across_segments_and_fields(index: SearchIndex, data: st.DataObject) -> None:
    corpus = _corpus(index)
    fieldname = data.draw(st.sampled_from(["abstract", "title", "note"]))
    prefix = data.draw(st.sampled_from(_words(index)))[:3]
    terms = corpus.expand(fieldname, prefix)[:20] or ("zzzz-absent",)
    term = data.draw(st.sampled_from(terms))
    ids, weights = corpus.postings(fieldname, term)
    want_ids: list[int] = []
    want_w: list[float] = []
    for leaf, offset in corpus.searcher.reader().leaf_readers():
        if (fieldname, term) in leaf:
            m = leaf.postings(fieldname, term)
            while m.is_active():
                want_ids.append(offset + m.id())
                want_w.append(m.weight())
                m.next()
    assert ids.tolist() == want_ids
    assert np.allclose(weights, np.array(want_w, np.float32))


def test_a_search_answers_the_same_from_kept_postings_as_cold(
    index: SearchIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    queries = [
        "neural radiance fields",
        "self-supervised point cloud",
        "diffus*",
        "video segm*",
        "reading group",
    ]
    cold = []
    for q in queries:
        index._drop()
        cold.append([(h.id, h.score) for h in index.search(q, limit=50).hits])
    monkeypatch.setattr(postings, "NORM_CACHE", 3_000)  # a small budget: entries evicted in between
    index._drop()
    for _ in range(2):
        warm = [[(h.id, h.score) for h in index.search(q, limit=50).hits] for q in queries]
        assert warm == cold


@pytest.mark.slow
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_doc_frequency_counts_the_postings(index: SearchIndex, data: st.DataObject) -> None:
    corpus = _corpus(index)
    fieldname = data.draw(st.sampled_from(["abstract", "title", "note"]))
    prefix = data.draw(st.sampled_from(_words(index)))[:3]
    for term in (*corpus.expand(fieldname, prefix)[:10], "zzzz-absent"):
        assert corpus.doc_frequency(fieldname, term) == len(corpus.postings(fieldname, term)[0])


def test_stored_fields_kept_across_queries_are_whooshs_own(index: SearchIndex) -> None:
    corpus = _corpus(index)
    for docnum in range(corpus.n):
        assert corpus.stored_fields(docnum) == corpus.searcher.stored_fields(docnum)
    kept = corpus.stored_fields(corpus.n - 1)
    assert corpus.stored_fields(corpus.n - 1) is kept  # the second read is the kept one


@pytest.fixture(scope="module")
def with_deletions(tmp_path_factory: pytest.TempPathFactory) -> SearchIndex:
    """Segments of real abstracts, a tenth of them deleted and a tenth replaced (old copy deleted)."""
    texts = dev_abstracts()
    per = max(TINY_SEGMENT, len(texts) // SEGMENTS)
    upto = min(len(texts), per * SEGMENTS)
    ix = SearchIndex(tmp_path_factory.mktemp("deleted") / "index")
    ix.rebuild([], 0)
    for s in range(0, upto, per):
        ix.update([_doc(i, texts[i], "") for i in range(s, s + per)], merge="none")
    ix.delete(range(0, upto, 10))
    ix.update([_doc(i, texts[(i + 7) % upto], "moved") for i in range(5, upto, 10)], merge="none")
    return ix


def _whoosh_postings(corpus: Corpus, fieldname: str, term: str) -> tuple[list[int], list[float]]:
    """A term's postings through Whoosh's own matchers (its filter skips deleted documents)."""
    want_ids: list[int] = []
    want_w: list[float] = []
    for leaf, offset in corpus.searcher.reader().leaf_readers():
        if (fieldname, term) in leaf:
            m = leaf.postings(fieldname, term)
            while m.is_active():
                want_ids.append(offset + m.id())
                want_w.append(m.weight())
                m.next()
    return want_ids, want_w


@pytest.mark.slow
@pytest.mark.fast_paths
def test_segments_with_deletions_are_decoded_by_block_under_the_filter(with_deletions: SearchIndex) -> None:
    corpus = _corpus(with_deletions)
    reader = corpus.searcher.reader()
    filtered = [leaf for leaf, _ in reader.leaf_readers() if leaf.has_deletions()]
    assert len(filtered) >= 2
    for leaf in filtered:
        common = leaf.most_frequent_terms("abstract", 1)[0][1]  # a list of blocks
        matcher = leaf.postings("abstract", common)
        inner, deleted = posting_decode.unfiltered(matcher)
        assert inner is not matcher and deleted == leaf.deleted_docs_set
        ids, _ = posting_decode.decode_postings(leaf.postings("abstract", common))
        assert len(ids) > 128 and not set(ids.tolist()) & deleted


# Each example reads a common term's postings through Whoosh's public API (~0.5 s): 30 draws
# over three fields, prefixes and the commonest terms.
@settings(max_examples=30, deadline=None)
@given(data=st.data())
@pytest.mark.slow
def test_postings_of_segments_with_deletions_are_whooshs_own(
    with_deletions: SearchIndex, data: st.DataObject
) -> None:
    corpus = _corpus(with_deletions)
    fieldname = data.draw(st.sampled_from(["abstract", "title", "note"]))
    prefix = data.draw(st.sampled_from(_words(with_deletions)))[:3]
    common = [t.decode() for _, t in corpus.searcher.reader().most_frequent_terms(fieldname, 5)]
    terms = (*corpus.expand(fieldname, prefix)[:20], *common, "moved")
    term = data.draw(st.sampled_from(terms))
    ids, weights = corpus.postings(fieldname, term)
    want_ids, want_w = _whoosh_postings(corpus, fieldname, term)
    assert ids.tolist() == want_ids
    assert weights.tolist() == np.array(want_w, np.float32).tolist()
    assert corpus.doc_frequency(fieldname, term) == len(want_ids)


def _whoosh_phrase(corpus: Corpus, fieldname: str, stems: list[str]) -> list[int]:
    """Docnums where Whoosh's own Phrase query finds the stems in a row (deleted documents left out)."""
    from whoosh.query import Phrase

    found = corpus.searcher.search(Phrase(fieldname, stems), limit=None, scored=False)
    return sorted(found.docs())


@pytest.mark.parametrize("which", ["index", "with_deletions"])
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_phrases_stand_where_whooshs_phrase_query_finds_them(
    which: str, data: st.DataObject, request: pytest.FixtureRequest
) -> None:
    from desk.core.search.schema import analyze

    ix: SearchIndex = request.getfixturevalue(which)
    corpus = _corpus(ix)
    text = data.draw(st.sampled_from(dev_abstracts()[:600]))
    stems = analyze(text)
    length = data.draw(st.integers(min_value=2, max_value=4))
    at = data.draw(st.integers(min_value=0, max_value=max(0, len(stems) - length)))
    stems = stems[at : at + length]
    if data.draw(st.booleans()) and len(stems) > 2:  # a word out of place: few or no documents
        stems[1], stems[2] = stems[2], stems[1]
    fieldname = data.draw(st.sampled_from(["abstract", "title"]))
    holding = [corpus.postings(fieldname, s)[0] for s in stems]
    candidates = holding[0]
    for docs in holding[1:]:
        candidates = np.intersect1d(candidates, docs, assume_unique=True)
    candidates = candidates[corpus.alive[candidates]]
    want = _whoosh_phrase(corpus, fieldname, stems)
    assert corpus.phrase_docs(fieldname, stems, candidates).tolist() == want


def test_a_phrases_common_words_are_read_only_where_its_rare_ones_stand(index: SearchIndex) -> None:
    from desk.core.search.schema import analyze

    corpus = _corpus(index)
    common = [t.decode() for _, t in corpus.searcher.reader().most_frequent_terms("abstract", 2)]
    text = next(t for t in dev_abstracts() if all(c in analyze(t) for c in common))
    stems = analyze(text)
    rare = min(stems, key=lambda s: corpus.doc_frequency("abstract", s))
    i = stems.index(rare)
    phrase = stems[max(0, i - 1) : i + 2] if i else stems[:3]
    phrase = [*phrase, *common]  # the common words after it: not in a row there
    candidates = corpus.postings("abstract", rare)[0]
    corpus.positions_read = 0
    assert corpus.phrase_docs("abstract", phrase, candidates).tolist() == []
    # the rare word read for its documents; what follows only where the phrase still stands
    assert 0 < corpus.positions_read < len(candidates) * 2 + len(phrase)


@pytest.mark.slow
@pytest.mark.parametrize("which", ["index", "with_deletions"])
@settings(max_examples=40, deadline=None)
@given(data=st.data())
@pytest.mark.fast_paths
def test_a_prefix_walk_lists_whooshs_terms_and_their_postings_need_no_lookup(
    which: str, data: st.DataObject, request: pytest.FixtureRequest
) -> None:
    ix: SearchIndex = request.getfixturevalue(which)
    corpus = _corpus(ix)
    word = data.draw(st.sampled_from(_words(ix)))
    prefix = word[: data.draw(st.integers(min_value=1, max_value=min(4, len(word))))]
    fieldname = data.draw(st.sampled_from(["abstract", "title", "note"]))
    corpus._expansions.clear()
    terms = corpus.expand(fieldname, prefix)
    assert terms == _whoosh_expansion(corpus, fieldname, prefix)
    looked_up = corpus.cache.lookups
    for term in terms:
        ids, weights = corpus.postings(fieldname, term)
        want_ids, want_w = _whoosh_postings(corpus, fieldname, term)
        assert ids.tolist() == want_ids
        assert weights.tolist() == np.array(want_w, np.float32).tolist()
        assert corpus.doc_frequency(fieldname, term) == len(want_ids)
    assert corpus.cache.lookups == looked_up  # each segment's entries came from the walk


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_bm25f_at_some_papers_equals_bm25f_over_all_to_the_last_bit(
    data: st.DataObject, index: SearchIndex
) -> None:
    """A phrase's score is read at the papers where it holds (bm25f_at), not spread over every
    paper holding its words: the same float32 values."""
    from desk.core.search import ranking
    from desk.core.search.schema import analyze

    corpus = _corpus(index)
    stems = analyze(data.draw(st.sampled_from(dev_abstracts()[:600])))
    words = data.draw(st.lists(st.sampled_from(stems), min_size=1, max_size=4, unique=True))
    fields = data.draw(
        st.lists(st.sampled_from([("title", 2.5), ("abstract", 1.0), ("note", 1.5)]), min_size=1, unique=True)
    )
    items = [(f, w, weight) for f, weight in fields for w in words]
    scores, mask = ranking.bm25f(corpus, items)
    held = np.flatnonzero(mask)
    some = data.draw(st.sets(st.integers(0, max(0, len(held) - 1)), max_size=30)) if len(held) else set()
    stray = data.draw(st.sets(st.integers(0, corpus.n - 1), max_size=10))  # holding none, maybe
    docs = np.array(sorted({int(held[i]) for i in some} | stray), np.int64)
    assert ranking.bm25f_at(corpus, items, docs).tolist() == scores[docs].tolist()


@given(
    st.lists(st.sets(st.integers(0, 300), max_size=60), min_size=1, max_size=4),
)
def test_intersections_and_union_sizes_of_sorted_docnums(sets: list[set[int]]) -> None:
    from desk.core.search import ranking

    arrays = [np.array(sorted(s), np.int64) for s in sets]
    assert ranking._union_size(arrays) == len(set().union(*sets))
    a, b = arrays[0], arrays[-1]
    assert ranking._intersect(a, b).tolist() == sorted(sets[0] & sets[-1])


@pytest.mark.slow
@pytest.mark.parametrize("which", ["index", "with_deletions"])
def test_how_often_a_pair_stands_together_is_counted_or_estimated_from_a_sample(
    which: str, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ranking.phrase_frequency: exact (Whoosh's Phrase query's count) while the papers holding
    both words fit the sample, near it when a sample of them is read, and asked once a generation."""
    from desk.core.search import ranking
    from desk.core.search.schema import analyze

    corpus = _corpus(request.getfixturevalue(which))
    corpus.phrase_counts.clear()
    monkeypatch.setattr(ranking, "PAIR_SAMPLE", len(dev_abstracts()))  # every holder read
    pairs = {tuple(analyze(text)[k : k + 2]) for text in dev_abstracts()[:60] for k in (0, 3, 7)}
    for pair in sorted(p for p in pairs if len(p) == 2):
        want = len(_whoosh_phrase(corpus, "abstract", list(pair)))
        assert ranking.phrase_frequency(corpus, "abstract", pair) == want, pair
    read = corpus.positions_read
    assert ranking.phrase_frequency(corpus, "abstract", pair) == want  # kept: no positions read
    assert corpus.positions_read == read

    monkeypatch.setattr(ranking, "PAIR_SAMPLE", 40)
    counts = {}
    for text in dev_abstracts()[:300]:
        stems = analyze(text)
        for k in range(len(stems) - 1):
            counts[(stems[k], stems[k + 1])] = counts.get((stems[k], stems[k + 1]), 0) + 1
    common = sorted(counts, key=counts.__getitem__, reverse=True)[:5]
    corpus.phrase_counts.clear()
    for pair in common:
        want = len(_whoosh_phrase(corpus, "abstract", list(pair)))
        estimate = ranking.phrase_frequency(corpus, "abstract", pair)
        assert want / 2 <= estimate <= want * 2, (pair, want, estimate)
