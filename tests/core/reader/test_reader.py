"""Reading list files: encodings, cleaning, the header, refusals and folder walking."""

from __future__ import annotations

import hashlib
import io
import os
import pickle
import random
import sys
import zipfile
from pathlib import Path

import pytest

from desk.core.reader import (
    MAX_ABSTRACT_CHARS,
    MAX_FILE_BYTES,
    ParsedList,
    ReadError,
    decode_list_bytes,
    find_list_files,
    parse_list_text,
    read_list_file,
)

SEED_HEADERS = {
    "000_702a75ba5fd2766f.txt": "ICML 2026 论文列表",
    "001_27efaa9633c5f607.txt": "ICML 2026 Papers",
    "002_467a2bbb6953154f.txt": "ICML 2026 论文列表",
    "003_cbc2104d6f6e18af.txt": "ICML 2026 Papers",
    "004_5c2cfec709c719de.txt": "ICML 2026 Papers",
}

ABSTRACT_1 = "We study offline reinforcement learning under distribution shift. Our method is simple."
ABSTRACT_2 = "Graph neural networks fail on heterophilous graphs; we propose a fix that works."
ZH_HEADER = "机器学习会议论文摘要"
ZH_ABSTRACTS = [
    "我们研究了一种新的强化学习方法，用于离线策略优化。实验表明该方法在多个基准上有效。",
    "本文提出了一个图神经网络框架，用于分子性质预测。我们在QM9数据集上取得了最好的结果。",
]


def write(tmp_path: Path, data: bytes, name: str = "list.txt") -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


def read_bytes(tmp_path: Path, data: bytes, name: str = "list.txt") -> ParsedList:
    return read_list_file(write(tmp_path, data, name))


def refusal(tmp_path: Path, data: bytes, name: str = "list.txt") -> ReadError:
    with pytest.raises(ReadError) as info:
        read_bytes(tmp_path, data, name)
    return info.value


def list_text(header: str | None, abstracts: list[str], newline: str = "\n") -> str:
    paragraphs = ([header] if header is not None else []) + abstracts
    return (newline * 2).join(paragraphs) + newline


# --- the seeds ---------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(SEED_HEADERS))
def test_seed_parses_to_19_abstracts_under_its_header(seeds_dir: Path, name: str) -> None:
    path = seeds_dir / name
    parsed = read_list_file(path)
    assert parsed.header == SEED_HEADERS[name]
    assert parsed.collection == SEED_HEADERS[name]
    assert len(parsed.abstracts) == 19
    assert parsed.name == name
    assert parsed.path == path
    assert parsed.encoding == "utf-8"
    assert parsed.sha256 == hashlib.sha256(path.read_bytes()).hexdigest()
    assert all(a and "\n" not in a and a == a.strip() for a in parsed.abstracts)


def test_seeds_keep_text_as_written(seeds_dir: Path) -> None:
    abstracts = [a for p in sorted(seeds_dir.iterdir()) for a in read_list_file(p).abstracts]
    assert len(abstracts) == 95
    assert len(set(abstracts)) == 94  # one abstract appears in two files
    joined = "\n".join(abstracts)
    assert "*stochastic interventions*—product-of-Categorical" in joined  # Markdown and dash kept
    assert "$" in joined and "\\" in joined  # LaTeX kept for the text module


def test_parsed_list_is_frozen(seeds_dir: Path) -> None:
    parsed = read_list_file(next(iter(sorted(seeds_dir.iterdir()))))
    with pytest.raises(AttributeError):
        parsed.header = "x"  # type: ignore[misc]


# --- encodings ---------------------------------------------------------------------------------


def test_utf8_with_bom(tmp_path: Path) -> None:
    parsed = read_bytes(tmp_path, b"\xef\xbb\xbf" + list_text("ICML 2026 Papers", [ABSTRACT_1]).encode())
    assert parsed.encoding == "utf-8-sig"
    assert parsed.header == "ICML 2026 Papers"
    assert parsed.abstracts == (ABSTRACT_1,)


@pytest.mark.parametrize(
    ("bom", "codec", "expected"),
    [
        (b"\xff\xfe", "utf-16-le", "utf-16"),
        (b"\xfe\xff", "utf-16-be", "utf-16"),
        (b"", "utf-16-le", "utf-16-le"),
        (b"", "utf-16-be", "utf-16-be"),
    ],
)
def test_utf16_with_and_without_bom(tmp_path: Path, bom: bytes, codec: str, expected: str) -> None:
    text = list_text("ICML 2026 论文列表", [ABSTRACT_1, ZH_ABSTRACTS[0], ABSTRACT_2], "\r\n")
    parsed = read_bytes(tmp_path, bom + text.encode(codec))
    assert parsed.encoding == expected
    assert parsed.header == "ICML 2026 论文列表"
    assert parsed.abstracts == (ABSTRACT_1, ZH_ABSTRACTS[0], ABSTRACT_2)


def test_bomless_utf16_of_mostly_chinese_text(tmp_path: Path) -> None:
    parsed = read_bytes(tmp_path, list_text(ZH_HEADER, ZH_ABSTRACTS).encode("utf-16-le"))
    assert parsed.encoding == "utf-16-le"
    assert parsed.abstracts == tuple(ZH_ABSTRACTS)


def test_gbk_chinese(tmp_path: Path) -> None:
    parsed = read_bytes(tmp_path, list_text(ZH_HEADER, ZH_ABSTRACTS).encode("gbk"))
    assert parsed.encoding == "gbk"
    assert parsed.header == ZH_HEADER
    assert parsed.abstracts == tuple(ZH_ABSTRACTS)


def test_gbk_english_with_chinese_punctuation(tmp_path: Path) -> None:
    # Such bytes read as clean-looking "¡°...¡±" in Windows-1252.
    abstract = "We call it “OGPO” – it works, and it’s fast — really."
    parsed = read_bytes(tmp_path, list_text("ICML 2026 Papers", [abstract, ABSTRACT_2]).encode("gbk"))
    assert parsed.encoding == "gbk"
    assert parsed.abstracts == (abstract, ABSTRACT_2)


def test_windows_1252_curly_quotes_and_dash(tmp_path: Path) -> None:
    data = b"ICML 2026 Papers\r\n\r\nWe call it \x93OGPO\x94 \x96 it is fast.\r\n\r\n" + ABSTRACT_2.encode()
    assert b"\x93" in data and b"\x94" in data and b"\x96" in data
    parsed = read_bytes(tmp_path, data)
    assert parsed.encoding == "cp1252"
    assert parsed.abstracts == ("We call it “OGPO” – it is fast.", ABSTRACT_2)


def test_latin1_accents(tmp_path: Path) -> None:
    abstract = "Wir untersuchen Müllers Methode für Regression. Das Café ist naïve."
    parsed = read_bytes(tmp_path, list_text("Konferenz 2024", [abstract]).encode("latin-1"))
    assert parsed.encoding == "latin-1"
    assert parsed.abstracts == (abstract,)


@pytest.mark.parametrize(
    ("name", "codec"), [("001_27efaa9633c5f607.txt", "cp1252"), ("000_702a75ba5fd2766f.txt", "gbk")]
)
def test_whole_seed_in_a_legacy_encoding(tmp_path: Path, seeds_dir: Path, name: str, codec: str) -> None:
    # Longer than charset-normalizer's single-chunk size, so its sampling is exercised.
    data = (seeds_dir / name).read_text(encoding="utf-8").encode(codec, "replace")
    assert len(data) > 5 * 512
    expected = read_bytes(tmp_path, data.decode(codec).encode(), name="utf8.txt")
    parsed = read_bytes(tmp_path, data)
    assert parsed.encoding == codec
    assert (parsed.header, parsed.abstracts) == (expected.header, expected.abstracts)
    assert len(parsed.abstracts) == 19


@pytest.mark.parametrize(
    ("text", "codec"),
    [
        ("Статьи конференции\n\nМы изучаем обучение с подкреплением. Это работает хорошо.\n", "cp1251"),
        ("会議論文リスト\n\n私たちは新しい強化学習の方法を研究します。実験は有効です。\n", "shift_jis"),
        ("機器學習會議論文摘要\n\n我們研究了一種新的強化學習方法，用於離線策略優化。\n", "big5"),
        ("회의 논문 목록\n\n우리는 새로운 강화 학습 방법을 연구합니다. 실험은 효과적입니다.\n", "euc-kr"),
    ],
)
def test_other_encodings_are_refused_not_misread(tmp_path: Path, text: str, codec: str) -> None:
    err = refusal(tmp_path, text.encode(codec))
    assert err.reason.startswith("could not tell its text encoding")


def test_utf8_with_a_broken_byte_is_refused_with_its_position(tmp_path: Path) -> None:
    good = list_text("ICML 2026 论文列表", [ABSTRACT_1, "Café – résumé."]).encode()
    err = refusal(tmp_path, good + b"\xff tail")
    assert err.reason.startswith("could not tell its text encoding")
    assert f"byte {len(good) + 1}" in err.reason


def test_high_bytes_that_are_no_encoding_are_refused(tmp_path: Path) -> None:
    noise = bytes(random.Random(7).randrange(0x80, 0x100) for _ in range(400))
    assert refusal(tmp_path, noise).reason.startswith("could not tell its text encoding")


def test_decode_list_bytes_directly() -> None:
    assert decode_list_bytes(b"") == ("", "utf-8")
    assert decode_list_bytes("abc é".encode()) == ("abc é", "utf-8")
    assert decode_list_bytes(b"\xef\xbb\xbfabc") == ("abc", "utf-8-sig")
    with pytest.raises(ValueError, match="is not a text file"):
        decode_list_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)))


# --- cleaning ----------------------------------------------------------------------------------


@pytest.mark.parametrize("newline", ["\r\n", "\r"])
def test_crlf_and_cr_line_ends(tmp_path: Path, newline: str) -> None:
    text = list_text("ICML 2026 Papers", ["first line\nsecond line", ABSTRACT_2], newline)
    parsed = read_bytes(tmp_path, text.replace("\n", newline).encode())
    assert parsed.header == "ICML 2026 Papers"
    assert parsed.abstracts == ("first line second line", ABSTRACT_2)


def test_wrapped_paragraphs_trailing_spaces_and_blank_lines_with_spaces(tmp_path: Path) -> None:
    text = (
        "  ICML 2026 Papers   \n"
        " \t \n"
        "\n"
        "We study offline   \n"
        "reinforcement\tlearning.   \n"
        "    It works.\n"
        "   \n"
        "Second\n"
        "abstract."
    )
    parsed = read_bytes(tmp_path, text.encode())
    assert parsed.header == "ICML 2026 Papers"
    assert parsed.abstracts == ("We study offline reinforcement learning. It works.", "Second abstract.")


def test_no_final_newline(tmp_path: Path) -> None:
    parsed = read_bytes(tmp_path, f"ICML 2026 Papers\n\n{ABSTRACT_1}\n\n{ABSTRACT_2}".encode())
    assert parsed.abstracts == (ABSTRACT_1, ABSTRACT_2)


def test_html_entities_are_decoded(tmp_path: Path) -> None:
    text = list_text(
        "ICML 2026 Papers",
        [
            "Q&amp;A models&#8211;fast&nbsp;and&#x20;small &lt;b&gt; &quot;x&quot;.",
            "AT&T and R&D keep their ampersands, as does &parameter and &amp",
        ],
    )
    parsed = read_bytes(tmp_path, text.encode())
    assert parsed.abstracts == (
        'Q&A models–fast and small <b> "x".',
        "AT&T and R&D keep their ampersands, as does &parameter and &amp",
    )


def test_stray_nul_bytes_are_dropped(tmp_path: Path) -> None:
    data = list_text("ICML 2026 Papers", [ABSTRACT_1, ABSTRACT_2]).encode()
    data = data.replace(b"offline", b"off\x00line").replace(b"Graph", b"\x00Graph\x00")
    parsed = read_bytes(tmp_path, data)
    assert parsed.encoding == "utf-8"
    assert parsed.abstracts == (ABSTRACT_1, ABSTRACT_2)


def test_control_characters_are_removed_or_become_spaces(tmp_path: Path) -> None:
    text = list_text("ICML\x1b 2026 Papers", ["bell\x07ed text\x0cpage\x0bbreak \x85next\x9b."])
    parsed = read_bytes(tmp_path, text.encode())
    assert parsed.header == "ICML 2026 Papers"
    assert parsed.abstracts == ("belled text page break next.",)


def test_a_line_of_only_controls_separates_paragraphs(tmp_path: Path) -> None:
    parsed = read_bytes(tmp_path, f"ICML 2026 Papers\n\n{ABSTRACT_1}\n\x01\x02\n{ABSTRACT_2}\n".encode())
    assert parsed.abstracts == (ABSTRACT_1, ABSTRACT_2)


def test_unicode_is_nfc_and_odd_spaces_collapse(tmp_path: Path) -> None:
    text = list_text("ICML 2026 Papers", ["Cafe\u0301\u00a0au\u3000lait\u2028and\u2003more.\ufeff"])
    parsed = read_bytes(tmp_path, text.encode())
    assert parsed.abstracts == ("Café au lait and more.",)


def test_markdown_latex_and_script_tags_stay_as_text(tmp_path: Path) -> None:
    abstracts = [
        "# heading inside an abstract with **bold** and *em* and `code`.",
        "<script>alert('x')</script> is shown as text, like $\\alpha$-VOR and \\textbf{S}.",
        "- a list item\n- another item",
    ]
    parsed = read_bytes(tmp_path, list_text("ICML 2026 Papers", abstracts).encode())
    assert parsed.abstracts == (abstracts[0], abstracts[1], "- a list item - another item")


# --- the header --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "header",
    [
        "ICML 2026 Papers",
        "ML Conference Papers 2020-2024",
        "机器学习会议论文摘要",
        "ICML 2026 论文列表",
        "NeurIPS 2024 — Accepted Papers",
        "Proc. ICML 2026",
        "# ICLR 2024 Papers",
    ],
)
def test_header_by_shape(tmp_path: Path, header: str) -> None:
    parsed = read_bytes(tmp_path, list_text(header, [ABSTRACT_1, ABSTRACT_2]).encode())
    assert parsed.header == header
    assert parsed.collection == header
    assert parsed.abstracts == (ABSTRACT_1, ABSTRACT_2)


@pytest.mark.parametrize(
    "first",
    [
        "We study X.",
        "We study X. We show Y",
        "Offline RL works!",
        "Does it scale?",
        "我们研究强化学习。",
        "我们研究X。我们提出Y",
        "We study “quoted” things.”",
        "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen",
        "x" * 151,
        "ICML 2026\nPapers",
    ],
)
def test_no_header_when_the_first_paragraph_reads_as_an_abstract(tmp_path: Path, first: str) -> None:
    parsed = read_bytes(tmp_path, list_text(None, [first, ABSTRACT_2]).encode(), name="neurips_2023.txt")
    assert parsed.header is None
    assert parsed.collection == "neurips_2023"
    assert parsed.abstracts == (" ".join(first.split()), ABSTRACT_2)


def test_header_limits_are_inclusive(tmp_path: Path) -> None:
    fifteen = " ".join(["w"] * 15)
    assert read_bytes(tmp_path, list_text(fifteen, [ABSTRACT_1]).encode()).header == fifteen
    long_line = "H" * 150
    assert read_bytes(tmp_path, list_text(long_line, [ABSTRACT_1]).encode()).header == long_line


def test_leading_blank_lines_before_the_header(tmp_path: Path) -> None:
    parsed = read_bytes(tmp_path, b"\n \n\nICML 2026 Papers\n\n" + ABSTRACT_1.encode())
    assert parsed.header == "ICML 2026 Papers"
    assert parsed.abstracts == (ABSTRACT_1,)


def test_parse_list_text_directly() -> None:
    assert parse_list_text("ICML 2026 Papers\n\nA b.\n\nC d.", default_collection="f") == (
        "ICML 2026 Papers",
        "ICML 2026 Papers",
        ["A b.", "C d."],
    )
    assert parse_list_text("A b.\n\nC d.", default_collection="f") == ("f", None, ["A b.", "C d."])
    assert parse_list_text(" \n\n", default_collection="f") == ("f", None, [])


# --- refusals ----------------------------------------------------------------------------------


def test_header_only_is_refused(tmp_path: Path) -> None:
    err = refusal(tmp_path, b"ICML 2026 Papers\n\n\n", name="only.txt")
    assert err.reason == "holds only a header (“ICML 2026 Papers”) and no abstracts"
    assert str(err) == "only.txt: holds only a header (“ICML 2026 Papers”) and no abstracts"
    assert err.path == tmp_path / "only.txt"


@pytest.mark.parametrize("data", [b"", b"   \n\t\r\n \n", b"\xef\xbb\xbf", b"\xef\xbb\xbf\r\n"])
def test_empty_files_are_refused(tmp_path: Path, data: bytes) -> None:
    err = refusal(tmp_path, data, name="empty.txt")
    assert err.reason == "is empty"
    assert str(err) == "empty.txt: is empty"


def test_a_too_long_paragraph_is_skipped_naming_it_and_the_others_are_read(tmp_path: Path) -> None:
    huge = "word " * (MAX_ABSTRACT_CHARS // 5 + 1)
    parsed = read_bytes(tmp_path, list_text("ICML 2026 Papers", [ABSTRACT_1, huge, ABSTRACT_2]).encode())
    assert parsed.abstracts == (ABSTRACT_1, ABSTRACT_2)
    [(number, why)] = parsed.skipped
    assert number == 3
    assert "paragraph 3" in why and f"{MAX_ABSTRACT_CHARS:,}" in why


def test_a_file_of_only_too_long_paragraphs_is_refused_naming_the_limit(tmp_path: Path) -> None:
    huge = "word " * (MAX_ABSTRACT_CHARS // 5 + 1)
    err = refusal(tmp_path, list_text("ICML 2026 Papers", [huge]).encode())
    assert "paragraph 2" in err.reason and f"{MAX_ABSTRACT_CHARS:,}" in err.reason
    err = refusal(tmp_path, list_text(None, [huge, huge]).encode())
    assert "each of its 2 paragraphs" in err.reason


def test_paragraph_at_the_limit_is_accepted(tmp_path: Path) -> None:
    at_limit = "x" * MAX_ABSTRACT_CHARS
    parsed = read_bytes(tmp_path, list_text(None, [at_limit]).encode())
    assert parsed.abstracts == (at_limit,)


def test_png_is_not_text(tmp_path: Path) -> None:
    data = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + random.Random(1).randbytes(5000)
    assert refusal(tmp_path, data, name="picture.txt").reason == "is not a text file"


@pytest.mark.parametrize("compression", [zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED])
def test_zip_is_not_text(tmp_path: Path, compression: int) -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=compression) as archive:
        archive.writestr("list.txt", list_text("ICML 2026 Papers", [ABSTRACT_1] * 50))
    assert refusal(tmp_path, buffer.getvalue(), name="archive.txt").reason == "is not a text file"


@pytest.mark.parametrize(
    "data",
    [
        random.Random(2).randbytes(5000),
        bytes(4096),
        b"\x7fELF\x02\x01\x01" + bytes(9) + random.Random(3).randbytes(2000),
        ABSTRACT_1.encode() + bytes(200),
        bytes(range(256)) * 20,
    ],
)
def test_binary_is_not_text(tmp_path: Path, data: bytes) -> None:
    assert refusal(tmp_path, data).reason == "is not a text file"


def test_file_over_the_limit_is_refused_without_reading(tmp_path: Path, monkeypatch) -> None:
    path = tmp_path / "huge.txt"
    with path.open("wb") as handle:
        handle.truncate(50 * 1024 * 1024)  # sparse: nothing written

    def no_open(*args: object, **kwargs: object) -> None:
        raise AssertionError("the file was opened")

    monkeypatch.setattr(Path, "open", no_open)
    monkeypatch.setattr("builtins.open", no_open)
    with pytest.raises(ReadError) as info:
        read_list_file(path)
    assert info.value.reason == "is 50.0 MB; list files over 32 MB are not imported"
    assert MAX_FILE_BYTES == 32 * 1024 * 1024


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ReadError, match=r"^gone\.txt: was not found$"):
        read_list_file(tmp_path / "gone.txt")


def test_folder_is_refused(tmp_path: Path) -> None:
    (tmp_path / "folder.txt").mkdir()
    with pytest.raises(ReadError, match="is a folder"):
        read_list_file(tmp_path / "folder.txt")


@pytest.mark.skipif(
    sys.platform == "win32" or os.geteuid() == 0, reason="needs POSIX permissions as non-root"
)
def test_unreadable_file(tmp_path: Path) -> None:
    path = write(tmp_path, b"ICML 2026 Papers\n\nA b.\n")
    path.chmod(0)
    try:
        with pytest.raises(ReadError, match="permission denied"):
            read_list_file(path)
    finally:
        path.chmod(0o644)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_named_pipe_is_refused_without_blocking(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe.txt")
    with pytest.raises(ReadError, match="is not a regular file"):
        read_list_file(tmp_path / "pipe.txt")


def test_read_error_pickles_and_keeps_its_fields(tmp_path: Path) -> None:
    err = ReadError(tmp_path / "a.txt", "is empty")
    copy = pickle.loads(pickle.dumps(err))
    assert (copy.path, copy.reason, str(copy)) == (err.path, "is empty", "a.txt: is empty")


def test_unexpected_failure_inside_becomes_read_error(tmp_path: Path, monkeypatch) -> None:
    def broken(data: bytes) -> tuple[str, str]:
        raise RuntimeError("bug")

    monkeypatch.setattr("desk.core.reader.decode_list_bytes", broken)
    with pytest.raises(ReadError, match="could not be read"):
        read_bytes(tmp_path, b"ICML 2026 Papers\n\nA b.\n")


# --- finding list files ------------------------------------------------------------------------


def make_tree(root: Path) -> None:
    for rel in [
        "b.txt",
        "A.TXT",
        "notes.md",
        "image.png",
        "sub/z.txt",
        "sub/deeper/y.Txt",
        "sub/deeper/table.csv",
        "a_sub/x.txt",
        ".hidden/secret.txt",
        "sub/.cache/c.txt",
        "._b.txt",
    ]:
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x")


def test_folder_walk_is_recursive_sorted_and_filtered(tmp_path: Path) -> None:
    make_tree(tmp_path)
    found = [p.relative_to(tmp_path).as_posix() for p in find_list_files([tmp_path])]
    # .csv is a list format (a table with an abstract column); .md and .png are not.
    assert found == ["A.TXT", "b.txt", "a_sub/x.txt", "sub/z.txt", "sub/deeper/table.csv", "sub/deeper/y.Txt"]


def test_explicit_files_whatever_their_extension_and_missing_paths(tmp_path: Path) -> None:
    make_tree(tmp_path)
    missing = tmp_path / "nope" / "gone.txt"
    given = [tmp_path / "notes.md", missing, tmp_path / "sub"]
    assert list(find_list_files(given)) == [
        tmp_path / "notes.md",
        missing,
        tmp_path / "sub" / "z.txt",
        tmp_path / "sub" / "deeper" / "table.csv",
        tmp_path / "sub" / "deeper" / "y.Txt",
    ]


def test_no_file_twice(tmp_path: Path) -> None:
    make_tree(tmp_path)
    found = list(find_list_files([tmp_path / "sub", tmp_path, tmp_path / "b.txt"]))
    assert len(found) == len(set(found)) == 6


@pytest.mark.skipif(sys.platform == "win32", reason="needs symbolic links")
def test_symlinked_folders_are_followed_without_looping(tmp_path: Path) -> None:
    root = tmp_path / "root"
    (root / "a").mkdir(parents=True)
    (root / "a" / "one.txt").write_text("x")
    (root / "a" / "loop").symlink_to(root, target_is_directory=True)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "two.txt").write_text("x")
    (root / "link").symlink_to(outside, target_is_directory=True)
    (root / "broken.txt").symlink_to(tmp_path / "nothing.txt")
    found = [p.relative_to(root).as_posix() for p in find_list_files([root])]
    assert found == ["a/one.txt", "link/two.txt"]


def test_seeds_folder_walk(seeds_dir: Path) -> None:
    assert [p.name for p in find_list_files([seeds_dir])] == sorted(SEED_HEADERS)
