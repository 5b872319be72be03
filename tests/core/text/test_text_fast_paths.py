"""The ASCII fast paths of the normalizers give what the general (Unicode) path gives."""

from __future__ import annotations

import html
import unicodedata

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from desk.core.dedup import shingles
from desk.core.text import normalize as text_normalize

ascii_text = st.one_of(
    st.text(alphabet=st.characters(max_codepoint=127), max_size=200),
    st.lists(
        st.sampled_from(["We", "propose", "$\\alpha$-VOR", "\\textbf{S}parse", "D^2TR", "x_1", "**OGPO**",
                         "&amp;", "GPT-4", "(RACER)", "e.g.,", "\\cite{x}", "`code`", "\\url{a.b/c}}.",
                         "\t", "\n"]),
        max_size=40,
    ).map(" ".join),
)  # fmt: skip


def general_normalize(text: str) -> str:
    """shingles.normalize without its ASCII shortcut (the code as it was before it)."""
    text = text.translate(shingles._FIRST_TABLE).replace("$", "")
    for _ in range(3):
        text, found = shingles._STYLED.subn(r"\1", text)
        if not found:
            break
    text = shingles._STYLE.sub(" ", text)
    text = shingles._SCRIPT.sub(lambda m: f" ^{m.group(1) or m.group(2)} ", text)
    text = shingles._COMMAND.sub(shingles._command, text)
    text = unicodedata.normalize("NFKC", text).casefold().translate(shingles._LAST_TABLE)
    return shingles._CJK_CHAR.sub(r" \g<0> ", text) if shingles._CJK_CHAR.search(text) else text


def general_key(text: str) -> str:
    """dedup_key_of_readable without its ASCII shortcut."""
    if "&" in text:
        text = html.unescape(text)
    text = unicodedata.normalize("NFKC", text).casefold().translate(text_normalize._FOLD)
    text = unicodedata.normalize("NFC", text).translate(text_normalize._MARKUP)
    return " ".join(text_normalize._WORD_RE.findall(text))


@settings(max_examples=500, deadline=None)
@given(ascii_text)
def test_near_duplicate_normalize_of_ascii_text(text: str) -> None:
    assert shingles.normalize(text) == general_normalize(text)


@settings(max_examples=500, deadline=None)
@given(ascii_text)
def test_duplicate_key_of_ascii_text(text: str) -> None:
    assert text_normalize.dedup_key_of_readable(text) == general_key(text)


mixed_text = st.lists(
    st.sampled_from(["We", "α", "²", "×", "$\\alpha$-VOR", "\\textbf{\\emph{S}}parse", "D^2TR", "D^{2}TR",
                     "^", "\\", "\\le", "x_1", "—", "İ", "机器", "ﬁ", "\\url{a.b/c}}.", " ", "\t"]),
    max_size=40,
).map("".join)  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.text(max_size=200), mixed_text))
def test_any_text_still_takes_the_general_path(text: str) -> None:
    assert shingles.normalize(text) == general_normalize(text)
    assert text_normalize.dedup_key_of_readable(text) == general_key(text)


url_text = st.lists(
    st.sampled_from(["see", "https://github.com/x/y.", "HTTP://A.B", "code.io", "a.com/x", "x.ai", "net",
                     ".org", "://", " ", "(", ")", "www.example.org", "v1.2"]),
    max_size=30,
).flatmap(
    lambda words: st.sampled_from([" ", "", "  ", "\n", "\xa0"]).map(lambda sep: sep.join(words))
)  # fmt: skip


@pytest.mark.slow
@settings(max_examples=1000, deadline=None)
@given(st.one_of(st.text(max_size=100), url_text), st.sampled_from([" ", ""]))
def test_url_stripping_runs_the_regex_only_where_an_address_can_be(text: str, replacement: str) -> None:
    from desk.core.text import sentences

    assert sentences.strip_urls(text, replacement) == sentences._URL_RE.sub(replacement, text)


cue_words = st.sampled_from(
    ["We", "we", "and", "And", "This paper", "our work", "propose", "Proposes", "PUT FORWARD", "put  forward",
     "address", "Addresses", "these", "issues", "via", "called", "Our", "method", "RACER", "which we call",
     "termed", "x", ",", ".", ". ", "!", "e.g.", "(", "WE", "ſ", "İ", "ı", "K", "α", "\t", "\n", "\xa0",
     "thewe", "weand", "by developing", "the", "as", "further", "newly", "thıs paper", "thiſ work", "İs"]
)  # fmt: skip
cue_text = st.one_of(
    st.text(alphabet=st.characters(max_codepoint=127), max_size=150),
    st.text(max_size=100),
    st.lists(cue_words, max_size=30).flatmap(
        lambda words: st.sampled_from([" ", "", ". "]).map(lambda sep: sep.join(words))
    ),
)


@pytest.mark.slow
@settings(max_examples=1500, deadline=None)
@given(cue_text)
@example("In thıs paper propose RACER. Thiſ work introduces STAR. wE Design it, called OGPO.")
@example("İn this paper we propose RACER, and we present X.\tWe address these issues via Y.")
def test_the_cue_scan_finds_what_searching_each_sentence_finds(text: str) -> None:
    from desk.core.text import sentences
    from desk.core.text.cues import CUES, CueScan

    scan, pos = CueScan(text), 0
    for sentence in sentences.split_sentences(text):
        offset = text.find(sentence, pos)
        pos = max(offset, pos)
        found = scan.matches(offset, offset + len(sentence))
        got = [(m.span(), m.groupdict(), strength) for m, strength in found]
        expected = [
            ((offset + m.start(), offset + m.end()), m.groupdict(), cue.strength)
            for cue in CUES
            for m in cue.regex.finditer(sentence)
        ]
        assert got == expected


@settings(max_examples=1000, deadline=None)
@given(st.text(max_size=80))
def test_whitespace_and_control_shortcuts_change_nothing(text: str) -> None:
    from desk.core.text import markup

    assert markup.one_space(text) == markup._WS_RE.sub(" ", text)
    if text.isprintable():
        assert markup._CONTROL_RE.sub(" ", text) == text


paragraph_text = st.one_of(
    st.text(max_size=120),
    st.lists(
        st.sampled_from(["word", "&amp;", "&#xFEFF;", "&#x301;", "&para", "\ufeff", "\x07", "e\u0301", "\n",
                         "  ", "\u2028", "\x85", "Ω", "&lt;b&gt;"]),
        max_size=30,
    ).map("".join),
)  # fmt: skip


@pytest.mark.slow
@settings(max_examples=1000, deadline=None)
@given(paragraph_text)
def test_cleaning_a_paragraph_skips_only_the_passes_that_would_change_nothing(text: str) -> None:
    from desk.core.reader import parse

    def general(raw: str) -> str:  # clean_paragraph as it was before its shortcuts
        cleaned = parse._ENTITY.sub(lambda m: html.unescape(m.group()), parse._CONTROLS.sub("", raw))
        cleaned = unicodedata.normalize("NFC", parse._CONTROLS.sub("", cleaned))
        return " ".join(cleaned.split())

    assert parse.clean_paragraph(text) == general(text)


own_words = st.sampled_from(
    ["a", "A", "an", "AN", "the", "THE", "novel", "NOVEL", "Nový", "new", "NEW", "nEw", "proposed",
     "PROPOSED", "propoſed", "PROPOſED", "ſ", "İ", "ı", "K", " ", "  ", "\t", ",", "-", "x", "renew", "anew"]
)  # fmt: skip


@settings(max_examples=1500, deadline=None)
@given(
    st.one_of(
        st.text(max_size=80),
        st.lists(own_words, max_size=12).map(" ".join),
        st.lists(own_words, max_size=12).map("".join),
    )
)
@pytest.mark.slow
@example("This is enabled by A NOVEL framework")
@example("we extend thE PROPOſED method")
def test_the_own_sentence_filter_passes_every_sentence_the_regex_matches(sentence: str) -> None:
    from desk.core.text import short_names

    if short_names._OWN_RE.search(sentence):
        assert short_names._may_bring_own(sentence)


title_words = st.sampled_from(
    ["We", "we", "WE", "and", "And", "This paper", "this work", "our study", "Our", "propose", "introduces",
     "address", "tackles", "this", "by", "using", "study", "investigate", "further", "reframe", "reframes",
     "provide", "show", "that", "how", "first", "newly", "RACER", "x", ",", "(", "thıs paper", "thiſ work",
     "İn", "K", "α", "\t", "\xa0", "weand", "swe", "tower", "andwe", "thisour"]
)  # fmt: skip


@pytest.mark.slow
@settings(max_examples=1500, deadline=None)
@given(st.one_of(st.text(max_size=80), st.lists(title_words, max_size=20).map(" ".join)))
@example("In thıs paper we propose RACER by using x.")
@example("Here, we further reframe the task, and we show that it works")
def test_title_cues_searched_from_their_first_words_match_as_searching_everywhere(sentence: str) -> None:
    from desk.core.text import titles

    for regex in (titles._WE_PROPOSE_RE, titles._BY_RE, titles._STUDY_RE, titles._GERUND_RE,
                  titles._OFFER_RE, titles._THAT_RE):  # fmt: skip
        fast, plain = titles.search_from(regex, sentence), regex.search(sentence)
        assert (fast and (fast.span(), fast.groups())) == (plain and (plain.span(), plain.groups()))


markup_text = st.lists(
    st.sampled_from(["a", "h", "H", "ht", "http://", "HTTPS://", "httpſ://", "hTtP://x", "https:/", "\\", "$",
                     "*", "_", "`", "[", "<", " ", "é", "th", "hh"]),
    max_size=30,
).map("".join)  # fmt: skip


@pytest.mark.slow
@settings(max_examples=1500, deadline=None)
@given(st.one_of(st.text(max_size=80), markup_text), st.integers(0, 10))
def test_markup_starts_are_found_where_the_two_alternatives_found_them(text: str, start: int) -> None:
    import re

    from desk.core.text import markup

    plain = re.compile(r"[\\$*_`\[<]|(?i:https?://)").search(text, start)
    fast = markup._TEXT_TOKEN_RE.search(text, start)
    assert (fast and fast.span()) == (plain and plain.span())


@settings(max_examples=800, deadline=None)
@given(
    st.one_of(
        st.text(max_size=60),
        st.lists(st.sampled_from(["a", "-", "'", "\\", "{", "}", "~", "`", " ", "é"]), max_size=12).map(
            "".join
        ),
    )
)
def test_text_markup_is_found_as_the_regex_found_it(text: str) -> None:
    import re

    from desk.core.text.latex import has_text_markup

    assert has_text_markup(text) == bool(re.search(r"[\\{}~`]|--|''", text))


separated_text = st.lists(
    st.sampled_from(["We", "don’t", "“RACER”", "3–5", "2×2", "90°", "a—b", "‘x’", "«y»", "″", "´e", "x´",
                     "e\u0301", "soft\u00adware", "α", "$\\alpha$", "GPT-4", "**S**", " ", "\t", "&amp;",
                     "&#8217;"]),
    max_size=40,
).map("".join)  # fmt: skip


@settings(max_examples=500, deadline=None)
@given(separated_text)
def test_text_whose_only_non_ascii_characters_separate_words(text: str) -> None:
    """Curly quotes and dashes (and, for the key, × and °) made spaces take the ASCII paths: the
    duplicate key and the near-duplicate normal form are the general ones."""
    assert text_normalize.dedup_key_of_readable(text) == general_key(text)
    assert shingles.normalize(text) == general_normalize(text)


def test_keys_and_normal_forms_of_the_dev_abstracts_are_the_general_ones() -> None:
    from dev_texts import DEV, dev_abstracts

    from desk.core.dedup.sentences import mark_sentences
    from desk.core.text import readable_text

    texts = [readable_text(a) for a in dev_abstracts()]
    if DEV.is_file():  # the real abstracts (else the seeds'): curly quotes and dashes in many
        assert sum(not t.isascii() for t in texts) > 100
    assert [text_normalize.dedup_key_of_readable(t) for t in texts] == [general_key(t) for t in texts]
    marked = [mark_sentences(t) for t in texts]  # what near-duplicate hashing normalizes
    assert [shingles.normalize(t) for t in marked] == [general_normalize(t) for t in marked]
