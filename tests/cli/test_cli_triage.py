"""flows through the command line: tags, saved searches, undo/redo, the trash."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

from desk.cli.main import main


class Desk:
    """`desk --library L ...` in this process, with its exit status, stdout and stderr."""

    def __init__(self, capsys: pytest.CaptureFixture[str], library: Path) -> None:
        self.capsys, self.library = capsys, str(library)

    def __call__(self, *argv: str) -> tuple[int, str, str]:
        try:
            code = main(["--library", self.library, *argv])
        except SystemExit as exc:  # argparse's usage errors
            code = int(exc.code or 0)
        out, err = self.capsys.readouterr()
        return code, out, err

    def ok(self, *argv: str) -> str:
        code, out, err = self(*argv)
        assert code == 0, err
        return out

    def json(self, *argv: str) -> dict:  # type: ignore[type-arg]
        return json.loads(self.ok(*argv, "--json"))

    def checked(self) -> None:
        assert self("check")[0] == 0


@pytest.fixture
def desk(capsys: pytest.CaptureFixture[str], seeded_dir: Path) -> Desk:
    return Desk(capsys, seeded_dir)


def _ids(desk: Desk, *argv: str) -> list[int]:
    return [p["id"] for p in desk.json(*argv)["papers" if argv[0] == "list" else "results"]]


def test_tag_three_papers_filter_by_tag_untag(desk: Desk) -> None:
    a, b, c = _ids(desk, "list")[:3]
    assert "Tagged 3 paper(s) “reading group”" in desk.ok("tag", str(a), str(b), str(c), "reading group")
    desk.checked()
    assert desk.json("tags") == {"tags": [{"name": "reading group", "count": 3}]}
    assert sorted(_ids(desk, "search", 'tag:"reading group"')) == [a, b, c]
    listed = {p["id"]: p["tags"] for p in desk.json("list")["papers"]}
    assert listed[a] == ["reading group"] and listed[_ids(desk, "list")[3]] == []
    hits = desk.json("search", 'tag:"reading group"')["results"]
    assert all(h["tags"] == ["reading group"] for h in hits)
    assert desk.json("stats")["tags"] == {"reading group": 3}
    desk.ok("untag", str(b), "READING GROUP")
    desk.checked()
    assert sorted(_ids(desk, "search", 'tag:"reading group"')) == [a, c]
    assert sorted(_ids(desk, "search", '-tag:"reading group"', "--limit", "200")) == sorted(
        set(_ids(desk, "list")) - {a, c}
    )
    exported = desk.ok("export", "--tag", "reading group")
    assert exported.count("\n## ") == 2 and "Tags: reading group" in exported


def test_tag_usage_errors_and_unknown_ids(desk: Desk) -> None:
    assert desk("tag", "onlyname")[0] == 2
    assert desk("tag", "x", "1", "name")[0] == 2
    code, _, err = desk("tag", "999999", "x")
    assert code == 1 and "no paper has id 999999" in err and "Traceback" not in err
    assert desk.json("tags") == {"tags": []}


def test_saved_searches(desk: Desk) -> None:
    a, b = _ids(desk, "list")[:2]
    query = 'tag:"reading group" is:unread'
    desk.ok("save-search", "group", query)
    assert desk.json("saved")["saved"] == [{"name": "group", "query": query, "count": 0}]
    desk.ok("tag", str(a), str(b), "reading group")
    desk.ok("read", str(a))
    assert desk.json("saved")["saved"][0]["count"] == 1  # it follows the library
    desk.checked()


def test_ten_decisions_then_undo_four_then_redo(desk: Desk) -> None:
    ids = _ids(desk, "search", "is:unread", "--limit", "10")
    for n, i in enumerate(ids):  # a triage pass: star some, mark the rest done
        desk.ok("star" if n % 3 == 0 else "read", str(i))
    desk.checked()
    for _ in range(4):
        assert desk.ok("undo").startswith("Undid: ")
        desk.checked()
    papers = {p["id"]: p for p in desk.json("list")["papers"]}
    decided = [papers[i]["starred"] or papers[i]["read"] for i in ids]
    assert decided == [True] * 6 + [False] * 4
    assert desk.ok("redo").startswith("Redid: ")
    assert desk.json("show", str(ids[6]))["starred"] is True  # the 7th decision was a star
    desk.checked()


def test_bulk_star_five_is_one_undo_step(desk: Desk) -> None:
    ids = _ids(desk, "list")[:5]
    desk.ok("star", *map(str, ids))
    desk.checked()
    assert sorted(_ids(desk, "search", "is:starred")) == sorted(ids)
    assert desk.ok("undo") == "Undid: star 5 papers\n"
    assert desk.json("list", "--starred")["papers"] == []
    desk.checked()
    code, _, err = desk("undo")
    assert code == 1 and err == "desk: nothing to undo\n"


def test_undo_never_takes_back_a_later_change(desk: Desk) -> None:
    a = _ids(desk, "list")[0]
    desk.ok("note", str(a), "--set", "first")
    desk.ok("tag", str(a), "t")
    desk.ok("undo")  # the tag
    desk.ok("undo")  # the note
    desk.ok("note", str(a), "--set", "mine now")
    assert desk("redo")[0] == 1  # a new change forgot what could be redone
    assert desk.json("show", str(a))["note"] == "mine now"


class _Terminal:
    """A stdin that is a terminal where a person types ``answer``."""

    def __init__(self, answer: str) -> None:
        self.answer = answer

    def isatty(self) -> bool:
        return True

    def readline(self) -> str:
        return self.answer + "\n"


def test_delete_a_paper_with_a_note_asks_then_restore(desk: Desk, monkeypatch: pytest.MonkeyPatch) -> None:
    a, b = _ids(desk, "list")[:2]
    desk.ok("note", str(a), "--set", "my thoughts")
    code, _, err = desk("delete", str(a), str(b))  # no terminal to ask: refused
    assert code == 1 and "have a note" in err and "--yes" in err
    monkeypatch.setattr("sys.stdin", _Terminal("n"))
    code, _, err = desk("delete", str(a))
    assert code == 1 and "have a note" in err and "nothing was changed" in err
    assert len(desk.json("list")["papers"]) == 94
    monkeypatch.setattr("sys.stdin", _Terminal("y"))
    desk.ok("delete", str(a), str(b))
    desk.checked()
    assert a not in _ids(desk, "list") and desk.json("search", "note:thoughts")["total"] == 0
    trashed = desk.json("trash")["papers"]
    assert [p["id"] for p in trashed] == [b, a]  # the latest removed first
    assert trashed[1]["has_note"] and set(trashed[1]) >= {"title", "sources", "tags", "starred"}
    desk.ok("restore-paper", str(a))
    desk.checked()
    assert desk.json("show", str(a))["note"] == "my thoughts"
    assert [p["id"] for p in desk.json("trash")["papers"]] == [b]
    assert [r["id"] for r in desk.json("search", "note:thoughts")["results"]] == [a]
    assert desk.ok("undo") == f"Undid: restore paper {a}\n"
    assert desk.ok("undo") == "Undid: delete 2 papers\n"
    desk.checked()
    assert desk.json("trash")["papers"] == [] and len(desk.json("list")["papers"]) == 94
    assert desk("restore-paper", str(a))[0] == 1  # not in the trash


def test_remove_a_list_then_import_it_again(desk: Desk, seeds_dir: Path) -> None:
    name = "003_cbc2104d6f6e18af.txt"
    before = desk.json("stats")
    desk.ok("remove-list", name, "--yes")
    desk.checked()
    stats = desk.json("stats")
    assert stats["papers"] < before["papers"]
    assert all(s["file"] != name for p in desk.json("list")["papers"] for s in p["sources"])
    removed = before["papers"] - stats["papers"]
    assert len(desk.json("trash")["papers"]) == removed
    again = desk.json("import", str(seeds_dir / name))
    assert again["added"] == removed and again["errors"] == []
    desk.checked()
    assert desk.json("stats")["papers"] == before["papers"]
    assert desk.json("import", str(seeds_dir / name))["added"] == 0  # imported: adding it again adds nothing
    code, _, err = desk("remove-list", "no such list")
    assert code == 1 and "no imported list" in err


def test_remove_a_collection_undo_and_empty_the_trash(desk: Desk) -> None:
    collection = next(iter(desk.json("stats")["collections"]))
    papers = len(desk.json("list")["papers"])
    desk.ok("remove-list", collection)
    left = len(desk.json("list")["papers"])
    assert left < papers
    desk.ok("undo")
    desk.checked()
    assert len(desk.json("list")["papers"]) == papers and desk.json("trash")["papers"] == []
    desk.ok("redo")
    desk.checked()
    assert len(desk.json("list")["papers"]) == left
    code, _, err = desk("empty-trash")  # no terminal: it cannot ask
    assert code == 1 and "cannot be undone" in err
    assert "Deleted" in desk.ok("empty-trash", "--yes")
    desk.checked()
    assert desk.json("trash")["papers"] == []


def _on_a_terminal(library: Path, answer: str, *argv: str) -> subprocess.CompletedProcess[str]:
    """`desk ...` as its own process with stdin on a pseudo-terminal where ``answer`` is typed."""
    master, slave = pty.openpty()
    try:
        os.write(master, answer.encode() + b"\n")  # typed ahead: the terminal keeps it for the read
        return subprocess.run(
            [sys.executable, "-m", "desk.cli.main", "--library", str(library), *argv],
            stdin=slave,
            capture_output=True,
            text=True,
            timeout=120,
        )
    finally:
        os.close(slave)
        os.close(master)


@pytest.mark.slow
def test_delete_asks_on_a_real_terminal_and_yes_does_not_ask(desk: Desk, seeded_dir: Path) -> None:
    a, b, c = _ids(desk, "list")[:3]
    desk.ok("note", str(a), "--set", "keep this thought")
    desk.ok("note", str(b), "--set", "and this one")
    no = _on_a_terminal(seeded_dir, "n", "delete", str(a))
    assert no.returncode == 1 and "[y/N]" in no.stderr and "have a note" in no.stderr, no.stderr
    assert "nothing was changed" in no.stderr and a in _ids(desk, "list")
    desk.checked()
    yes = _on_a_terminal(seeded_dir, "y", "delete", str(a))
    assert yes.returncode == 0 and "[y/N]" in yes.stderr, yes.stderr
    assert a not in _ids(desk, "list")
    desk.checked()
    # --yes: not asked even on a terminal (nothing typed is read), a paper with a note and one without.
    quiet = _on_a_terminal(seeded_dir, "n", "delete", str(b), str(c), "--yes")
    assert quiet.returncode == 0 and "[y/N]" not in quiet.stderr, quiet.stderr
    desk.checked()
    trashed = [p["id"] for p in desk.json("trash")["papers"]]
    assert set(trashed) == {a, b, c} and trashed[-1] == a  # the latest removed first
    desk.ok("restore-paper", str(a), str(b))
    desk.checked()
    assert desk.json("show", str(a))["note"] == "keep this thought"
    assert sorted(r["id"] for r in desk.json("search", "note:thought OR note:one")["results"]) == sorted(
        [a, b]
    )
    assert [p["id"] for p in desk.json("trash")["papers"]] == [c]
