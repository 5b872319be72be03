"""`desk star/unstar/read/unread/tag/untag/note/retitle` on the light path (no ORM), one write path.

An edit's statements and undo step are desk.core.edits.statements', whichever opens the library.
Each edit is run as a command twice, on two copies of one library: once on the light path (the
index stamped current), as its own process so that what it loads can be seen, and once through
the whole Library (the stamp removed, so the open checks in full and the Library writes), in
this process. The databases must then hold the same rows, timestamps aside (those must be set on
the same rows), the commands must print the same, the fast one must not have loaded the ORM,
and the index must still be known current after it. The library holds the
seeds and, when ../shared/dev-corpus/ is there, 150 real CVPR abstracts.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from desk.core.library.facade import Library
from desk.core.library.quick import QuickLibrary
from desk.core.runtime.paths import DATABASE_NAME, INDEX_DIR_NAME
from desk.core.search import freshness

ROOT = Path(__file__).resolve().parents[3]
DEV = ROOT.parent / "shared" / "dev-corpus" / "cvpr2023.txt"
TIMES = {"created_at", "updated_at", "added_at"}
TABLES = ("paper", "history_step", "tag", "paper_tag", "index_queue")

_RUN = (
    "import json, sys\n"
    "from desk.cli.main import main\n"
    "code = main(sys.argv[1:])\n"
    "print(json.dumps({'code': code, 'modules': sorted(sys.modules)}), file=sys.stderr)\n"
)


@pytest.fixture(scope="session")
def dev_template(tmp_path_factory: pytest.TempPathFactory, seeded_template: Path) -> Path:
    """The seeded library with 150 dev-corpus abstracts imported too (when the corpus is there)."""
    import shutil

    path = tmp_path_factory.mktemp("quick-write") / "library"
    shutil.copytree(seeded_template, path)
    if DEV.is_file():
        paragraphs = DEV.read_text(encoding="utf-8").split("\n\n")
        lists = tmp_path_factory.mktemp("dev-lists") / "cvpr-150.txt"
        lists.write_text("\n\n".join(paragraphs[:151]) + "\n", encoding="utf-8")
        with Library(path) as lib:
            assert lib.import_paths([lists]).added > 100
    return path


def _desk(library: Path, *args: str) -> tuple[int, str, str, set[str]]:
    proc = subprocess.run(
        [sys.executable, "-c", _RUN, "--library", str(library), *args],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    lines = proc.stderr.strip().splitlines()
    report = json.loads(lines[-1])
    return report["code"], proc.stdout, "\n".join(lines[:-1]), set(report["modules"])


def _desk_here(capsys: pytest.CaptureFixture[str], library: Path, *args: str) -> tuple[int, str, str]:
    """The command run in this process (the whole Library is loaded here already)."""
    from desk.cli.main import main

    capsys.readouterr()
    code = main(["--library", str(library), *args])
    out, err = capsys.readouterr()
    return code, out, err.strip()


def _rows(library: Path) -> tuple[dict[str, list[tuple[object, ...]]], dict[str, list[tuple[object, ...]]]]:
    """Every row of the tables an edit touches, timestamps masked; and the timestamps apart."""
    conn = sqlite3.connect(library / DATABASE_NAME)
    try:
        rows, times = {}, {}
        for table in TABLES:
            cur = conn.execute(f"SELECT * FROM {table}")
            names = [d[0] for d in cur.description]
            data = sorted(cur.fetchall(), key=repr)
            rows[table] = [
                tuple(None if n in TIMES else v for n, v in zip(names, r, strict=True)) for r in data
            ]
            times[table] = [tuple(v for n, v in zip(names, r, strict=True) if n in TIMES) for r in data]
        return rows, times
    finally:
        conn.close()


EDITS: list[tuple[tuple[str, ...], ...]] = [
    (("star", "1", "2", "2", "3"),),
    (("star", "4"), ("star", "4", "5")),  # one already starred: only paper 5 is the step
    (("star", "1", "2"), ("unstar", "2", "1", "7")),
    (("read", "3", "8"), ("unread", "8")),
    (("tag", "1", "2", "Reading Group"), ("tag", "2", "3", "reading  group"), ("tag", "9", "ML")),
    (("tag", "1", "2", "3", "x"), ("untag", "2", "3", "4", "X"), ("untag", "1", "no such tag")),
    (("tag", "1", "Ünïcode — ok"), ("star", "1"), ("read", "1")),
    (
        ("note", "1", "--set", "a zebra — ünïcode"),
        ("note", "1", "--set", "a zebra — ünïcode"),  # the same text: no step
        ("note", "2", "--set", "okapi and zebra"),
        ("note", "1", "--set", ""),
    ),
    (("retitle", "3", "  An   okapi   title "), ("note", "3", "--set", "zebra"), ("retitle", "3", "")),
]
TEXT_COMMANDS = ("note", "retitle")
SEARCHES = ("note:zebra", "okapi", "note:okapi OR title:okapi", "zebra")


@pytest.mark.parametrize("edits", EDITS, ids=[" / ".join(" ".join(c) for c in e) for e in EDITS])
@pytest.mark.slow
def test_an_edit_on_the_fast_path_writes_what_the_library_writes(
    dev_template: Path,
    copy_library: Callable[..., Path],
    capsys: pytest.CaptureFixture[str],
    edits: tuple[tuple[str, ...], ...],
) -> None:
    fast, full = copy_library(dev_template, "fast"), copy_library(dev_template, "full")
    for command in edits:
        (full / INDEX_DIR_NAME / freshness.STAMP_NAME).unlink()  # not known current: the Library writes
        code_full, out_full, err_full = _desk_here(capsys, full, *command)
        code_fast, out_fast, err_fast, modules_fast = _desk(fast, *command)
        # A note or a title is written to the index (Whoosh, numpy), never through the ORM.
        not_loaded = ("sqlalchemy", "desk.core.library.facade") + (
            () if command[0] in TEXT_COMMANDS else ("whoosh", "numpy")
        )
        assert not any(m == n or m.startswith(n + ".") for m in modules_fast for n in not_loaded)
        assert (code_fast, out_fast, err_fast) == (code_full, out_full, err_full)
    rows_fast, times_fast = _rows(fast)
    rows_full, times_full = _rows(full)
    assert rows_fast == rows_full
    assert rows_fast["history_step"], "the edits are undo steps"
    # The same rows got new times (the untouched keep theirs, byte for byte).
    template_times = _rows(dev_template)[1]["paper"]
    touched = {k for k, (a, b) in enumerate(zip(template_times, times_full["paper"], strict=True)) if a != b}
    assert {
        k for k, (a, b) in enumerate(zip(template_times, times_fast["paper"], strict=True)) if a != b
    } == touched
    for table in ("history_step", "tag", "paper_tag"):  # stored in SQLAlchemy's own format
        for value in (v for row in times_fast[table] for v in row):
            assert isinstance(value, str) and len(value) == len("2026-12-01 17:23:26.574416")
    reader = QuickLibrary.open(fast)
    assert reader is not None, "the index is still stamped current after the fast edits"
    reader.close()
    for query in SEARCHES:  # the index holds the same papers, found the same way
        hits = [
            json.loads(_desk_here(capsys, lib, "search", query, "--json")[1])["results"]
            for lib in (fast, full)
        ]
        assert [(h["id"], h["snippet"]) for h in hits[0]] == [(h["id"], h["snippet"]) for h in hits[1]]
    assert _desk_here(capsys, fast, "check")[0] == 0


@pytest.mark.slow
def test_the_fast_edit_is_undone_and_redone_by_the_library(
    dev_template: Path, copy_library: Callable[..., Path]
) -> None:
    library = copy_library(dev_template)
    assert _desk(library, "star", "2", "3")[0] == 0
    assert _desk(library, "tag", "3", "later")[0] == 0
    with Library(library) as lib:
        assert [e.label for e in lib.history.entries()[:2]] == ["Tag paper 3 “later”", "Star 2 papers"]
        lib.history.undo()
        lib.history.undo()
        assert not lib.paper(2).starred and not lib.paper(3).starred and lib.paper(3).tags == ()
        lib.history.redo()
        assert lib.paper(2).starred and lib.paper(3).starred
    assert _desk(library, "check")[0] == 0


def test_an_unknown_paper_changes_nothing_and_says_so(
    dev_template: Path, copy_library: Callable[..., Path]
) -> None:
    library = copy_library(dev_template)
    before = _rows(library)
    code, out, err, modules = _desk(library, "star", "1", "999999")
    assert code == 1 and out == "" and "999999" in err
    assert "desk.core.library.facade" not in modules
    assert _rows(library) == before
    code, _, err, _ = _desk(library, "tag", "1", "999999", "x")
    assert code == 1 and "999999" in err and _rows(library) == before


def test_a_stale_index_sends_the_edit_to_the_library_which_repairs(
    dev_template: Path, copy_library: Callable[..., Path]
) -> None:
    library = copy_library(dev_template)
    conn = sqlite3.connect(library / DATABASE_NAME)
    conn.execute("INSERT INTO index_queue (paper_id) VALUES (1)")
    conn.commit()
    conn.close()
    code, _, _, modules = _desk(library, "star", "1")
    assert code == 0 and "desk.core.library.facade" in modules
    assert _rows(library)[0]["index_queue"] == []  # the Library's open indexed what was queued


def test_the_light_path_and_the_library_share_every_edit_statement() -> None:
    """No edit statement, label or constant exists twice: the Library's edits call the statements."""
    import inspect

    from desk.cli import commands, organize
    from desk.core.edits import fields, tags
    from desk.core.library import tags as tag_service

    for module in (commands, organize, fields, tags, tag_service):
        source = inspect.getsource(module)
        assert "statements." in source, module.__name__
        assert "UPDATE paper" not in source and "INSERT INTO paper_tag" not in source, module.__name__
    assert not (ROOT / "desk" / "core" / "library" / "quick_write.py").exists()


def test_a_note_the_index_cannot_take_is_kept_queued_and_said(
    dev_template: Path, copy_library: Callable[..., Path]
) -> None:
    import shutil

    library = copy_library(dev_template)
    lexicon = library / INDEX_DIR_NAME / "words.tsv"
    shutil.move(lexicon, library / "words.tsv")
    lexicon.mkdir()  # the index's lexicon cannot be written: the index's commit fails
    code, _, err, modules = _desk(library, "note", "4", "--set", "a quokka")
    assert code == 0 and "desk.core.library.facade" not in modules
    assert "the search index is behind the database" in err
    assert _rows(library)[0]["index_queue"] == [(4,)]  # the database has the note, queued
    lexicon.rmdir()
    shutil.move(library / "words.tsv", lexicon)
    hits = json.loads(_desk(library, "search", "note:quokka", "--json")[1])["results"]
    assert [h["id"] for h in hits] == [4] and _rows(library)[0]["index_queue"] == []
