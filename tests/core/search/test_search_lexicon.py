"""The spelling lexicon's file: an edit's new words are appended, not the whole file written again."""

from __future__ import annotations

import re
from pathlib import Path

from dev_texts import needs_dev_corpus

from desk.core.search import spelling
from desk.core.search.spelling import Lexicon


def _read(path: Path) -> dict[str, int]:
    fresh = Lexicon(path)
    fresh.refresh()
    return fresh.counts


def test_new_words_are_appended_and_read_back_as_counted(tmp_path: Path) -> None:
    path = tmp_path / "words.tsv"
    lex = Lexicon(path)
    lex.add_counts({f"word{k}": k + 1 for k in range(400)})
    lex.save()
    lex.refresh()
    size = path.stat().st_size
    lex.add_counts({"reinforc": 1, "word7": 2})  # a note being typed: a new word, a known one
    lex.save_changes()
    assert path.stat().st_size - size < 40  # two lines appended, not 400 written again
    assert _read(path) == lex.counts and lex.counts["word7"] == 10


def test_a_line_cut_by_a_kill_is_skipped_and_the_file_compacts(tmp_path: Path) -> None:
    path = tmp_path / "words.tsv"
    lex = Lexicon(path)
    lex.add_counts({f"word{k}": 1 for k in range(40)})
    lex.save()
    lex.refresh()
    with path.open("a", encoding="utf-8") as fh:
        fh.write("halfwri")  # an append a kill cut short
    lex.refresh()
    lex.add_counts({"written": 3})
    lex.save_changes()
    assert _read(path) == lex.counts and "halfwri" not in lex.counts  # no "halfwriwritten"
    appended = []
    for k in range(40):
        lex.add_counts({f"more{k}": 1})
        lex.save_changes()
        appended.append(path.read_text(encoding="utf-8").count("\n") - len(lex.counts))
        assert _read(path) == lex.counts
    # Once the appended lines reach a quarter of the words the file is one line a word again.
    assert 0 in appended[1:] and max(appended) * spelling.COMPACT_SHARE <= len(lex.counts) + 8, appended


def _parsed(text: str) -> dict[str, int]:
    """The file's counts as refresh always parsed them: the last line of a word whose count is a number."""
    counts: dict[str, int] = {}
    for line in text.splitlines():
        word, _, n = line.partition("\t")
        if word and n.isdigit():
            counts[word] = int(n)
    return counts


def _dev_lexicon(path: Path) -> Lexicon:
    """A lexicon of the dev corpus's words, written whole, then edits appended and a cut line."""
    from collections import Counter

    from dev_texts import dev_abstracts

    docs = [set(re.findall(r"\w+", text.lower())) for text in dev_abstracts()]
    lex = Lexicon(path)
    lex.add_counts(Counter(w for words in docs[:-20] for w in words))
    lex.save()
    for words in docs[-20:]:  # notes typed later: their words appended
        lex.refresh()
        lex.add_counts(dict.fromkeys(words, 1))
        lex.save_changes()
    with path.open("a", encoding="utf-8") as fh:
        fh.write("\nmodel\tx12\nmodel\t\n\tfour\nhalfwri")  # malformed lines and a cut append
    return lex


@needs_dev_corpus
def test_words_are_looked_up_in_the_file_without_parsing_it(tmp_path: Path) -> None:
    path = tmp_path / "words.tsv"
    _dev_lexicon(path)
    text = path.read_text(encoding="utf-8")
    expected = _parsed(text)
    assert len(expected) > 1000 and text.count("\n\n") >= 20
    words = [*expected, "halfwri", "four", "", "nosuchword", "model\tx12"]
    # A few words (a search's, an edit's) are looked up in the text; a long-lived process that
    # asks for many gets the file parsed once: the answers are the same either way.
    few = [*words[:: len(words) // 60], *words[-5:]]
    for batch, parsed in ((few, False), (words, True)):
        lex = Lexicon(path, lazy=True)
        lex.refresh()
        for word in batch:
            assert lex.count(word) == expected.get(word, 0), word
            assert (word in lex) == (word in expected) == (word in lex.counts), word
            assert lex.counts.get(word) == expected.get(word), word
        assert (lex._counts is not None) is parsed
    assert dict(lex.counts) == expected and len(lex) == len(expected)


def test_an_edit_writes_the_same_file_whether_or_not_the_lexicon_was_parsed(tmp_path: Path) -> None:
    lazy_path, parsed_path = tmp_path / "a.tsv", tmp_path / "b.tsv"
    _dev_lexicon(lazy_path)
    parsed_path.write_bytes(lazy_path.read_bytes())
    lazy, parsed = Lexicon(lazy_path, lazy=True), Lexicon(parsed_path)
    lazy.refresh()
    parsed.refresh()
    assert parsed._counts is not None and len(parsed) > 1000  # not lazy: parsed on refresh
    for edit in ({"reinforc": 1, "model": 2, "nosuchword": 1}, {"reinforc": 1}, {"diffusion": 5}):
        assert lazy.add_counts(edit) == parsed.add_counts(edit)
        lazy.save_changes()
        parsed.save_changes()
        assert lazy_path.read_bytes() == parsed_path.read_bytes()
        assert lazy._counts is None
    assert dict(lazy.counts) == dict(parsed.counts) == _parsed(lazy_path.read_text(encoding="utf-8"))


def test_a_long_lived_index_parses_the_lexicon_once_a_command_looks_words_up(tmp_path: Path) -> None:
    """The window keeps its lexicon across edits: parsed on refresh, each note's commit then looks
    its ~100 words up in a dict; the command line's one-shot index looks up only its few words."""
    from desk.core.search.index import SearchIndex

    _dev_lexicon(tmp_path / "words.tsv")
    window = SearchIndex(tmp_path)._lexicon
    command = SearchIndex(tmp_path, one_shot=True)._lexicon
    for lex in (window, command):
        lex.refresh()
        assert lex.count("model") == _parsed((tmp_path / "words.tsv").read_text(encoding="utf-8"))["model"]
    assert window._counts is not None and command._counts is None
