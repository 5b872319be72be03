"""Each paper's kept `desk list --json` object (schema step 8): the triggers keep it through
every kind of change, `desk check` mends one edited behind their back, salvage writes them anew."""

from __future__ import annotations

import json
import sqlite3
import string
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from desk.cli.main import main
from desk.cli.output import summary_json
from desk.core.library.facade import Library
from desk.core.library.quick import QuickLibrary
from desk.core.runtime.paths import DATABASE_NAME
from desk.core.store import listing


def _differences(directory: Path) -> list[int]:
    conn = sqlite3.connect(directory / DATABASE_NAME)
    try:
        return listing.differences(conn)
    finally:
        conn.close()


def _kept(directory: Path, *, starred: bool = False) -> list[dict[str, object]]:
    """What `desk list --json` prints (QuickLibrary.list_json), read whether or not the index
    is current (QuickLibrary.open would leave a library with papers queued to the Library)."""
    conn = sqlite3.connect(directory / DATABASE_NAME)
    try:
        return [json.loads(text) for text in QuickLibrary(conn).list_json(starred=starred)]
    finally:
        conn.close()


def _agrees(lib: Library, directory: Path) -> None:
    """The kept objects are those SQLite writes from the rows, and the library's own records."""
    assert _differences(directory) == []
    for starred in (False, True):
        assert _kept(directory, starred=starred) == [
            summary_json(p) for p in lib.list_papers(starred=starred)
        ]


@pytest.mark.slow
def test_every_kind_of_change_keeps_the_listing(seeded_dir: Path, tmp_path: Path) -> None:
    """Each step changes what a list row shows in another table or way; after each, the kept
    objects still equal the rows'. Without the triggers of one kind, its step fails."""
    with Library(seeded_dir) as lib:
        ids = lib.paper_ids()
        steps: list[Callable[[], object]] = [
            lambda: lib.set_starred(ids[:4], True),
            lambda: lib.set_read(ids[2:6], True),
            lambda: lib.set_note(ids[1], "a *note*"),
            lambda: lib.set_note(ids[1], "\u3000 "),  # white space only: no note
            lambda: lib.set_title(ids[3], 'Mine "quoted" — ü'),
            lambda: lib.set_title(ids[3], ""),
            lambda: lib.tags.add(ids[:3], "reading group"),
            lambda: lib.tags.add([ids[2]], "ML"),
            lambda: lib.tags.remove([ids[0]], "reading group"),
            lambda: lib.duplicates.merge(ids[7], [ids[8], ids[9]]),  # sources move to the kept paper
            lambda: lib.duplicates.unmerge(ids[7]),
            lambda: lib.trash.delete([ids[10]]),
            lambda: lib.trash.restore([ids[10]]),
            lambda: lib.trash.remove_list("001_27efaa9633c5f607.txt"),
            lambda: lib.history.undo(),
            lambda: lib.history.redo(),
            lambda: lib.history.undo(),
            lambda: lib.trash.delete([ids[11]]),
            lambda: lib.trash.empty(),
        ]
        for step in steps:
            step()
            _agrees(lib, seeded_dir)
        more = tmp_path / "more.txt"
        more.write_text(
            "More 2027 Papers\n\nA new abstract about kept listings. We propose LISTKEEP, which is fast.\n\n"
            + lib.paper(ids[0]).abstract_raw
            + "\n",
            encoding="utf-8",
        )
        report = lib.import_paths([more])
        assert report.added == 1 and report.merged == 1  # a new paper, and a source on an old one
        _agrees(lib, seeded_dir)


def test_an_import_writes_the_objects_of_what_it_adds_and_lets_the_triggers_work_again(
    seeded_dir: Path, tmp_path: Path
) -> None:
    """The importer defers the insert triggers and writes its papers' objects in one statement:
    every new paper and every paper given a source is listed, and the deferral ends with it."""
    with Library(seeded_dir) as lib:
        old = lib.paper_ids()
        text = "\n\n".join(
            [
                f"Paper {n} about deferred listings. We propose DEFER{n}, which writes rows once."
                for n in range(5)
            ]
            + [
                lib.paper(old[0]).abstract_raw,
                lib.paper(old[1]).abstract_raw,
                "Paper 1 about deferred listings. We propose DEFER1, which writes rows once.",
            ]
        )
        path = tmp_path / "batch.txt"
        path.write_text("Batch 2027 Papers\n\n" + text + "\n", encoding="utf-8")
        report = lib.import_paths([path])
        assert report.added == 5 and report.merged == 3
        conn = sqlite3.connect(seeded_dir / DATABASE_NAME)
        assert conn.execute("SELECT count(*) FROM paper_listing_deferred").fetchone() == (0,)
        conn.close()
        _agrees(lib, seeded_dir)
        listed = {p["id"]: p for p in _kept(seeded_dir)}
        assert len(listed[old[0]]["sources"]) == 2 and len(listed[max(listed)]["sources"]) == 1
        lib.trash.restore(lib.trash.delete([old[2]]))  # a paper inserted again: by its trigger
        _agrees(lib, seeded_dir)


def test_changes_made_in_sql_rewrite_the_papers_they_touch(seeded_dir: Path) -> None:
    """A tag renamed, moved or dropped, a source moved to another paper, a paper without
    sources: statements desk's own code does not run today, kept all the same."""
    with Library(seeded_dir) as lib:
        ids = lib.paper_ids()
        lib.tags.add(ids[:2], "old name")
    conn = sqlite3.connect(seeded_dir / DATABASE_NAME)
    with conn:
        conn.execute("PRAGMA foreign_keys = ON")
        conn.execute("UPDATE tag SET name = 'new name' WHERE name = 'old name'")
    assert _differences(seeded_dir) == []
    assert _kept(seeded_dir)[0]["tags"] == ["new name"]
    with conn:
        conn.execute("UPDATE paper_tag SET paper_id = 3 WHERE paper_id = 2")
    assert _differences(seeded_dir) == []
    assert [p["tags"] for p in _kept(seeded_dir)[1:3]] == [[], ["new name"]]
    with conn:
        conn.execute("PRAGMA foreign_keys = ON")
        conn.execute("DELETE FROM tag")  # the cascade takes the papers' tags with it
    assert _differences(seeded_dir) == []
    assert _kept(seeded_dir)[0]["tags"] == []
    with conn:
        conn.execute("UPDATE source SET paper_id = 2 WHERE paper_id = 1")
    assert _differences(seeded_dir) == []
    first, second = _kept(seeded_dir)[:2]
    assert first["sources"] == [] and len(second["sources"]) == 2
    with conn:
        conn.execute(
            "INSERT INTO paper (key, abstract_raw, abstract, derived_title, starred, read, note, rev,"
            " created_at, updated_at) SELECT 'k', 'a', 'a', 'Alone', 1, 0, '', 1, created_at, updated_at"
            " FROM paper WHERE id = 1"
        )
    conn.close()
    assert _differences(seeded_dir) == []
    assert _kept(seeded_dir)[-1]["title"] == "Alone"


def test_check_rewrites_rows_edited_behind_the_triggers(seeded_dir: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    conn = sqlite3.connect(seeded_dir / DATABASE_NAME)
    with conn:
        conn.execute("UPDATE paper_listing SET json = CAST('{}' AS BLOB) WHERE id = 2")
        conn.execute("DELETE FROM paper_listing WHERE id = 3")
        conn.execute("INSERT INTO paper_listing (id, json) VALUES (999999, CAST('{}' AS BLOB))")
        conn.execute("INSERT INTO paper_listing_deferred (id) VALUES (1)")  # a deferral left behind
    conn.close()
    assert _differences(seeded_dir) == [0, 2, 3, 999999]
    assert main(["--library", str(seeded_dir), "check"]) == 0
    err = capsys.readouterr().err
    assert "4 papers' kept list rows disagreed" in err
    assert _differences(seeded_dir) == []  # the deferral too: the insert triggers work again
    with Library(seeded_dir) as lib:
        assert lib.check() == [] and lib.listing_mended == 0
        _agrees(lib, seeded_dir)


def test_salvage_writes_the_listing_from_the_rows_it_saved(seeded_dir: Path, tmp_path: Path) -> None:
    from desk.core.store.salvage import salvage

    conn = sqlite3.connect(seeded_dir / DATABASE_NAME)
    with conn:
        conn.execute("UPDATE paper_listing SET json = CAST('{}' AS BLOB)")  # not to be copied
    conn.close()
    salvage(seeded_dir / DATABASE_NAME, tmp_path / "saved")
    assert _differences(tmp_path / "saved") == []
    with Library(tmp_path / "saved") as lib:
        _agrees(lib, tmp_path / "saved")


_TEXT = st.text(
    alphabet=st.one_of(
        st.sampled_from(string.printable), st.characters(blacklist_categories=("Cs",), max_codepoint=0x1FFFF)
    ),
    max_size=12,
)


@pytest.mark.slow
def test_any_title_note_or_tag_is_kept_as_json_dumps_writes_it(seeded_dir: Path) -> None:
    with Library(seeded_dir) as lib:
        paper = lib.paper_ids()[0]

        @settings(max_examples=40, deadline=None)
        @given(
            title=_TEXT,
            note=_TEXT,
            tag=_TEXT.filter(lambda t: any(c.isprintable() and not c.isspace() for c in t)),
        )
        def kept(title: str, note: str, tag: str) -> None:
            lib.set_title(paper, title)
            lib.set_note(paper, note)
            lib.tags.add([paper], tag)
            _agrees(lib, seeded_dir)
            lib.tags.remove([paper], tag)

        kept()
