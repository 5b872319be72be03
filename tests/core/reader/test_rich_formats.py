"""BibTeX, RIS, CSV/TSV, OpenReview JSON and arXiv JSON lines: real papers in, titles and authors out;
the format found from the content; broken entries named, entries without an abstract counted."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from rich_files import (
    arxiv_jsonl,
    balanced,
    bibtex,
    dev_records,
    needs_dev_records,
    openreview,
    real_authors,
    ris,
    table,
)

from desk.core.reader import MAX_LINE_BYTES, PART_LINES, ReadError, read_list_file, read_list_parts
from desk.core.reader.entries import split_author_string
from desk.core.text.folding import fold
from desk.core.text.latex import latex_to_unicode

PAPER = {
    "index": 0,
    "title": "{BERT}-like Pre-training for Sch\\\"olkopf's Kernels",
    "authors": ["Bernhard Schölkopf", "Zoë Müller"],
    "abstract": "We study kernels. Our method is simple and works well on many tasks.",
    "venue": "ICML",
    "year": 2021,
}


def write(tmp_path: Path, name: str, text: str, encoding: str = "utf-8") -> Path:
    path = tmp_path / name
    path.write_bytes(text.encode(encoding))
    return path


def shown_title(title: str) -> str:
    """A dev title as desk shows it: its inline math as Unicode (S$^2$fM → S²fM)."""
    return latex_to_unicode(title) if "$" in title else title


def assert_same_papers(parsed_titles: list[str | None], parsed_authors: list[tuple[str, ...]]) -> None:
    records = dev_records()
    assert parsed_titles == [shown_title(r["title"]) for r in records]
    assert parsed_authors == [real_authors(r) for r in records]


# -- each format on the real papers ---------------------------------------------------------------
@pytest.mark.slow
@needs_dev_records
@pytest.mark.parametrize("latex", [True, False], ids=["latex-accents", "utf8-names"])
def test_bibtex_of_the_dev_papers_gives_their_real_titles_and_authors(tmp_path: Path, latex: bool) -> None:
    parsed = read_list_file(write(tmp_path, "cvpr.bib", bibtex(dev_records(), latex=latex)))
    assert parsed.format == "bibtex" and not parsed.skipped
    assert_same_papers([m.title for m in parsed.metadata], [m.authors for m in parsed.metadata])
    # Two abstracts hold a stray "}", written escaped (\\}) as a BibTeX writer must.
    assert [a for a in parsed.abstracts if "\\}" not in a] == [
        r["abstract"] for r in dev_records() if balanced(r["abstract"])
    ]
    assert {m.year for m in parsed.metadata} == {2023}
    assert parsed.collection.startswith("Proceedings of the IEEE/CVF Conference")


@needs_dev_records
def test_ris_of_the_dev_papers_gives_their_real_titles_authors_and_dois(tmp_path: Path) -> None:
    parsed = read_list_file(write(tmp_path, "zotero.ris", ris(dev_records(), newline="\r\n")))
    assert parsed.format == "ris" and not parsed.skipped
    titles = [m.title for m in parsed.metadata]
    assert titles == [r["title"] for r in dev_records()]  # RIS carries no LaTeX: titles as written
    assert [m.authors for m in parsed.metadata] == [real_authors(r) for r in dev_records()]
    assert parsed.metadata[7].doi == "10.1109/cvpr.2023.00007"
    assert parsed.collection == "CVPR 2023"


@needs_dev_records
@pytest.mark.parametrize("delimiter", [",", "\t", ";"], ids=["csv", "tsv", "semicolons"])
def test_tables_of_the_dev_papers_find_their_columns_by_name(tmp_path: Path, delimiter: str) -> None:
    text = table(dev_records(), delimiter=delimiter)
    parsed = read_list_file(write(tmp_path, "papers.txt", text))  # the content says it is a table
    assert parsed.format == "csv"
    assert [m.title for m in parsed.metadata] == [r["title"] for r in dev_records()]
    assert [m.authors for m in parsed.metadata] == [real_authors(r) for r in dev_records()]
    assert parsed.metadata[0].venue == "CVPR" and parsed.metadata[0].year == 2023


@needs_dev_records
@pytest.mark.parametrize("version", [1, 2])
def test_openreview_notes_give_titles_authors_and_forum_links(tmp_path: Path, version: int) -> None:
    parsed = read_list_file(write(tmp_path, "iclr.json", openreview(dev_records(), version)))
    assert parsed.format == "json" and not parsed.skipped
    assert [m.title for m in parsed.metadata] == [shown_title(r["title"]) for r in dev_records()]
    assert [m.authors for m in parsed.metadata] == [real_authors(r) for r in dev_records()]
    assert parsed.metadata[3].url == "https://openreview.net/forum?id=note00003"
    assert parsed.metadata[3].year == 2023 and parsed.metadata[3].venue == "CVPR 2023 poster"


@needs_dev_records
def test_arxiv_snapshot_lines_are_unwrapped_and_linked(tmp_path: Path) -> None:
    records = dev_records()
    parts = list(read_list_parts(write(tmp_path, "arxiv-metadata-oai-snapshot.json", arxiv_jsonl(records))))
    assert [p.format for p in parts] == ["jsonl"]
    parsed = parts[0]
    assert list(parsed.abstracts) == [r["abstract"] for r in records]  # newlines and indents gone
    assert [m.title for m in parsed.metadata] == [shown_title(r["title"]) for r in records]
    assert [m.authors for m in parsed.metadata] == [real_authors(r) for r in records]
    assert parsed.metadata[0].arxiv_id == "2301.00001"
    assert parsed.metadata[0].url == "https://arxiv.org/abs/2301.00001"


def test_a_plain_json_array_of_records_is_read_by_key_names(tmp_path: Path) -> None:
    records = [
        {"Title": "A", "Summary": "First abstract here. It is fine.", "authors": [{"name": "Ann Lee"}]},
        {
            "title": "B",
            "abstract": "Second abstract here.",
            "author": "Lee, Ann and Kim, Bo",
            "doi": "10.1145/X",
        },
    ]
    parsed = read_list_file(write(tmp_path, "mine.json", json.dumps(records)))
    assert [m.title for m in parsed.metadata] == ["A", "B"]
    assert [m.authors for m in parsed.metadata] == [("Ann Lee",), ("Ann Lee", "Bo Kim")]
    assert parsed.metadata[1].doi == "10.1145/x"


# -- quirks ---------------------------------------------------------------------------------------
def test_bibtex_latex_braces_macros_and_concatenation_are_decoded(tmp_path: Path) -> None:
    text = (
        '@string{icml = "International Conference on Machine Learning"}\n'
        "@InProceedings{pmlr-v139-a21,\n"
        '  title = {{BERT} and {\\"o}ther {T}ricks: {S}ch\\"{o}lkopf \\& Co.},\n'
        '  author = {Sch{\\"o}lkopf, Bernhard and M{\\"u}ller, Zo{\\"e} and {Google Research} and others},\n'
        '  booktitle = icml # " 2021",\n'
        "  year = 2021, month = jul,\n"
        "  eprint = {2101.00001}, archivePrefix = {arXiv},\n"
        "  doi = {10.48550/ARXIV.2101.00001},\n"
        "  abstract = {We study $\\alpha$-kernels. Our method is simple.}\n"
        "}\n"
    )
    parsed = read_list_file(write(tmp_path, "pmlr.bib", text))
    meta = parsed.metadata[0]
    assert meta.title == "BERT and öther Tricks: Schölkopf & Co."
    assert meta.authors == ("Bernhard Schölkopf", "Zoë Müller", "Google Research")
    assert meta.venue == "International Conference on Machine Learning 2021"
    assert (meta.year, meta.arxiv_id, meta.doi) == (2021, "2101.00001", "10.48550/arxiv.2101.00001")
    assert parsed.abstracts == ("We study $\\alpha$-kernels. Our method is simple.",)  # LaTeX read later


def test_a_broken_bibtex_entry_is_named_and_the_rest_imported(tmp_path: Path) -> None:
    text = (
        "@article{good1, title={One}, abstract={The first abstract. It is fine.}}\n\n"
        "@article{broken2, title={Unbalanced {brace}, abstract={Lost.}\n\n"
        "@article{good3, title={Three}, abstract={The third abstract. It is fine.}}\n"
        "@article{bare4, title={No abstract here}}\n"
    )
    parsed = read_list_file(write(tmp_path, "mixed.bib", text))
    assert [m.title for m in parsed.metadata] == ["One", "Three"]
    reasons = [why for _, why in parsed.skipped]
    assert any("broken2" in why and "line 3" in why and "unbalanced" in why for why in reasons), reasons
    assert any("1 entry has no abstract" in why and "bare4" in why for why in reasons), reasons


def test_ris_cut_short_and_a_damaged_entry(tmp_path: Path) -> None:
    text = "TY  - JOUR\nTI  - One\nAB  - First abstract. Fine.\nER  - \n\n"
    text += "TY  - JOUR\nTI  - Two\nAB  - Second, cut"
    parsed = read_list_file(write(tmp_path, "cut.ris", text))
    assert [m.title for m in parsed.metadata] == ["One", "Two"]


def test_csv_quoted_newlines_commas_and_a_bom(tmp_path: Path) -> None:
    text = '\ufeffTITLE,Abstract,authors\r\n"A, B","Line one,\r\nline two.","Lee, Ann and Kim, Bo"\r\n,,\r\n'
    parsed = read_list_file(write(tmp_path, "x.csv", text))
    assert parsed.abstracts == ("Line one, line two.",)
    assert parsed.metadata[0].title == "A, B" and parsed.metadata[0].authors == ("Ann Lee", "Bo Kim")


def test_a_csv_without_an_abstract_column_is_refused_in_one_line(tmp_path: Path) -> None:
    with pytest.raises(ReadError, match="no abstract column") as info:
        read_list_file(write(tmp_path, "sheet.csv", "title,authors\nA paper,Ann Lee\n"))
    assert "\n" not in str(info.value)


@pytest.mark.parametrize(
    ("name", "text", "words"),
    [
        ("papers.bib", "Just some words.\n\nAnd more.\n", "desk reads abstract lists"),
        ("notes.json", '{"settings": {"dark": true}}', "no list of papers"),
        ("broken.json", '{"notes": [', "not valid JSON"),
        ("empty.bib", "@article{a, title={No abstract}}\n", "none with an abstract"),
        ("x.ris", "TY  - JOUR\nTI  - t\nER  - \n", "none with an abstract"),
    ],
)
def test_a_file_of_no_known_format_or_with_no_paper_is_refused(
    tmp_path: Path, name: str, text: str, words: str
) -> None:
    with pytest.raises(ReadError, match=words) as info:
        list(read_list_parts(write(tmp_path, name, text)))
    assert "\n" not in str(info.value)


def test_the_format_comes_from_the_content_not_the_extension(tmp_path: Path) -> None:
    bib = "@misc{k, title={T}, author={Lee, Ann}, abstract={An abstract. Here.}}\n"
    assert read_list_file(write(tmp_path, "list.txt", bib)).format == "bibtex"
    notes = json.dumps({"notes": [{"id": "x", "content": {"title": "T", "abstract": "An abstract."}}]})
    assert read_list_file(write(tmp_path, "export.txt", notes)).format == "json"
    plain = "ICLR 2024 Papers\n\nWe study a thing. It works.\n"
    assert read_list_file(write(tmp_path, "list.txt", plain)).format == "text"


@pytest.mark.parametrize("encoding", ["utf-8-sig", "utf-16", "cp1252"])
def test_encodings_and_boms_of_rich_files(tmp_path: Path, encoding: str) -> None:
    bib = "@article{k, title={Café Models}, author={Müller, Zoë}, abstract={An abstract. Fine.}}\n"
    parsed = read_list_file(write(tmp_path, "e.bib", bib, encoding))
    assert parsed.metadata[0].title == "Café Models" and parsed.metadata[0].authors == ("Zoë Müller",)


def test_empty_fields_are_unknown_not_empty_strings(tmp_path: Path) -> None:
    bib = "@article{k, title={}, author={}, year={}, doi={ }, url={}, abstract={An abstract. Fine.}}\n"
    meta = read_list_file(write(tmp_path, "e.bib", bib)).metadata[0]
    assert (meta.title, meta.authors, meta.year, meta.doi, meta.url) == (None, (), None, None, None)


# -- JSON lines as a stream -----------------------------------------------------------------------
def _line(n: int) -> str:
    record = {"id": f"2301.{n:05d}", "title": f"Paper {n}", "abstract": f"Abstract number {n}."}
    return json.dumps({**record, "authors": "Ann Lee and Bo Kim", "versions": [{"created": "2 Jan 2023"}]})


def test_json_lines_come_in_parts_numbered_across_the_file(tmp_path: Path) -> None:
    lines = [_line(n) for n in range(PART_LINES + 5)]
    lines[3] = "{not json"
    parts = list(read_list_parts(write(tmp_path, "a.jsonl", "\n".join(lines))))
    assert [len(p.abstracts) for p in parts] == [PART_LINES - 1, 5]
    assert parts[1].first_index == PART_LINES - 1
    assert parts[1].metadata[0].title == f"Paper {PART_LINES}"
    assert parts[0].sha256 != parts[1].sha256
    assert [why for _, why in parts[0].skipped] == ["line 4 is not valid JSON (Expecting property name "
                                                    "enclosed in double quotes: line 1 column 2 (char 1)); "
                                                    "it was skipped"]  # fmt: skip


def test_a_huge_json_line_is_skipped_unread(tmp_path: Path) -> None:
    huge = json.dumps({"title": "Huge", "abstract": "x" * (MAX_LINE_BYTES + 10)})
    path = write(tmp_path, "h.jsonl", "\n".join([_line(1), _line(2), huge, _line(3)]) + "\n")
    parts = list(read_list_parts(path))
    assert [m.title for p in parts for m in p.metadata] == ["Paper 1", "Paper 2", "Paper 3"]
    assert any("line 3 is over 4 MB" in why for p in parts for _, why in p.skipped)


def test_a_json_lines_file_of_no_paper_is_refused(tmp_path: Path) -> None:
    path = write(tmp_path, "n.jsonl", '{"a": 1}\n{"b": 2}\n')
    with pytest.raises(ReadError, match="no paper"):
        list(read_list_parts(path))


# -- names ----------------------------------------------------------------------------------------
def test_author_strings_split_on_and_commas_and_semicolons() -> None:
    assert split_author_string("A Lee, B Kim and C Wu") == ["A Lee", "B Kim", "C Wu"]
    assert split_author_string("Lee, Ann; Kim, Bo") == ["Ann Lee", "Bo Kim"]
    assert split_author_string("Vaswani, Ashish and Shazeer, Noam") == ["Ashish Vaswani", "Noam Shazeer"]


def test_folded_names_ignore_case_and_accents() -> None:
    assert fold("Bernhard Schölkopf") == "bernhard scholkopf"
    assert fold("Aleksander Mądry") == fold("aleksander madry")
    assert fold("Søren Łukasz") == "soren lukasz"
