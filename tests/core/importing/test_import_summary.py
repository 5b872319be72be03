"""The plain-text import summary of `desk import` (and the window's): counts that read right."""

from __future__ import annotations

from pathlib import Path

from desk.cli.main import main
from desk.core.importing.summary import import_summary
from desk.core.records.detail import ImportFileError, ImportReport


def test_one_of_everything_reads_in_the_singular() -> None:
    report = ImportReport(files=2, paragraphs=1, added=1, merged=1, near_duplicates=1, already_imported=1)
    text = " ".join(import_summary(report, review="desk dupes"))
    assert "Added 1 paper from 1 file (1 abstract read)." in text
    assert "1 abstract was already in the library under another file and was joined to that paper." in text
    assert "1 file was imported before; nothing changed for it." in text
    assert "1 paper looks like a near-duplicate of another; review it with desk dupes." in text
    assert "(s)" not in text and "1 abstracts" not in text and "1 new papers" not in text


def test_a_skipped_file_is_not_counted_as_imported() -> None:
    report = ImportReport(files=1, errors=(ImportFileError("bad.txt", "not text"),))
    lines = import_summary(report, review="desk dupes")
    assert lines == ["Nothing was imported: 1 file was skipped."]


def test_desk_import_says_near_duplicates_and_no_file_s(capsys, seeded_dir: Path, tmp_path: Path) -> None:
    with (Path(__file__).resolve().parents[3] / "seeds").glob("*.txt").__next__().open(encoding="utf-8") as f:
        paragraphs = [p for p in f.read().split("\n\n") if p.strip()]
    edited = paragraphs[1].replace(" the ", " a ", 3) + " We also release the code."
    near = tmp_path / "edited.txt"
    near.write_text(f"Edited 2031 Papers\n\n{edited}\n", encoding="utf-8")
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 40)
    code = main(["--library", str(seeded_dir), "import", str(bad)])
    out, err = capsys.readouterr()
    assert code == 1 and "Imported" not in out and "bad.txt" in err
    assert out.strip() == "Nothing was imported: 1 file was skipped."
    code = main(["--library", str(seeded_dir), "import", str(near)])
    out, _ = capsys.readouterr()
    assert code == 0
    assert "Added 1 paper from 1 file (1 abstract read)." in out
    assert "near-duplicate" in out and "desk dupes" in out
    assert "(s)" not in out


def test_a_report_names_the_collections_read_in_file_order_without_the_skipped(tmp_path: Path) -> None:
    from desk.core.library.facade import Library

    lists = tmp_path / "lists"
    lists.mkdir()
    body = "We show that a small model learns the task. The results hold across three datasets."
    (lists / "a.txt").write_text(f"Workshop Papers\n\n{body}\n", encoding="utf-8")
    (lists / "b.txt").write_text(f"ICML 2026 Papers\n\n{body} Also for audio.\n", encoding="utf-8")
    (lists / "c.txt").write_bytes(b"\x00\x01\x02 not text at all \xff\xfe")
    with Library(tmp_path / "L") as lib:
        first = lib.import_paths([lists / "b.txt"])
        again = lib.import_paths([lists / "a.txt", lists / "c.txt", lists / "b.txt"])
    assert first.collections == ("ICML 2026 Papers",)
    # b.txt was imported before: its collection is named all the same (the window shows it).
    assert again.collections == ("Workshop Papers", "ICML 2026 Papers") and len(again.errors) == 1
