"""Text from files, or from a library made elsewhere, never reaches a terminal as control
characters: lines for people show them harmlessly, JSON escapes them, a title holds none."""

from __future__ import annotations

import errno
import io
import json
import os
import sqlite3
import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from desk.cli.main import main
from desk.core.library.facade import Library
from desk.core.runtime.paths import DATABASE_NAME
from desk.core.text.control_chars import harmless, json_escaped, json_escaped_bytes, one_line

BIDI = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
# What a terminal acts on, and what reorders what it shows.
HOSTILE = "\x1b[2J\x1b]0;pwned\x07\x01\x08\r\x7f\x85\x9b31m\x9d0;x\x9c" + BIDI
TITLE = f"A {HOSTILE} title"


def _acts_on_a_terminal(text: str, *, keep: str = "\n\t") -> list[str]:
    """The characters of text a terminal would act on (controls, but those in keep) or that
    reorder what it shows (bidi controls), and lone surrogates."""
    return [
        c for c in text
        if (unicodedata.category(c) == "Cc" and c not in keep) or c in BIDI or 0xD800 <= ord(c) <= 0xDFFF
    ]  # fmt: skip


def _raw_controls_in_json(text: str) -> list[str]:
    """Control characters (Cc) written raw in JSON text, but the newline that ends it."""
    return [c for c in text.rstrip("\n") if unicodedata.category(c) == "Cc"]


# -- the functions ------------------------------------------------------------------------------
ANY_TEXT = st.lists(
    st.one_of(
        st.characters(codec="utf-8"),
        st.sampled_from([*HOSTILE, "\n", "\t", "\r\n", "\udcff", "\ud800", " "]),
    ),
    max_size=60,
).map("".join)
NO_SURROGATE = ANY_TEXT.filter(lambda t: not any(0xD800 <= ord(c) <= 0xDFFF for c in t))


@settings(max_examples=300, deadline=None)
@given(ANY_TEXT)
@example("\r\n\x1b[31mred\x1b[0m\u202eexe.txt\udcff")
def test_harmless_text_holds_nothing_a_terminal_acts_on(text: str) -> None:
    shown = harmless(text)
    assert _acts_on_a_terminal(shown) == []
    assert harmless(shown) == shown
    one = harmless(text, lines=False)
    assert _acts_on_a_terminal(one, keep="") == []
    shown.encode("utf-8")  # no lone surrogate: a strict UTF-8 stdout takes it
    if not _acts_on_a_terminal(text) and "\r" not in text:
        assert shown == text  # text with nothing to neutralise is left as it is
    if not any(0xD800 <= ord(c) <= 0xDFFF for c in text):  # (a surrogate is shown as "\\xff")
        # Every printable character stays where it was: only what acts on a terminal is replaced.
        printable = [c for c in text if c.isprintable() and c not in BIDI and c != "\ufffd"]
        assert [c for c in shown if c.isprintable() and c != "\ufffd"] == printable


def test_harmless_shows_what_it_replaced() -> None:
    assert harmless("a\x1b[31mb\x07c") == "a\ufffd[31mb\ufffdc"
    assert harmless("one\r\ntwo\tthree") == "one\ntwo\tthree"
    assert harmless("one\r\ntwo\tthree", lines=False) == "one two three"
    assert harmless("\u202eexe.txt") == "exe.txt"
    assert harmless("name_\udcff.md") == "name_\\xff.md"  # a file name's byte, as paths.shown_name writes it


@settings(max_examples=300, deadline=None)
@given(NO_SURROGATE)
def test_a_title_is_one_line_without_control_characters(text: str) -> None:
    title = one_line(text)
    assert _acts_on_a_terminal(title, keep="") == []
    assert title == title.strip() and "  " not in title
    assert one_line(title) == title


JSON_VALUES = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), NO_SURROGATE),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(NO_SURROGATE, inner, max_size=4),
    max_leaves=12,
)


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(JSON_VALUES)
def test_json_escapes_every_control_character_and_stays_the_same_json(value: object) -> None:
    text = json.dumps(value, ensure_ascii=False)
    escaped = json_escaped(text)
    assert _raw_controls_in_json(escaped) == []
    assert json.loads(escaped) == value
    assert json_escaped_bytes(text.encode("utf-8")) == escaped.encode("utf-8")


# -- the command line -----------------------------------------------------------------------------
def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _hostile_library(library: Path) -> tuple[int, int]:
    """A library as it may come from elsewhere: a paper's title, a source's file and collection,
    and a tag holding control characters, written into the database by another program."""
    conn = sqlite3.connect(library / DATABASE_NAME)
    with conn:
        first, second = (r[0] for r in conn.execute("SELECT id FROM paper ORDER BY id LIMIT 2"))
        conn.execute("UPDATE paper SET user_title = ? WHERE id = ?", (TITLE, first))
        conn.execute(
            "UPDATE source SET file = ?, collection = ? WHERE paper_id = ?",
            (f"evil{HOSTILE}.txt", f"evil{HOSTILE}", first),
        )
    conn.close()
    return first, second


def test_retitle_keeps_no_control_character_and_a_note_keeps_what_was_typed(
    capsys: pytest.CaptureFixture[str], seeded_dir: Path
) -> None:
    lib = ("--library", str(seeded_dir))
    assert _run(capsys, *lib, "retitle", "1", TITLE)[0] == 0
    assert _run(capsys, *lib, "note", "1", "--set", f"my note {HOSTILE}")[0] == 0
    shown = json.loads(_run(capsys, *lib, "show", "1", "--json")[1])
    assert shown["title"] == "A [2J ]0;pwned 31m 0;x title"
    assert shown["note"] == f"my note {HOSTILE}"  # the user's own text, stored as typed
    with Library(seeded_dir) as library:  # the window's retitle
        library.set_title(2, f"B {HOSTILE}\nsecond line")
        assert library.paper(2).title == "B [2J ]0;pwned 31m 0;x second line"


@pytest.mark.parametrize("quick", [True, False], ids=["current index", "whole library"])
def test_list_show_and_search_print_no_control_character(
    capsys: pytest.CaptureFixture[str], seeded_dir: Path, quick: bool
) -> None:
    first, _ = _hostile_library(seeded_dir)
    lib = ("--library", str(seeded_dir))
    assert _run(capsys, *lib, "note", str(first), "--set", f"zebrafish {HOSTILE} notes")[0] == 0
    assert _run(capsys, *lib, "tag", str(first), f"t{HOSTILE}")[0] == 0
    if not quick:  # the index's stamp gone: each command opens the whole Library and repairs
        (seeded_dir / "index" / "desk-search.json").unlink()
    for command in (
        ("list",),
        ("list", "--sort", "title"),
        ("show", str(first)),
        ("search", "zebrafish"),
        ("search", "note:zebrafish"),
        ("tags",),
        ("stats",),
    ):
        code, out, err = _run(capsys, *lib, *command)
        assert code == 0, err
        assert _acts_on_a_terminal(out) == [] and _acts_on_a_terminal(err) == [], command
    code, out, _ = _run(capsys, *lib, "show", str(first))
    assert "A \ufffd[2J\ufffd]0;pwned\ufffd" in out and "zebrafish \ufffd[2J" in out  # shown, harmless
    assert "Source: evil\ufffd[2J" in out


@pytest.mark.parametrize("quick", [True, False], ids=["current index", "whole library"])
def test_json_escapes_every_control_character_of_a_library_from_elsewhere(
    capsys: pytest.CaptureFixture[str], seeded_dir: Path, quick: bool
) -> None:
    first, _ = _hostile_library(seeded_dir)
    lib = ("--library", str(seeded_dir))
    assert _run(capsys, *lib, "note", str(first), "--set", f"zebrafish {HOSTILE} notes")[0] == 0
    if not quick:
        (seeded_dir / "index" / "desk-search.json").unlink()
    outputs = {}
    for command in (("list", "--json"), ("show", str(first), "--json"), ("search", "zebrafish", "--json")):
        code, out, err = _run(capsys, *lib, *command)
        assert code == 0, err
        assert _raw_controls_in_json(out) == [], command
        outputs[command[0]] = json.loads(out)
    listed = next(p for p in outputs["list"]["papers"] if p["id"] == first)
    assert listed["title"] == TITLE  # the same JSON: the escapes decode to the stored text
    assert listed["sources"][0]["file"] == f"evil{HOSTILE}.txt"
    assert outputs["show"]["note"] == f"zebrafish {HOSTILE} notes"
    assert [r["title"] for r in outputs["search"]["results"]] == [TITLE]


def test_the_list_written_by_sqlite_is_the_same_text_with_control_characters(
    capsys: pytest.CaptureFixture[str], seeded_dir: Path
) -> None:
    """`desk list --json` on a current index (SQLite's text, escaped as bytes) and through the
    whole Library (json.dumps, escaped as text) print the same bytes."""
    _hostile_library(seeded_dir)
    lib = ("--library", str(seeded_dir))
    quick = _run(capsys, *lib, "list", "--json")[1]
    (seeded_dir / "index" / "desk-search.json").unlink()
    whole = _run(capsys, *lib, "list", "--json")[1]
    assert quick == whole and "\\u009b" in quick and "\\u007f" in quick


def test_the_markdown_export_holds_no_control_character(
    capsys: pytest.CaptureFixture[str], seeded_dir: Path, tmp_path: Path
) -> None:
    first, second = _hostile_library(seeded_dir)
    lib = ("--library", str(seeded_dir))
    assert _run(capsys, *lib, "star", str(first), str(second))[0] == 0
    assert _run(capsys, *lib, "note", str(first), "--set", f"- my note {HOSTILE}\n- two")[0] == 0
    code, out, err = _run(capsys, *lib, "export")
    assert code == 0, err
    assert _acts_on_a_terminal(out) == [] and "- my note \ufffd[2J" in out
    assert _run(capsys, *lib, "export", "-o", str(tmp_path / "out.md"))[0] == 0
    assert (tmp_path / "out.md").read_text(encoding="utf-8") == out


def test_log_records_on_stderr_are_harmless(seeded_dir: Path) -> None:
    script = (
        "import logging, sys\n"
        "from desk.cli.main import main\n"
        "assert main(sys.argv[1:]) == 0\n"
        "logging.getLogger('desk.core').warning('could not read %s', 'evil\\x1b]0;pwned\\x07.txt')\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", script, "--library", str(seeded_dir), "stats"],
        capture_output=True, timeout=120, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.decode("utf-8").splitlines()[-1] == "desk: could not read evil\ufffd]0;pwned\ufffd.txt"


def test_a_progress_bar_shows_a_file_name_harmlessly() -> None:
    from desk.cli import progress

    class Terminal(io.StringIO):
        def isatty(self) -> bool:  # what the bar asks of stderr before drawing
            return True

    stream = Terminal()
    bar = progress.Bar("Importing", "files", stream)
    old, progress.SHOW_AFTER = progress.SHOW_AFTER, 0.0
    try:
        bar(1, 2, "evil\x1b]0;pwned\x07\x9b31m.txt")
        bar(2, 2, "evil\x1b]0;pwned\x07\x9b31m.txt")
    finally:
        progress.SHOW_AFTER = old
    shown = stream.getvalue()
    assert "evil\ufffd]0;pwned\ufffd\ufffd31m.txt" in shown and "\x07" not in shown and "\x9b" not in shown


# -- messages naming the output file ---------------------------------------------------------------
@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full here")
def test_an_export_to_a_full_disk_names_the_file(
    capsys: pytest.CaptureFixture[str], seeded_dir: Path
) -> None:
    code, _, err = _run(capsys, "--library", str(seeded_dir), "export", "-o", "/dev/full")
    assert code == 1
    assert err == "desk: /dev/full could not be written: the disk is full\n"
    assert os.strerror(errno.ENOSPC) not in err and str(seeded_dir) not in err


def test_an_output_file_whose_name_is_not_utf8_is_named_readably(
    capsys: pytest.CaptureFixture[str], seeded_dir: Path, tmp_path: Path
) -> None:
    target = tmp_path / os.fsdecode(b"reading-\xff.md")
    try:
        target.write_bytes(b"")
    except (OSError, UnicodeEncodeError):
        pytest.skip("this file system takes only UTF-8 names")
    code, _, err = _run(capsys, "--library", str(seeded_dir), "export", "-o", str(target))
    assert code == 0, err
    assert err.endswith("reading-\\xff.md\n") and "\\udcff" not in err and "\udcff" not in err
    assert target.read_text(encoding="utf-8").startswith("# desk export")
