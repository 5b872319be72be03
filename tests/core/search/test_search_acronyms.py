"""Acronyms learned from the library: definitions found, stored, kept up to date, and searched."""

from __future__ import annotations

import json
from itertools import accumulate
from pathlib import Path

import pytest
from dev_texts import needs_dev_corpus
from hypothesis import given
from hypothesis import strategies as st

from desk.core.search import IndexDoc, IndexState, SearchIndex
from desk.core.search.acronym_definitions import definitions, long_form, stems
from desk.core.search.acronyms import ACRONYMS_NAME, Acronyms, read
from desk.core.search.schema import analyze


def _pairs(text: str) -> set[tuple[str, str]]:
    return {(short, long) for short, long, _ in definitions(text)}


def test_definitions_are_found_in_both_orders() -> None:
    text = (
        "We revisit neural architecture search (NAS) for detectors. Stein variational gradient "
        "descent (SVGD) moves particles. Clients train with federated learning (FL). "
        "We use ViT (vision transformer) backbones and self-supervised learning (SSL)."
    )
    assert _pairs(text) == {
        ("NAS", "neural architecture search"),
        ("SVGD", "stein variational gradient descent"),
        ("FL", "federated learning"),
        ("ViT", "vision transformer"),
        ("SSL", "self-supervised learning"),
    }


def test_plural_short_forms_and_hyphenated_long_forms() -> None:
    text = (
        "Neural radiance fields (NeRFs) and vision-and-language navigation (VLN) agents; "
        "deep neural networks (DNNs)."
    )
    assert _pairs(text) == {
        ("NeRF", "neural radiance fields"),
        ("VLN", "vision-and-language navigation"),
        ("DNN", "deep neural networks"),
    }


@pytest.mark.parametrize(
    "text",
    [
        "Results improve (e.g. on ImageNet) a lot.",
        "as shown in prior work (Smith et al.) and (see Fig. 2).",
        "a loss (1) and a bound (Eq. 3)",
        "the model (SOTA) is fast",  # the words before do not spell it
        "we call it (Ours)",  # one capital: not an acronym
        "neural architecture search with weight sharing (NAS)",  # more words than its letters
    ],
)
def test_text_that_defines_nothing(text: str) -> None:
    assert definitions(text) == set()


def test_long_form_is_the_shortest_run_that_spells_the_short_form() -> None:
    assert long_form("NAS", "a novel and fast neural architecture search") == "neural architecture search"
    assert long_form("SSL", "recent self-supervised learning") == "self-supervised learning"
    assert long_form("XYZ", "nothing spelled here") is None


@given(st.text(alphabet="abcdefghij NeRF-é.,()1AB ", max_size=60))
def test_stems_equal_the_analyzer(text: str) -> None:
    assert list(stems(text)) == analyze(text)


def _doc(i: int, abstract: str, rev: int = 1) -> IndexDoc:
    return IndexDoc(i, rev, f"Paper {i}", "", abstract, "", False, False, ("Test",))


LIBRARY = [
    _doc(1, "We propose a neural architecture search (NAS) method for detectors."),
    _doc(2, "A neural architecture search over cell structures finds compact networks."),
    _doc(3, "Our NAS controller samples architectures with a recurrent policy."),
    _doc(4, "Diffusion models generate images from noise."),
    _doc(5, "We study neural architecture search with weight sharing (NAS) on small budgets."),
]


@pytest.fixture()
def index(tmp_path: Path) -> SearchIndex:
    ix = SearchIndex(tmp_path / "index")
    ix.rebuild(LIBRARY, len(LIBRARY))
    return ix


def _ids(ix: SearchIndex, query: str) -> list[int]:
    return [h.id for h in ix.search(query).hits]


def test_a_typed_acronym_also_finds_its_long_form_below_the_typed_word(index: SearchIndex) -> None:
    found = _ids(index, "NAS")
    assert set(found) == {1, 2, 3, 5}  # 2 only spells it out
    assert found[-1] == 2  # below every paper holding the typed word
    assert 4 not in found


def test_typed_long_form_words_also_find_the_acronym_below_them(index: SearchIndex) -> None:
    found = _ids(index, "neural architecture search")
    assert set(found) == {1, 2, 3, 5}  # 3 only says "NAS"
    assert found[-1] == 3


def test_definitions_are_stored_and_counted(index: SearchIndex) -> None:
    store = Acronyms(index.directory / ACRONYMS_NAME)
    store.refresh()
    assert [e.long for e in store.expansions("nas")] == ["neural architecture search"]
    assert store.expansions("NAS")[0].documents == 1  # paper 5's words do not spell it (see below)
    assert store.short_form(analyze("neural architecture search")) is not None


def test_acronyms_are_updated_on_import_and_delete(index: SearchIndex) -> None:
    index.update([_doc(6, "Stein variational gradient descent (SVGD) transports particles.")])
    index.update([_doc(7, "Kernelized Stein variational gradient descent for inference.")])
    assert _ids(index, "SVGD") == [6, 7]
    index.delete([6])
    assert _ids(index, "SVGD") == []  # the only definition is gone with its paper


def test_a_changed_abstract_replaces_its_definitions(index: SearchIndex) -> None:
    index.update([_doc(3, "Federated learning (FL) keeps data on clients.", rev=2)])
    index.update([_doc(8, "Clients in federated learning share gradients.")])
    assert _ids(index, "FL")[-1] == 8
    store = Acronyms(index.directory / ACRONYMS_NAME)
    store.refresh()
    assert store.by_doc[3] == frozenset(definitions("Federated learning (FL) keeps data on clients."))


def test_a_lowercase_common_word_is_not_taken_for_an_acronym(tmp_path: Path) -> None:
    cats = [_doc(i, f"A photo of a cat number {i} on a sofa.") for i in range(1, 9)]
    defined = _doc(9, "A cascade detection transformer (CAT) localizes objects.")
    spelled = _doc(10, "We train a cascade detection transformer end to end.")
    ix = SearchIndex(tmp_path / "index")
    ix.rebuild([*cats, defined, spelled], 10)
    assert 10 not in _ids(ix, "cat")  # "cat" is mostly the animal here
    assert 10 in _ids(ix, "CAT")  # typed as the acronym


def test_the_store_file_is_checked_and_rebuilt(index: SearchIndex) -> None:
    path = index.directory / ACRONYMS_NAME
    assert read(path) is not None
    data = json.loads(path.read_text(encoding="utf-8"))
    data["payload"]["defs"][0][1] = "something else entirely"
    path.write_text(json.dumps(data), encoding="utf-8")
    assert read(path) is None  # the checksum no longer matches
    assert index.state() is IndexState.CORRUPT
    path.unlink()
    assert index.state() is IndexState.CORRUPT
    index.rebuild(LIBRARY, len(LIBRARY))
    assert index.state() is IndexState.OK
    assert _ids(index, "NAS")[-1] == 2


def _dev_store(path: Path) -> Acronyms:
    """The acronyms of the dev corpus's abstracts (a paper id each), saved as the index saves them."""
    from dev_texts import dev_abstracts

    store = Acronyms(path)
    store.set_docs({k + 1: definitions(text) for k, text in enumerate(dev_abstracts())})
    store.save()
    return store


@needs_dev_corpus
def test_a_search_reads_the_store_without_a_set_per_document(tmp_path: Path) -> None:
    path = tmp_path / ACRONYMS_NAME
    _dev_store(path)
    whole = Acronyms(path)
    whole.by_doc = read(path) or {}  # every document's set, as the store was always read
    assert len(whole) > 100
    lazy = Acronyms(path)
    lazy.refresh()
    assert lazy._file is not None and bool(lazy)  # the rows as read, no set built
    assert lazy._lookup() == whole._lookup()
    for key in whole._lookup()[0]:
        assert lazy.expansions(key) == whole.expansions(key), key
    for found in list(whole._lookup()[1])[:200]:
        assert lazy.short_form(found) == whole.short_form(found)
    assert lazy.longest == whole.longest and lazy._file is not None
    # An edit that leaves a paper's definitions as they were builds nothing and writes nothing.
    some = next(iter(whole.by_doc))
    assert not lazy.set_docs({some: whole.by_doc[some], 10**9: ()})
    assert lazy._file is not None
    assert lazy.set_docs({some: ()})  # a changed paper: every set built, then changed
    assert lazy._file is None and some not in lazy.by_doc and len(lazy) == len(whole) - 1


@needs_dev_corpus
def test_a_store_not_as_save_writes_it_is_read_whole(tmp_path: Path) -> None:
    path = tmp_path / ACRONYMS_NAME
    _dev_store(path)
    data = json.loads(path.read_text(encoding="utf-8"))
    payload = data["payload"]
    payload["flat"].insert(payload["sizes"][0], payload["flat"][0])  # an index twice in a row
    payload["sizes"][0] += 1
    payload["counts"][payload["flat"][0]] += 1  # counted as the rows say
    body = json.dumps(payload, ensure_ascii=False)  # spaces: not save()'s text
    import hashlib

    compact = json.dumps(payload, ensure_ascii=False, separators=(",", ":"))
    digest = hashlib.sha256(compact.encode("utf-8")).hexdigest()  # what read() checks
    path.write_text(f'{{"format":2,"sha256":"{digest}","payload":{body}}}', encoding="utf-8")
    store = Acronyms(path)
    store.refresh()
    found = read(path)
    assert found is not None and len(found) > 100
    assert store._file is None and store.by_doc == found  # read() decides, as it always did


@pytest.mark.fast_paths
def test_a_one_shot_note_commit_reads_the_store_only_when_an_abstract_changed(index: SearchIndex) -> None:
    """`desk note --set` (a one-shot index): a paper whose abstract is the one indexed keeps its
    definitions, so the store is not read (~80 ms at 100k papers); a changed abstract is read
    into it as before, and a new paper too."""
    path = index.directory / ACRONYMS_NAME
    index.close()
    before = path.read_bytes()
    noted = IndexDoc(1, 2, "Paper 1", "", LIBRARY[0].abstract, "read NAS again", False, False, ("Test",))
    one_shot = SearchIndex(index.directory, one_shot=True)
    one_shot.update([noted])
    assert one_shot._acronyms._stamp is None  # never read
    assert path.read_bytes() == before
    one_shot.close()
    again = SearchIndex(index.directory, one_shot=True)
    again.update([_doc(3, "Federated learning (FL) keeps data on clients.", rev=2), _doc(9, "Plain text.")])
    assert again._acronyms._stamp is not None  # read, and written with paper 3's new definitions
    again.close()
    store = Acronyms(path)
    store.refresh()
    assert store.by_doc[3] == frozenset(definitions("Federated learning (FL) keeps data on clients."))
    assert store.by_doc[1] == frozenset(definitions(LIBRARY[0].abstract))
    fresh = SearchIndex(index.directory)
    assert _ids(fresh, "note:NAS") == [1] and 3 in _ids(fresh, "FL")
    assert set(_ids(fresh, "NAS")) == {1, 2, 5}  # paper 3 no longer says NAS


@pytest.mark.fast_paths
def test_a_note_after_a_search_leaves_the_rows_unparsed_while_abstracts_stand(index: SearchIndex) -> None:
    """A window (or the runner's engine) has read the store's summary for its searches: a note on
    a paper whose abstract is the one indexed does not parse every paper's definitions (~25 ms at
    100k papers, the first edit of a process); a changed abstract still updates them."""
    index.close()
    window = SearchIndex(index.directory)
    assert set(_ids(window, "NAS")) == {1, 2, 3, 5}
    assert window._acronyms.rows_unread()  # the search read the summary only
    noted = IndexDoc(1, 2, "Paper 1", "", LIBRARY[0].abstract, "read NAS again", False, False, ("Test",))
    window.update([noted])
    assert window._acronyms.rows_unread()  # the definitions stand: not parsed
    assert _ids(window, "note:NAS") == [1]
    window.update([_doc(3, "Federated learning (FL) keeps data on clients.", rev=2)])
    assert not window._acronyms.rows_unread()
    assert 3 in _ids(window, "FL") and set(_ids(window, "NAS")) == {1, 2, 5}
    window.close()


def test_the_rows_read_are_held_as_flat_arrays_not_a_list_per_document(tmp_path: Path) -> None:
    """A search's read of the store keeps each row's doc id and definition indexes in flat arrays:
    the store as read holds less than the rows alone held as lists (481k rows at a million papers:
    ~110 MB as lists), and answers every document's definitions as read() does."""
    import tracemalloc

    path = tmp_path / ACRONYMS_NAME
    store = Acronyms(path)
    store.set_docs({k + 1: {(f"A{k % 97}B", "a b", "a b")} for k in range(20_000)})
    store.save()
    tracemalloc.start()
    try:
        lazy = Acronyms(path)
        lazy.refresh()
        held, _ = tracemalloc.get_traced_memory()
        text = path.read_text(encoding="utf-8")
        payload = json.loads(text[text.index('"payload":') + 10 : -1])
        del text
        starts = list(accumulate(payload["sizes"], initial=0))
        flat = payload["flat"]
        as_lists = [[doc, *flat[starts[k] : starts[k + 1]]] for k, doc in enumerate(payload["ids"])]
        del payload, flat, starts  # the rows as lists, as format 1 read them
        with_lists, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(as_lists) == 20_000 and lazy._file is not None
    assert held < (with_lists - held) / 2, (held, with_lists - held)
    whole = read(path) or {}
    assert all(lazy._defs_of(doc) == found for doc, found in whole.items())
    assert lazy.by_doc == whole


def _as_format_1(store: Acronyms, path: Path) -> None:
    """``store`` written as desk wrote acronyms files before format 2: a list per document."""
    import hashlib

    defs = sorted({d for found in store.by_doc.values() for d in found})
    number = {d: k for k, d in enumerate(defs)}
    docs = [[doc, *sorted(number[d] for d in found)] for doc, found in sorted(store.by_doc.items())]
    body = json.dumps({"defs": defs, "docs": docs}, ensure_ascii=False, separators=(",", ":"))
    digest = hashlib.sha256(body.encode("utf-8")).hexdigest()
    path.write_text(f'{{"format":1,"sha256":"{digest}","payload":{body}}}', encoding="utf-8")


@needs_dev_corpus
def test_save_writes_flat_rows_and_a_format_1_file_reads_the_same(tmp_path: Path) -> None:
    """Format 2 keeps the rows as three flat lists after the definitions' counts and order; a file
    desk wrote in format 1 answers every lookup alike, through both readers, and the next save
    writes it in format 2."""
    new, old = tmp_path / "new.json", tmp_path / "old.json"
    saved = _dev_store(new)
    payload = json.loads(new.read_text(encoding="utf-8"))["payload"]
    assert json.loads(new.read_text(encoding="utf-8"))["format"] == 2
    assert list(payload) == ["defs", "counts", "order", "ids", "sizes", "flat"] and len(payload["ids"]) > 100
    assert sum(payload["sizes"]) == len(payload["flat"])
    _as_format_1(saved, old)
    assert read(old) == read(new) == saved.by_doc
    readers = []
    for path in (new, old):
        store = Acronyms(path)
        store.refresh()
        assert store._file is not None  # the rows as save() wrote them, in either format
        readers.append(store)
    a, b = readers
    assert a._lookup() == b._lookup()
    assert all(a.expansions(key) == b.expansions(key) for key in a._lookup()[0])
    assert a.longest == b.longest and a.by_doc == b.by_doc == saved.by_doc
    b.save()
    assert new.read_bytes() == old.read_bytes()


@pytest.mark.parametrize(
    "damage",
    ["sizes short", "sizes negative", "ids unsorted", "index out of range", "rows not lists", "counts off"],
)
def test_format_2_rows_that_do_not_add_up_are_left_to_read(tmp_path: Path, damage: str) -> None:
    """Rows with a checksum that matches but that save() never writes, or that disagree with the
    counts a search read: the rows are not taken, and by_doc is what read() makes of the file."""
    import hashlib

    path = tmp_path / ACRONYMS_NAME
    _dev_store(path)
    payload = json.loads(path.read_text(encoding="utf-8"))["payload"]
    if damage == "sizes short":
        payload["sizes"].pop()
    elif damage == "sizes negative":
        payload["sizes"][0], payload["sizes"][1] = -1, payload["sizes"][1] + payload["sizes"][0] + 1
    elif damage == "ids unsorted":
        payload["ids"][0], payload["ids"][1] = payload["ids"][1], payload["ids"][0]
    elif damage == "index out of range":
        payload["flat"][0] = len(payload["defs"])
    elif damage == "rows not lists":
        payload["flat"] = {"0": 1}
    else:
        payload["counts"][0] += 1
    body = json.dumps(payload, ensure_ascii=False, separators=(",", ":"))
    digest = hashlib.sha256(body.encode("utf-8")).hexdigest()
    path.write_text(f'{{"format":2,"sha256":"{digest}","payload":{body}}}', encoding="utf-8")
    store = Acronyms(path)
    store.refresh()
    assert store._file is not None and store._file.rows() is None  # the summary read, the rows refused
    assert store.by_doc == (read(path) or {})
    if damage in ("sizes short", "rows not lists", "counts off"):
        assert read(path) is None and store.by_doc == {}


def test_a_search_parses_the_summary_only_and_an_edit_the_rows(tmp_path: Path) -> None:
    """Format 2's definitions, counts and order are all a lookup reads; the rows (three quarters of
    the file at 100k papers) are parsed when an edit asks for a document's definitions."""
    path = tmp_path / ACRONYMS_NAME
    saved = _dev_store(path)
    payload = json.loads(path.read_text(encoding="utf-8"))["payload"]
    assert list(payload)[:3] == ["defs", "counts", "order"]
    store = Acronyms(path)
    store.refresh()
    assert store._file is not None
    whole = Acronyms(path)
    whole.by_doc = read(path) or {}
    assert store._lookup() == whole._lookup() and store.longest == whole.longest
    assert all(store.expansions(k) == whole.expansions(k) for k in whole._lookup()[0])
    assert store._file._parse is not None  # no row parsed
    some = next(iter(saved.by_doc))
    assert store._defs_of(some) == saved.by_doc[some]
    assert store._file is not None and store._file._parse is None  # parsed, still no set per document
