"""Snippets, highlighting and the spelling lexicon, without an index."""

from __future__ import annotations

from pathlib import Path

from desk.core.search.query import Word
from desk.core.search.snippets import ELLIPSIS, Highlighter, lead, snippet, stem_word
from desk.core.search.spelling import Lexicon, apply, corrections

FILLER = "Lorem ipsum dolor sit amet, consectetur adipiscing elit. " * 6
TEXT = FILLER + "Our policy learns Probability estimates; policies generalise. " + FILLER


def test_window_is_centred_on_matches_and_cut_at_words() -> None:
    hl = Highlighter(["polici", "probabl"])
    cut = snippet(TEXT, hl)
    assert cut is not None
    text, spans = cut
    assert text.startswith(ELLIPSIS) and text.endswith(ELLIPSIS)
    assert 150 <= len(text) <= 245
    words = [text[s:e] for s, e in spans]
    assert words == ["policy", "Probability", "policies"]
    inner = text[len(ELLIPSIS) : -len(ELLIPSIS)]
    assert TEXT.find(inner) > 0
    start = TEXT.find(inner)
    assert TEXT[start - 1] == " " and TEXT[start + len(inner)] == " "  # whole words only


def test_richest_window_wins() -> None:
    text = "alpha one. " + "x " * 200 + "alpha beta gamma together. " + "y " * 200 + "gamma alone."
    hl = Highlighter([stem_word(w) for w in ("alpha", "beta", "gamma")])
    snip, spans = snippet(text, hl) or ("", ())
    assert [snip[s:e] for s, e in spans][:3] == ["alpha", "beta", "gamma"]


def test_no_match_gives_none_and_lead_cuts_the_opening() -> None:
    assert snippet(TEXT, Highlighter(["zebra"])) is None
    assert snippet(TEXT, Highlighter([])) is None
    text, spans = lead(TEXT)
    assert text.endswith(ELLIPSIS) and TEXT.startswith(text[: -len(ELLIPSIS)]) and not spans
    assert lead("short text") == ("short text", ())


def test_prefix_highlighting() -> None:
    hl = Highlighter([], ["diffus"])
    text, spans = snippet("Diffusion models diffuse; a diffuser.", hl) or ("", ())
    assert [text[s:e] for s, e in spans] == ["Diffusion", "diffuse", "diffuser"]


def test_lexicon_corrects_by_distance_then_frequency(tmp_path: Path) -> None:
    lex = Lexicon(tmp_path / "words.tsv")
    for _ in range(5):
        lex.add({"learning", "reinforcement"})
    lex.add({"leaning", "reinforce", "mode"})
    lex.add({"model"})
    lex.add({"model"})
    lex.save()
    fresh = Lexicon(tmp_path / "words.tsv")
    fresh.refresh()
    assert len(fresh) == 6 and fresh.counts["learning"] == 5
    assert fresh.correct("modle", lambda s: False) == "model"  # a swap beats the rarer one-edit "mode"
    assert fresh.correct("lerning", lambda s: False) == "learning"
    assert fresh.correct("learning", lambda s: True) is None
    assert fresh.correct("zzzzzz", lambda s: False) is None
    assert fresh.correct("ab", lambda s: False) is None
    # a typo that stems to a known term only gets a same-stem correction
    assert fresh.correct("reinforcment", lambda s: True) == "reinforcement"
    words = [Word("reinforcment", None, False, 0, 12), Word("lerning", None, False, 13, 20)]
    assert (
        apply(
            "reinforcment lerning",
            corrections(fresh, "reinforcment lerning", words, lambda s: s == "reinforc"),
        )
        == "reinforcement learning"
    )


def test_lexicon_reloads_when_the_file_changes(tmp_path: Path) -> None:
    path = tmp_path / "words.tsv"
    lex = Lexicon(path)
    lex.refresh()
    assert len(lex) == 0
    path.write_text("platypus\t2\nbroken line\n", encoding="utf-8")
    lex.refresh()
    assert "platypus" in lex and len(lex) == 1


def marks_for(query: str) -> Highlighter:
    from desk.core.search.compiler import compile_query
    from desk.core.search.model import Marks
    from desk.core.search.query import parse

    c = compile_query(parse(query))
    return Highlighter.of(Marks(tuple(c.terms), tuple(c.prefixes), tuple(c.phrases), tuple(c.loose)))


PHRASE_TEXT = (
    "A large model of language. We train large language models on language data; "
    "a large-language model is large."
)


def words(hl: Highlighter, text: str) -> list[str]:
    return [text[s:e] for s, e in hl.spans(text)]


def test_a_phrase_marks_where_the_phrase_stands_only() -> None:
    assert words(marks_for('"large language"'), PHRASE_TEXT) == ["large", "language", "large", "language"]
    # A word also searched on its own is marked everywhere; the phrase's words only in it.
    assert words(marks_for('"large language" data'), PHRASE_TEXT) == [
        "large", "language", "data", "large", "language",
    ]  # fmt: skip
    assert words(marks_for("large language"), PHRASE_TEXT).count("large") == 4
    # Stopwords between the words do not break the phrase (the index counts no position for them).
    assert words(marks_for('"state of the art"'), "the state of the art, a state for the art") == [
        "state", "art", "state", "art",
    ]  # fmt: skip


def test_a_phrase_being_typed_marks_its_words_and_the_started_one() -> None:
    assert words(marks_for('"large lang'), PHRASE_TEXT) == ["large", "language", "large", "language"]
    assert words(marks_for("diffus*"), "diffusion and diffusers") == ["diffusion", "diffusers"]


def test_the_snippet_of_a_phrase_query_is_around_the_phrase() -> None:
    text = "large " + FILLER + " the large language models " + FILLER
    cut = snippet(text, marks_for('"large language"'))
    assert cut is not None
    assert [cut[0][s:e] for s, e in cut[1]] == ["large", "language"]


def test_a_mark_keeps_the_combining_marks_of_its_last_letter() -> None:
    text = "the cafe\u0301 policy"
    (span,) = Highlighter([stem_word("cafe")]).spans(text)
    assert text[span[0] : span[1]] == "cafe\u0301"
