"""Big rich lists: a 100k-record JSON-lines file read in parts, a file of several parts end to end,
and files that are one huge line."""

from __future__ import annotations

import json
import time
import tracemalloc
from pathlib import Path

import pytest

from desk.core import reader
from desk.core.library.facade import Library
from desk.core.reader import MAX_FILE_BYTES, PART_LINES, ReadError, read_list_file, read_list_parts
from desk.core.runtime.tuning import Tuning

WORDS = ("graph", "kernel", "sparse", "token", "vision", "policy", "reward", "latent", "diffusion", "prior")


def _record(i: int) -> str:
    a, b = WORDS[i % 10], WORDS[(i // 10) % 10]
    return json.dumps({
        "id": f"{2301 + i % 12:04d}.{i:05d}", "title": f"On {a} and {b}, study {i}",
        "authors": f"Ann Lee{i % 97} and Bo Chen{i % 89}", "abstract": f"We study {a} {b} models, case {i}. "
        f"A second sentence about {b} and {a} in setting {i * 7}.", "versions": [{"created": "2023"}],
    })  # fmt: skip


def _write_records(path: Path, count: int) -> None:
    with path.open("w", encoding="utf-8") as out:
        for i in range(count):
            out.write(_record(i) + "\n")


@pytest.mark.slow
def test_a_100k_record_json_lines_file_is_read_a_part_at_a_time_never_whole(tmp_path: Path) -> None:
    """The file (26 MB) is read a part of PART_LINES lines at a time: the reader's peak memory
    stays a fraction of what its 100k records would take held at once (~200 MB as objects)."""
    path = tmp_path / "arxiv.jsonl"
    _write_records(path, 100_000)
    tracemalloc.start()
    try:
        sizes = [len(part.abstracts) for part in read_list_parts(path)]
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert sum(sizes) == 100_000 and len(sizes) == 100_000 // PART_LINES
    assert peak < 64 * 1024**2, f"{peak / 1024**2:.0f} MB at the peak"


@pytest.mark.slow
def test_a_json_lines_file_of_several_parts_is_imported_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """End to end over more than one part: every record a paper, searchable, with its citation.
    Parts of 400 lines stand for the reader's 10,000, and the workers take every path from a few
    papers on, so the parts are analysed, hashed and indexed as a big file's are."""
    monkeypatch.setattr(reader, "PART_LINES", 400)
    count = 2 * 400 + 10  # three parts
    path = tmp_path / "arxiv.jsonl"
    _write_records(path, count)
    with Library(tmp_path / "lib", tuning=Tuning.eager()) as lib:
        report = lib.import_paths([path])
        assert (report.added, report.errors) == (count, ())
        assert lib.count() == count
        last = count - 1
        hits = lib.search(f"study {last}", limit=5).rows
        assert (
            hits
            and hits[0].paper.title == f"On {WORDS[last % 10]} and {WORDS[(last // 10) % 10]}, study {last}"
        )
        paper = lib.paper(hits[0].paper.id)
        assert paper.citation is not None and paper.citation.arxiv_id == f"{2301 + last % 12:04d}.{last:05d}"
        assert paper.citation.authors == (f"Ann Lee{last % 97}", f"Bo Chen{last % 89}")


@pytest.mark.slow
def test_a_gigabyte_line_in_json_lines_is_skipped_and_the_rest_imported(tmp_path: Path) -> None:
    """One line of a gigabyte (no newline for 1 GB: a sparse file) between two records: read past
    a few megabytes at a time, named, and the two papers imported."""
    path = tmp_path / "broken.jsonl"
    with path.open("wb") as out:
        out.write((_record(1) + "\n").encode())
        out.write(b"{")
        out.seek(1024**3, 1)  # a hole: a gigabyte of NUL bytes on the disk's account, not its space
        out.write(b"}\n" + (_record(2) + "\n").encode())
    started = time.perf_counter()
    with Library(tmp_path / "lib") as lib:
        report = lib.import_paths([path])
    assert report.added == 2
    assert len(report.errors) == 1 and report.errors[0].error.startswith(
        "line 2 is over 4 MB; it was skipped"
    )
    assert time.perf_counter() - started < 120  # read through, never held


@pytest.mark.slow
@pytest.mark.parametrize(
    ("name", "head", "tail"),
    [
        ("one.bib", "@article{k, title={T}, abstract={", "}}"),
        ("one.csv", "title,abstract\nT,", ""),
        ("one.json", '[{"title": "T", "abstract": "', '"}]'),
        ("one.ris", "TY  - JOUR\nTI  - T\nAB  - ", "\nER  - "),
        ("one.txt", "Huge 2026\n\n", ""),
    ],
)
def test_a_file_that_is_one_huge_line_is_refused_or_skipped_in_plain_words(
    tmp_path: Path, name: str, head: str, tail: str
) -> None:
    """Just under the size limit, the abstract one line of words without end: no paper is made of
    it (an abstract that long is no abstract), the file is refused in one line, quickly."""
    path = tmp_path / name
    filler = MAX_FILE_BYTES - len(head) - len(tail) - 16
    path.write_text(head + ("word " * (filler // 5)) + tail, encoding="utf-8")
    started = time.perf_counter()
    with pytest.raises(ReadError) as raised:
        read_list_file(path)
    assert time.perf_counter() - started < 60
    message = str(raised.value)
    assert "\n" not in message and "Traceback" not in message and message.startswith(name)
    with Library(tmp_path / "lib") as lib:
        report = lib.import_paths([path])
        assert report.added == 0 and lib.count() == 0 and len(report.errors) == 1
