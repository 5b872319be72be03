"""The command-line contract of PRODUCT.md: options, JSON shapes, exit codes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from desk.cli.main import main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:
    code, out, err = run(capsys, *argv)
    assert code == 0, err
    return json.loads(out)


def test_import_seeds_json_then_again_adds_nothing(capsys, tmp_path: Path, seeds_dir: Path) -> None:
    lib = str(tmp_path / "L")
    first = run_json(capsys, "--library", lib, "import", str(seeds_dir), "--json")
    assert first == {
        "files": 5,
        "paragraphs": 95,
        "added": 94,
        "merged": 1,
        "near_duplicates": first["near_duplicates"],
        "errors": [],
    }
    again = run_json(capsys, "import", str(seeds_dir), "--json", "--library", lib)
    assert again["added"] == 0 and again["errors"] == []


def test_library_option_after_the_command_and_env(capsys, seeded_dir: Path, monkeypatch) -> None:
    assert run_json(capsys, "stats", "--json", "--library", str(seeded_dir))["papers"] == 94
    monkeypatch.setenv("DESK_LIBRARY", str(seeded_dir))
    stats = run_json(capsys, "stats", "--json")
    assert stats["papers"] == 94 and stats["sources"] == 95
    assert set(stats) == {"papers", "sources", "starred", "read", "notes", "collections", "tags"}


def test_list_show_star_note_retitle(capsys, seeded_dir: Path) -> None:
    L = ["--library", str(seeded_dir)]
    papers = run_json(capsys, *L, "list", "--json")["papers"]
    assert len(papers) == 94
    assert set(papers[0]) == {"id", "title", "short_name", "starred", "read", "has_note", "sources", "tags"}
    a, b = papers[0]["id"], papers[1]["id"]
    assert run(capsys, *L, "star", str(a), str(b))[0] == 0
    assert run(capsys, *L, "unstar", str(b))[0] == 0
    assert run(capsys, *L, "read", str(a))[0] == 0
    assert run(capsys, *L, "note", str(a), "--set", "line one\n\n*emph*")[0] == 0
    assert run(capsys, *L, "retitle", str(a), "My own title")[0] == 0
    shown = run_json(capsys, *L, "show", str(a), "--json")
    assert shown["starred"] and shown["read"] and shown["has_note"]
    assert shown["note"] == "line one\n\n*emph*" and shown["title"] == "My own title"
    assert shown["abstract"] and "$" not in shown["abstract"]
    starred = run_json(capsys, *L, "list", "--starred", "--json")["papers"]
    assert [p["id"] for p in starred] == [a]
    assert run(capsys, *L, "note", str(a), "--set", "")[0] == 0
    assert not run_json(capsys, *L, "show", str(a), "--json")["has_note"]
    assert run(capsys, *L, "check")[0] == 0


def test_export_starred_to_file(capsys, seeded_dir: Path, tmp_path: Path) -> None:
    L = ["--library", str(seeded_dir)]
    ids = [p["id"] for p in run_json(capsys, *L, "list", "--json")["papers"]][:2]
    run(capsys, *L, "star", *map(str, ids))
    run(capsys, *L, "note", str(ids[0]), "--set", "- [ ] try it\n- compare with **RACER**")
    out = tmp_path / "reading.md"
    code, _, err = run(capsys, *L, "export", "--starred", "-o", str(out))
    assert code == 0 and "2 paper" in err
    md = out.read_text(encoding="utf-8")
    assert md.count("\n## ") == 2 and "- [ ] try it\n- compare with **RACER**" in md
    code, stdout, _ = run(capsys, *L, "export")
    assert stdout.split("\n", 1)[1] == md.split("\n", 1)[1]


def test_an_export_of_nothing_says_so_and_still_writes_its_file(
    capsys, seeded_dir: Path, tmp_path: Path
) -> None:
    L = ["--library", str(seeded_dir)]
    out = tmp_path / "none.bib"
    code, _, err = run(capsys, *L, "export", "--format", "bibtex", "-o", str(out))
    assert code == 0 and "no starred papers to export" in err and "desk star ID" in err
    assert out.exists() and out.read_text(encoding="utf-8").strip() == ""
    code, _, err = run(capsys, *L, "export", "--tag", "nothing-here")
    assert code == 0 and "no papers tagged “nothing-here” to export" in err


@pytest.mark.parametrize(
    ("argv", "code"),
    [
        (["show", "999999"], 1),
        (["star", "999999"], 1),
        (["show", "abc"], 2),
        (["frobnicate"], 2),
        (["note", "1"], 2),
        (["export", "--starred", "--query", "x"], 2),
    ],
)
def test_exit_codes(capsys, seeded_dir: Path, argv: list[str], code: int) -> None:
    try:
        got = main(["--library", str(seeded_dir), *argv])
    except SystemExit as exc:
        got = exc.code
    _, err = capsys.readouterr()
    assert got == code
    assert "Traceback" not in err and err.strip()


def test_bad_file_is_reported_and_skipped(capsys, seeded_dir: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 40)
    before = run_json(capsys, "--library", str(seeded_dir), "stats", "--json")
    code, out, err = run(capsys, "--library", str(seeded_dir), "import", str(bad), "--json")
    assert code == 1
    report = json.loads(out)
    assert report["added"] == 0 and report["errors"][0]["file"] == "bad.txt"
    assert "bad.txt" in err and "Traceback" not in err
    assert run_json(capsys, "--library", str(seeded_dir), "stats", "--json") == before


def test_backup_and_restore(capsys, seeded_dir: Path, tmp_path: Path) -> None:
    L = ["--library", str(seeded_dir)]
    copy = tmp_path / "copy.sqlite3"
    assert run(capsys, *L, "backup", str(copy))[0] == 0
    first = run_json(capsys, *L, "list", "--json")["papers"][0]["id"]
    run(capsys, *L, "star", str(first))
    code, out, _ = run(capsys, *L, "restore", str(copy))
    assert code == 0 and "94 papers" in out
    assert not run_json(capsys, *L, "show", str(first), "--json")["starred"]
    assert run(capsys, *L, "check")[0] == 0
    junk = tmp_path / "junk.sqlite3"
    junk.write_bytes(b"not a database" * 100)
    code, _, err = run(capsys, *L, "restore", str(junk))
    assert code == 1 and "not a" in err
    assert run_json(capsys, *L, "stats", "--json")["papers"] == 94


def test_console_script_prints_json_only(tmp_path: Path, seeds_dir: Path) -> None:
    env = {**os.environ, "DESK_LIBRARY": str(tmp_path / "L")}
    proc = subprocess.run(
        [sys.executable, "-m", "desk", "import", str(seeds_dir / "001_27efaa9633c5f607.txt"), "--json"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["added"] == 19


def test_dupes_merge_distinct_unmerge(capsys, seeded_dir: Path, tmp_path: Path, seeds_dir: Path) -> None:
    L = ["--library", str(seeded_dir)]
    target = run_json(capsys, *L, "list", "--json")["papers"][3]["id"]
    abstract = run_json(capsys, *L, "show", str(target), "--json")["abstract"]
    words = abstract.split()
    edited = tmp_path / "v2.txt"
    # an arXiv v2: the last sentence dropped, one word changed
    edited.write_text(
        "Preprints\n\n" + " ".join(words[: int(len(words) * 0.8)]).replace(" the ", " a ", 1) + "\n"
    )
    report = run_json(capsys, *L, "import", str(edited), "--json")
    assert report["added"] == 1 and report["near_duplicates"] == 1
    groups = run_json(capsys, *L, "dupes", "--json")["groups"]
    new_id = max(p["id"] for p in run_json(capsys, *L, "list", "--json")["papers"])
    [group] = [g for g in groups if g["ids"] == sorted([target, new_id])]
    assert group["kind"] == "truncation" and 0.75 < group["similarity"] < 0.85  # a copy cut to 80 %
    assert 0.9 <= group["containment"] <= 1
    assert run(capsys, *L, "merge", str(target), str(new_id))[0] == 0
    assert run_json(capsys, *L, "stats", "--json")["papers"] == 94
    assert run(capsys, *L, "unmerge", str(target))[0] == 0
    assert run_json(capsys, *L, "stats", "--json")["papers"] == 95
    assert run(capsys, *L, "distinct", str(target), str(new_id))[0] == 0
    assert all(
        sorted([target, new_id]) != g["ids"] for g in run_json(capsys, *L, "dupes", "--json")["groups"]
    )
    assert run(capsys, *L, "check")[0] == 0


def test_map_json_gives_every_paper_a_place_and_a_cluster_and_each_cluster_a_label(
    capsys, seeded_dir: Path
) -> None:
    got = run_json(capsys, "map", "--json", "--library", str(seeded_dir))
    assert set(got) == {"points", "clusters"}
    assert {tuple(sorted(p)) for p in got["points"]} == {("cluster", "id", "x", "y")}
    _, out, _ = run(capsys, "list", "--json", "--library", str(seeded_dir))
    assert len(got["points"]) == len(json.loads(out)["papers"]) == 94
    assert all(0 <= p["x"] <= 1 and 0 <= p["y"] <= 1 for p in got["points"])
    clusters = got["clusters"]
    assert [c["id"] for c in clusters] == list(range(len(clusters)))
    assert {tuple(sorted(c)) for c in clusters} == {("id", "label", "size")}
    assert sum(c["size"] for c in clusters) == 94
    assert len({c["label"] for c in clusters}) == len(clusters)
    assert {p["cluster"] for p in got["points"]} <= {c["id"] for c in clusters}
    again = run_json(capsys, "map", "--json", "--library", str(seeded_dir))
    assert again == got  # kept, not laid out again differently
    hits = run_json(capsys, "search", "cluster:0", "--json", "--limit", "100", "--library", str(seeded_dir))
    in_cluster = {p["id"] for p in got["points"] if p["cluster"] == 0}
    assert {h["id"] for h in hits["results"]} == in_cluster


def test_map_draws_a_png_and_an_svg_offscreen_and_a_missing_folder_is_said_in_one_line(
    capsys, seeded_dir: Path, tmp_path: Path
) -> None:
    png, svg = tmp_path / "map.png", tmp_path / "map.svg"
    code, out, err = run(capsys, "map", "--png", str(png), "--svg", str(svg), "--library", str(seeded_dir))
    assert code == 0, err
    assert "94 papers in" in out
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 10_000
    assert svg.read_text(encoding="utf-8").count("<") > 94  # a circle a paper, and the labels
    nowhere = tmp_path / "nowhere" / "m.png"
    code, _, err = run(capsys, "map", "--png", str(nowhere), "--library", str(seeded_dir))
    assert code == 1 and err.count("\n") == 1 and "folder does not exist" in err


@pytest.mark.slow
def test_a_map_drawn_in_a_process_leaves_an_application_a_window_can_use(
    seeded_dir: Path, tmp_path: Path
) -> None:
    """`desk map --png` run in a process that then opens a widget (a script, a test worker):
    the application it made is one widgets can use, else Qt aborts on the first widget."""
    script = (
        "import sys\n"
        "from desk.cli.main import main\n"
        f"assert main(['map', '--png', {str(tmp_path / 'm.png')!r}, '--library', {str(seeded_dir)!r}]) == 0\n"
        "from PySide6.QtWidgets import QWidget\n"
        "QWidget()\n"
        "print('widget made')\n"
    )
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "DESK_SENTENCE_ENCODER": "0"}
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=300
    )
    assert done.returncode == 0 and "widget made" in done.stdout, done.stderr[-2000:]
