"""The spelling lexicon's file: an edit's new words are appended, not the whole file written again."""

from __future__ import annotations

from pathlib import Path

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
