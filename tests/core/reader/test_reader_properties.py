"""Property tests for the list reader: round trips, arbitrary bytes, cleaned paragraphs."""

from __future__ import annotations

import codecs
import textwrap
import unicodedata
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from desk.core.reader import ReadError, decode_list_bytes, parse_list_text, read_list_file

HEADERS = [
    "ICML 2026 Papers",
    "ICML 2026 论文列表",
    "ML Conference Papers 2020-2024",
    "机器学习会议论文摘要",
    "NeurIPS 2023 Papers",
]
WORD_CHARS = (
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
    "éüñçøαβγ中文学习—–“”’$\\{}^_*.,;:()[]<>#%+-=/'\"!?"
)

words = st.text(alphabet=WORD_CHARS, min_size=1, max_size=12)
paragraphs = st.lists(words, min_size=1, max_size=40)

SETTINGS = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@pytest.fixture(scope="module")
def scratch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("reader_properties") / "list.txt"


@st.composite
def written_lists(draw: st.DrawFn) -> tuple[bytes, str, list[str]]:
    """A header and paragraphs written the ways real files are, and what they should parse to."""
    header = draw(st.sampled_from(HEADERS))
    paras = draw(st.lists(paragraphs, min_size=1, max_size=6))
    newline = draw(st.sampled_from(["\n", "\r\n"]))
    width = draw(st.one_of(st.none(), st.integers(min_value=10, max_value=100)))
    blocks = [header]
    for para in paras:
        text = " ".join(para)
        lines = (
            [text]
            if width is None
            else textwrap.wrap(text, width, break_long_words=False, break_on_hyphens=False)
        )
        lines = [line + draw(st.sampled_from(["", " ", "  ", "\t"])) for line in lines]
        blocks.append(newline.join(lines))
    separators = st.sampled_from(
        [newline * 2, newline * 3, newline + "  " + newline, newline + "\t" + newline]
    )
    body = blocks[0]
    for block in blocks[1:]:
        body += draw(separators) + block
    body += draw(st.sampled_from(["", newline, newline * 2]))
    encoding = draw(st.sampled_from(["utf-8", "utf-8-sig", "utf-16"]))
    return body.encode(encoding), header, [" ".join(p) for p in paras]


@SETTINGS
@given(case=written_lists())
def test_written_lists_parse_back(scratch: Path, case: tuple[bytes, str, list[str]]) -> None:
    data, header, expected = case
    scratch.write_bytes(data)
    parsed = read_list_file(scratch)
    assert parsed.header == header
    assert parsed.collection == header
    assert list(parsed.abstracts) == expected


interesting_bytes = st.one_of(
    st.binary(max_size=3000),
    st.tuples(
        st.sampled_from(
            [codecs.BOM_UTF8, codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE, b"\x89PNG", b"PK\x03\x04"]
        ),
        st.binary(max_size=2000),
    ).map(lambda pair: pair[0] + pair[1]),
    st.tuples(
        st.text(max_size=500),
        st.sampled_from(["utf-8", "utf-16-le", "utf-16-be", "gb18030", "utf-32"]),
        st.binary(max_size=8),
        st.integers(min_value=0, max_value=500),
    ).map(lambda t: (e := t[0].encode(t[1], "replace"))[: t[3]] + t[2] + e[t[3] :]),
    st.lists(
        st.sampled_from([b"\x00", b"\n", b"\r", b" ", b"a", b"\xa1", b"\xe9", b"\x93", b"\xff\xfe"])
    ).map(b"".join),
)


@SETTINGS
@given(data=interesting_bytes)
def test_any_bytes_give_a_list_or_read_error(scratch: Path, data: bytes) -> None:
    scratch.write_bytes(data)
    try:
        parsed = read_list_file(scratch)
    except ReadError as err:
        assert err.reason and str(err).startswith("list.txt: ")
        return
    assert parsed.abstracts
    assert all(a and "\n" not in a for a in parsed.abstracts)


@SETTINGS
@given(data=st.binary(max_size=2000))
def test_decode_raises_only_value_error(data: bytes) -> None:
    try:
        text, encoding = decode_list_bytes(data)
    except ValueError as err:
        assert str(err)
        return
    assert isinstance(text, str) and encoding


texts = st.one_of(
    st.text(),
    st.lists(
        st.one_of(
            st.sampled_from(
                ["\n", "\r\n", "\r", "\n\n", " ", "\t", "\x00", "\x0c", "\x85", "\u2028", "\u2029"]
            ),
            st.sampled_from(["&amp;", "&nbsp;", "&#10;", "&#0;", "&#x1;", "&#xD800;", "&bogus;", "&#xfeff;"]),
            st.sampled_from(["\ufeff", "e", "\u0301", "\u0327", "&#x301;", "\x01"]),
            st.text(max_size=20),
        )
    ).map("".join),
)


@SETTINGS
@given(text=texts)
@example(text="e&#xfeff;\u0301 c\x01\u0327")
def test_parsed_paragraphs_are_clean_single_lines(text: str) -> None:
    collection, header, abstracts = parse_list_text(text, default_collection="fallback")
    for paragraph in [*abstracts, *([header] if header is not None else [])]:
        assert paragraph
        assert paragraph == paragraph.strip()
        assert "\n" not in paragraph and "\r" not in paragraph
        assert "  " not in paragraph
        assert not any(unicodedata.category(ch) == "Cc" for ch in paragraph)
        assert unicodedata.is_normalized("NFC", paragraph)
    assert collection == (header if header is not None else "fallback")


_NAME_WORD = st.text(
    alphabet=st.sampled_from(list("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZéüøçłÖÅñ-.'")),
    min_size=1,
    max_size=9,
)
_NAME = st.lists(_NAME_WORD, min_size=1, max_size=4).map(" ".join)
_WRITTEN_NAME = st.one_of(_NAME, st.tuples(_NAME, _NAME).map(lambda parts: f"{parts[0]}, {parts[1]}"))


def _names_by_the_parser(field: str) -> tuple[str, ...]:
    """The author field read name by name through bibtexparser's own name parser."""
    from bibtexparser.middlewares.names import parse_single_name_into_parts, split_multiple_persons_names

    from desk.core.reader.entries import clean_field

    out = []
    for name in split_multiple_persons_names(field):
        parts = parse_single_name_into_parts(name, strict=False).merge_first_name_first
        cleaned = clean_field(parts, latex=True)
        if cleaned:
            out.append(cleaned)
    return tuple(out)


@settings(max_examples=400, deadline=None)
@given(st.lists(_WRITTEN_NAME, min_size=1, max_size=5))
@example(["van der Berg, Jan", "Ann-Marie O'Neil", "de la Cruz, J. R.", "A.B. Lee"])
def test_plain_author_names_read_as_the_name_parser_reads_them(names: list[str]) -> None:
    from desk.core.reader.bibtex import authors_of

    field = " and ".join(names)
    assert authors_of(field) == _names_by_the_parser(field)
