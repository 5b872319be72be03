"""Half-typed and unaccented queries: the word being typed completes (in a field too), a word
written without its accents finds the accented one as it is typed, the start of a word is
completed rather than "corrected" into another word, and an open quote is typed word for word."""

from __future__ import annotations

from pathlib import Path

import pytest

from desk.core.library.facade import Library

ABSTRACTS = (
    "We study the Nyström method for kernel approximation and show that landmark selection by"
    " leverage scores gives better error bounds than uniform sampling.",
    "A randomized Nyström approximation of large kernel matrices yields fast ridge regression with"
    " provable guarantees on the excess risk.",
    "Graph neural networks learn node representations by passing messages along the edges of a"
    " graph, and we study their expressive power.",
    "We propose a pruning method for convolutional networks that removes redundant channels"
    " without retraining, and new bounds on its error.",
    "A new benchmark for unposed questions in dialogue systems, with a phrase-level annotation of intent.",
)
LIST = "Kernel Papers\n\n" + "\n\n".join(ABSTRACTS) + "\n"


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("half_typed")
    (folder / "kernels.txt").write_text(LIST, encoding="utf-8")
    lib_dir = folder / "library"
    with Library(lib_dir) as lib:
        assert lib.import_paths([folder / "kernels.txt"]).added == 5
        lib.set_title(lib.paper_ids()[2], "Graph neural networks and their expressive power")
    return lib_dir


def found(lib: Library, query: str, *, typing: bool) -> set[str]:
    return {lib.paper(h.id).abstract[:20] for h in lib.search_ids(query, typing=typing).hits}


def test_the_unfinished_word_in_a_field_completes_as_it_is_typed(library: Path) -> None:
    with Library(library) as lib:
        assert found(lib, "title:gra", typing=True) == {"Graph neural network"}
        assert found(lib, "title:graph", typing=True) == {"Graph neural network"}
        assert lib.search_ids("title:gra", typing=False).total == 0  # a finished query: the word "gra"
        assert lib.search_ids("netw", typing=True).total == 2  # a bare word too


def test_a_word_without_its_accents_finds_them_as_it_is_typed(library: Path) -> None:
    with Library(library) as lib:
        for typing in (True, False):
            result = lib.search_ids("Nystrom", typing=typing)
            assert result.total == 2, typing
            assert result.suggestion is None  # found as it is: nothing to suggest
            assert "nyström" in result.marks.terms  # and marked where it stands
        assert lib.search_ids("nystrom approximation", typing=True).total >= 2


def test_the_start_of_a_word_is_completed_not_made_another_word(library: Path) -> None:
    with Library(library) as lib:
        result = lib.search_ids("graph neural netw")
        assert result.suggestion == "graph neural networks"


def test_an_open_quote_is_not_corrected(library: Path) -> None:
    with Library(library) as lib:
        result = lib.search_ids('"unclosed phrase')
        assert result.suggestion is None and not result.corrected


def _lexicon_file(tmp_path: Path, lines: str) -> Path:
    path = tmp_path / "lexicon.tsv"
    path.write_text(lines, encoding="utf-8")
    return path


@pytest.mark.parametrize("lazy", [True, False])
def test_accented_forms_are_found_however_many_accents_and_whether_the_file_is_parsed(
    tmp_path: Path, lazy: bool
) -> None:
    from desk.core.search.spelling import Lexicon

    words = {"graph": 9, "nyström": 4, "nystrom": 1, "nyströms": 2, "séance": 1, "erdős": 3, "çéàè": 1}
    path = _lexicon_file(tmp_path, "".join(f"{w}\t{n}\n" for w, n in words.items()))
    lex = Lexicon(path, lazy=lazy)
    lex.refresh()
    assert lex.accented("Nystrom") == ["nyström"]
    assert lex.accented("erdos") == ["erdős"]
    assert lex.accented("ceae") == ["çéàè"]  # four accents: more than an edit automaton's two
    assert lex.accented("graph") == []
    lex.add_counts({"nyströmer": 5})  # a word an import brings is found at once
    assert lex.accented("nystromer") == ["nyströmer"]
