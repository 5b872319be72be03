"""`desk export --format obsidian -o DIR`: one note per paper, desk's part rewritten, the user's kept."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from desk.core.library.facade import Library
from desk.core.obsidian import MARKER, MAX_NAME_BYTES, file_stem

ROOT = Path(__file__).resolve().parents[2]
RECORDS = [
    {"title": "Attention Is All You Need", "authors": ["Ashish Vaswani", "Noam Shazeer"], "year": 2017,
     "venue": "NeurIPS", "url": "https://arxiv.org/abs/1706.03762",
     "abstract": "We propose the Transformer, a sequence model built on attention alone."},
    {"title": "Kernels: \"quoted\" \\ and\nnew lines", "authors": ["Bernhard Schölkopf"],
     "abstract": "Kernel mean embeddings of distributions support two-sample tests."},
]  # fmt: skip


def _library(tmp_path: Path, records: list[dict[str, object]]) -> Path:
    source = tmp_path / "papers.json"
    source.write_text(json.dumps(records), encoding="utf-8")
    with Library(tmp_path / "lib") as lib:
        assert lib.import_paths([source]).added == len(records)
    return tmp_path / "lib"


def _properties(text: str) -> dict[str, object]:
    """The front matter, each line read as `key: JSON` (the form desk writes: YAML reads it the same)."""
    assert text.startswith("---\n")
    head = text[4 : text.index("\n---\n")]
    props: dict[str, object] = {}
    for line in head.split("\n"):
        key, _, value = line.partition(": ")
        props[key] = json.loads(value)
    return props


def _notes(folder: Path) -> dict[int, tuple[Path, str]]:
    found = {}
    for path in folder.glob("*.md"):
        text = path.read_text(encoding="utf-8")
        if not text.startswith("---\n"):
            continue  # the user's own file
        found[int(_properties(text)["desk_id"])] = (path, text)  # type: ignore[call-overload]
    return found


def test_one_note_per_paper_with_its_properties_note_and_abstract(tmp_path: Path) -> None:
    lib_dir = _library(tmp_path, RECORDS)
    vault = tmp_path / "vault"
    with Library(lib_dir) as lib:
        lib.set_starred([1], True)
        lib.set_note(1, "Read **section 3** again.")
        lib.tags.add([1], "to read")
        report = lib.export_obsidian(lib.paper_ids(), vault)
    assert (report.added, report.updated, report.unchanged) == (2, 0, 0)
    notes = _notes(vault)
    path, text = notes[1]
    assert path.name == "Attention Is All You Need.md"
    assert _properties(text) == {
        "title": "Attention Is All You Need",
        "authors": ["Ashish Vaswani", "Noam Shazeer"],
        "year": 2017,
        "venue": "NeurIPS",
        "url": "https://arxiv.org/abs/1706.03762",
        "tags": ["to-read"],  # an Obsidian tag holds no space
        "starred": True,
        "read": False,
        "desk_id": 1,
    }
    body = text[text.index("\n---\n") + 5 :]
    assert body.startswith("Read **section 3** again.\n\n> [!abstract]\n> We propose the Transformer")
    assert body.endswith(f"\n\n{MARKER}\n")
    hostile = _properties(notes[2][1])
    assert hostile["title"] == 'Kernels: "quoted" \\ and new lines'
    assert hostile["authors"] == ["Bernhard Schölkopf"] and hostile["year"] is None and hostile["url"] is None
    assert notes[2][0].name == "Kernels quoted and new lines.md"


def test_a_re_export_updates_desks_part_and_keeps_what_the_user_wrote(tmp_path: Path) -> None:
    lib_dir = _library(tmp_path, RECORDS)
    vault = tmp_path / "vault"
    with Library(lib_dir) as lib:
        lib.export_obsidian(lib.paper_ids(), vault)
    path, text = _notes(vault)[1]
    mine = "## My thoughts\n\nLinks to [[Other note]].\n\n---\n\nstill mine\n"
    head, _, body = text[4:].partition("\n---\n")
    text = "---\n" + head + "\naliases:\n  - transformer paper\ncssclass: wide\n---\n" + body + mine
    path.write_text(text, encoding="utf-8")
    with Library(lib_dir) as lib:
        lib.set_read([1], True)
        lib.set_title(1, "Attention, Renamed")
        lib.set_note(1, "A new desk note.")
        report = lib.export_obsidian(lib.paper_ids(), vault)
    assert (report.added, report.updated, report.unchanged) == (0, 1, 1)
    again = path.read_text(encoding="utf-8")  # the same file: links to it keep working
    assert again.endswith(f"\n\n{MARKER}\n{mine}")
    props_text = again[: again.index("\n---\n", 4)]
    assert "aliases:\n  - transformer paper\ncssclass: wide" in props_text
    assert '\ntitle: "Attention, Renamed"\n' in props_text and "\nread: true\n" in props_text
    assert "A new desk note." in again and "section 3" not in again
    with Library(lib_dir) as lib:
        assert lib.export_obsidian(lib.paper_ids(), vault).unchanged == 2
    assert path.read_text(encoding="utf-8") == again


def test_a_note_whose_marker_was_deleted_keeps_all_its_old_text(tmp_path: Path) -> None:
    lib_dir = _library(tmp_path, RECORDS[:1])
    vault = tmp_path / "vault"
    with Library(lib_dir) as lib:
        lib.export_obsidian([1], vault)
    path, text = _notes(vault)[1]
    edited = text.replace(MARKER, "my own line where the marker was")
    path.write_text(edited, encoding="utf-8")
    with Library(lib_dir) as lib:
        lib.export_obsidian([1], vault)
    again = path.read_text(encoding="utf-8")
    old_body = edited[edited.index("\n---\n") + 5 :]
    assert again.endswith(f"{MARKER}\n{old_body}")


def test_a_desk_note_holding_the_marker_line_does_not_split_the_note(tmp_path: Path) -> None:
    lib_dir = _library(tmp_path, RECORDS[:1])
    vault = tmp_path / "vault"
    with Library(lib_dir) as lib:
        lib.set_note(1, f"before\n{MARKER}\nafter")
        lib.export_obsidian([1], vault)
        path, first = _notes(vault)[1]
        path.write_text(first + "user text\n", encoding="utf-8")
        lib.export_obsidian([1], vault)
        lib.export_obsidian([1], vault)
    again = path.read_text(encoding="utf-8")
    assert again.count("user text") == 1 and again.count("after") == 1
    assert again.endswith(f"\n{MARKER}\nuser text\n")


@pytest.mark.parametrize(
    ("title", "stem"),
    [
        ('a/b\\c: d*?"<>|#^[x]', "a b c d x"),
        ("CON", "_CON"),
        ("nul.tar", "_nul.tar"),
        ("..hidden. ", "hidden"),
        ("\u202eevil\u202c name\x07", "evil name"),
        ("///", ""),
    ],
)
def test_hostile_titles_make_safe_file_names(title: str, stem: str) -> None:
    assert file_stem(title) == stem


def test_long_duplicate_and_colliding_titles_get_their_own_files(tmp_path: Path) -> None:
    long_title = "Ünïcödé " * 80
    records = [
        {"title": long_title, "abstract": "The first abstract about long titles and their files."},
        {"title": "Same Title", "abstract": "A second abstract, about duplicated titles."},
        {"title": "same title", "abstract": "A third abstract, about titles differing in case only."},
        {"title": "Mine", "abstract": "A fourth abstract whose title names a file the user has."},
        {"title": "///", "abstract": "A fifth abstract whose title leaves no character for a file name."},
    ]
    lib_dir = _library(tmp_path, records)
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "Mine.md").write_text("my own file\n", encoding="utf-8")
    with Library(lib_dir) as lib:
        report = lib.export_obsidian(lib.paper_ids(), vault)
    assert report.added == 5
    assert (vault / "Mine.md").read_text(encoding="utf-8") == "my own file\n"
    names = {i: p.name for i, (p, _) in _notes(vault).items()}
    assert len(names[1].encode("utf-8")) <= MAX_NAME_BYTES + len(".md")
    assert names[2] == "Same Title.md" and names[3] == "same title (3).md"
    assert names[4] == "Mine (4).md" and names[5] == "paper 5.md"


def test_a_note_file_that_is_not_utf8_is_left_as_it_was(tmp_path: Path) -> None:
    lib_dir = _library(tmp_path, RECORDS[:1])
    vault = tmp_path / "vault"
    with Library(lib_dir) as lib:
        lib.export_obsidian([1], vault)
        path = next(vault.glob("*.md"))
        broken = path.read_bytes() + b"\xff\xfe latin-1 bytes\n"
        path.write_bytes(broken)
        report = lib.export_obsidian([1], vault)
    assert report.left and "not UTF-8" in report.left[0]
    assert path.read_bytes() == broken


def _desk(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "DESK_SENTENCE_ENCODER": "0"}
    return subprocess.run(
        [sys.executable, "-m", "desk", *args], capture_output=True, text=True, cwd=ROOT, timeout=120,
        check=False, env=env,
    )  # fmt: skip


@pytest.mark.slow
def test_desk_export_obsidian_writes_the_folder_and_refuses_without_one(tmp_path: Path) -> None:
    lib_dir = _library(tmp_path, RECORDS)
    vault = tmp_path / "vault"
    proc = _desk(
        "export", "--format", "obsidian", "--query", "kernel", "-o", str(vault), "--library", str(lib_dir)
    )
    assert proc.returncode == 0, proc.stderr
    assert "wrote 1 note to" in proc.stderr and "(1 new, 0 updated, 0 unchanged)" in proc.stderr
    assert [p.name for p in vault.glob("*.md")] == ["Kernels quoted and new lines.md"]
    proc = _desk("export", "--format", "obsidian", "--library", str(lib_dir))
    assert proc.returncode == 2 and "-o DIR" in proc.stderr and "Traceback" not in proc.stderr
    a_file = tmp_path / "a-file"
    a_file.write_text("x", encoding="utf-8")
    proc = _desk("export", "--format", "obsidian", "-o", str(a_file), "--library", str(lib_dir))
    assert proc.returncode == 1 and "is not a folder" in proc.stderr and "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
