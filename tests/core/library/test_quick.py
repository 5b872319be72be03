"""Read commands on plain SQLite (desk.core.library.quick) and the stamp that lets them skip the full check.

QuickLibrary must answer exactly as Library does, and it may only be used when the index is
known to agree with the database: every stale case the full check (IndexSync.needs_rebuild)
finds must make the cheap one (freshness.is_current) say "not known", so the whole Library
opens and repairs.
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from desk.core.library.facade import Library
from desk.core.library.quick import QuickLibrary
from desk.core.runtime.errors import PaperNotFound
from desk.core.runtime.paths import DATABASE_NAME, INDEX_DIR_NAME
from desk.core.search import freshness


def _worked_on(lib: Library) -> list[int]:
    """Stars, reads, notes (one only whitespace), a title, tags, a merge and a paper in the trash."""
    ids = lib.paper_ids()
    lib.set_starred(ids[:5], True)
    lib.set_read(ids[3:9], True)
    lib.set_note(ids[1], "a *note* — ünïcode")
    lib.set_note(ids[2], "\n\t ")  # Python's strip() says no note; SQLite's trim() sees one
    lib.set_note(ids[6], "  spaced  ")
    lib.set_title(ids[4], "My own title")
    lib.tags.add(ids[:3], "reading group")
    lib.tags.add([ids[2], ids[10]], "ML")
    lib.duplicates.merge(ids[11], [ids[12]])
    lib.trash.delete([ids[13]])
    return ids


def test_quick_answers_as_the_library_does(seeded_dir: Path) -> None:
    with Library(seeded_dir) as lib:
        ids = _worked_on(lib)
        expected = (
            lib.stats(),
            lib.tags.counts(),
            lib.list_papers(),
            lib.list_papers(starred=True),
            lib.papers(lib.paper_ids()),
        )
    reader = QuickLibrary.open(seeded_dir)
    assert reader is not None, "the writes above left the index stamped as current"
    with reader:
        got = (
            reader.stats(),
            reader.tag_counts(),
            reader.list_papers(),
            reader.list_papers(starred=True),
            [reader.paper(p.id) for p in expected[2]],
        )
        assert got == expected
        assert len(got[2]) == len(ids) - 2 and any(len(p.sources) == 2 for p in got[2])
        with pytest.raises(PaperNotFound):
            reader.paper(ids[13])  # in the trash
        with pytest.raises(ValueError):
            reader.list_papers(sort="title")


def _digest_changed(library: Path) -> None:
    """A paper's revision changed behind the index (as a lost -wal file or a restore leaves it)."""
    conn = sqlite3.connect(library / DATABASE_NAME)
    conn.execute("UPDATE paper SET rev = rev + 1, note = 'axolotl' WHERE id = (SELECT min(id) FROM paper)")
    conn.commit()
    conn.close()


def _queued(library: Path) -> None:
    conn = sqlite3.connect(library / DATABASE_NAME)
    conn.execute("INSERT INTO index_queue (paper_id) SELECT min(id) FROM paper")
    conn.commit()
    conn.close()


def _restored(library: Path) -> None:
    """The database put back from a backup holding other revisions (same number of papers)."""
    with Library(library) as lib:
        ids = lib.paper_ids()
        backup = lib.backup(library.parent / "before.sqlite3")
        lib.set_note(ids[0], "axolotl")
    src, dst = sqlite3.connect(backup), sqlite3.connect(library / DATABASE_NAME)
    src.backup(dst)
    src.close()
    dst.close()


def _segment_damaged(library: Path) -> None:
    seg = sorted((library / INDEX_DIR_NAME).glob("*.seg"))[0]
    data = bytearray(seg.read_bytes())
    data[len(data) // 2] ^= 0xFF
    seg.write_bytes(bytes(data))


def _acronyms_rewritten(library: Path) -> None:
    path = library / INDEX_DIR_NAME / "acronyms.json"
    path.write_text(path.read_text(encoding="utf-8") + " ", encoding="utf-8")


def _stamp_forged(library: Path) -> None:
    path = library / INDEX_DIR_NAME / freshness.STAMP_NAME
    data = json.loads(path.read_text(encoding="utf-8"))
    data["digest"] += 1
    path.write_text(json.dumps(data), encoding="utf-8")


STALE: dict[str, Callable[[Path], None]] = {
    "a revision changed behind the index": _digest_changed,
    "a paper queued for the index": _queued,
    "the database restored from a backup": _restored,
    "a segment changed": _segment_damaged,
    "the acronyms file changed": _acronyms_rewritten,
    "the signed record removed": lambda p: (p / INDEX_DIR_NAME / "desk-files.json").unlink(),
    "the version marker removed": lambda p: (p / INDEX_DIR_NAME / "desk-search.json").unlink(),
    "the stamp removed": lambda p: (p / INDEX_DIR_NAME / freshness.STAMP_NAME).unlink(),
    "the stamp forged": _stamp_forged,
    "a killed rebuild's folder": lambda p: (p / INDEX_DIR_NAME / f".rebuild-{2**22 + 7}").mkdir(),
    "the index removed": lambda p: [f.unlink() for f in (p / INDEX_DIR_NAME).iterdir() if f.is_file()],
}


@pytest.mark.slow
@pytest.mark.parametrize("case", sorted(STALE))
def test_every_stale_case_opens_the_whole_library_which_repairs(seeded_dir: Path, case: str) -> None:
    assert QuickLibrary.open(seeded_dir) is not None  # the template's import stamped its index
    STALE[case](seeded_dir)
    assert QuickLibrary.open(seeded_dir) is None
    with Library(seeded_dir) as lib:
        assert lib.check() == []
        if case in ("a revision changed behind the index", "the database restored from a backup"):
            assert lib.repaired == "the search index holds other revisions than the database"
        if case == "a paper queued for the index":
            assert lib.repaired == "the search index missed recent changes"
    # The full open checked (and repaired) it, and stamped it: the next read is quick again.
    reader = QuickLibrary.open(seeded_dir)
    assert reader is not None
    reader.close()


def test_a_change_written_through_the_library_keeps_the_stamp_current(seeded_dir: Path) -> None:
    with Library(seeded_dir) as lib:
        pid = lib.paper_ids()[7]
        lib.set_note(pid, "axolotl")
    reader = QuickLibrary.open(seeded_dir)
    assert reader is not None
    with reader:
        assert reader.paper(pid).note == "axolotl"
    with Library(seeded_dir) as lib:  # the stamp is the full check's verdict: it finds nothing either
        assert lib.repaired is None and lib.check() == []
        assert [r.paper.id for r in lib.search("note:axolotl").rows] == [pid]


def test_a_database_of_an_older_schema_is_left_to_the_migrations(seeded_dir: Path) -> None:
    conn = sqlite3.connect(seeded_dir / DATABASE_NAME)
    conn.execute("PRAGMA user_version = 4")
    conn.commit()
    conn.close()
    assert QuickLibrary.open(seeded_dir) is None
    assert QuickLibrary.open(seeded_dir.parent / "nowhere") is None
    assert not (seeded_dir.parent / "nowhere").exists()


QUERIES = (
    "policy",
    "reinforcement learning",
    '"language model"',
    "diffus*",
    "polcy",
    "is:starred",
    "-policy",
)


def test_quick_search_answers_as_the_library_does(seeded_dir: Path) -> None:
    from desk.core.library.quick_search import search

    with Library(seeded_dir) as lib:
        _worked_on(lib)
        lib.saved_searches.save("mine", "policy")
        lib.discovery.ensure_vectors()
        collection = lib.list_papers()[0].sources[0].collection
    queries = (*QUERIES, f'in:"{collection}" learning')
    with Library(seeded_dir) as lib:  # as `desk search` opens it: the vectors read from their store
        assert lib.discovery.ensure_vectors() is None
        expected = [lib.search(q, limit=20) for q in queries]
    reader = QuickLibrary.open(seeded_dir)
    assert reader is not None
    with reader:
        got = [search(reader, seeded_dir, q, 20, "relevance") for q in queries]
        # A tag or a saved search is the Library's to answer; so is another sort.
        assert search(reader, seeded_dir, "tag:ML", 20, "relevance") is None
        assert search(reader, seeded_dir, "saved:mine", 20, "relevance") is None
        assert search(reader, seeded_dir, "policy", 20, "title") is None

    def same(page: object) -> object:  # took_ms is the clock's
        return None if page is None else {**vars(page), "took_ms": 0}

    assert [same(p) for p in got] == [same(p) for p in expected]
    assert all(p.rows for p in expected[:4])


def test_quick_search_leaves_vectors_that_lag_behind_to_the_library(seeded_dir: Path) -> None:
    from desk.core.library.quick_search import search

    with Library(seeded_dir) as lib:
        lib.discovery.ensure_vectors()
        lib.trash.delete(lib.paper_ids()[:1])  # the vectors now hold a paper the library does not
    reader = QuickLibrary.open(seeded_dir)
    assert reader is not None
    with reader:
        assert search(reader, seeded_dir, "policy", 20, "relevance") is None


def test_damage_the_stamp_let_an_open_skip_is_found_by_check_and_repaired_next(seeded_dir: Path) -> None:
    """Bytes changed with sizes and times kept: an open trusting its stamp reads no segment, so the
    Library's check (which reads them) says so, forgets the stamp and has the next open rebuild."""
    index = seeded_dir / INDEX_DIR_NAME
    for seg in sorted(index.glob("*.seg")):
        info = seg.stat()
        data = bytearray(seg.read_bytes())
        for k in range(len(data) // 3, len(data), max(1, len(data) // 40)):
            data[k] ^= 0xA5
        seg.write_bytes(bytes(data))
        os.utime(seg, ns=(info.st_atime_ns, info.st_mtime_ns))
    with Library(seeded_dir) as lib:
        assert lib.repaired is None  # the stamp vouched for what it could see
        problems = lib.check()
    assert any("damaged" in p for p in problems), problems
    assert not (index / freshness.STAMP_NAME).exists()
    assert QuickLibrary.open(seeded_dir) is None
    with Library(seeded_dir) as lib:
        assert lib.repaired is not None and lib.check() == []


def test_an_import_into_a_library_leaves_its_index_stamped_current(seeded_dir: Path, tmp_path: Path) -> None:
    # The import's last step folds the small segments into one: the stamp must follow it, or the
    # first command after every import paid the full check (and a write the whole Library).
    more = tmp_path / "more.txt"
    more.write_text(
        "Workshop Papers\n\nWe study how quokkas forage across fragmented island habitats and find that"
        " foraging range shrinks with patch isolation.\n\nWe present a survey of tide-pool invertebrates"
        " that counts species by hand at dawn over two summers.\n",
        encoding="utf-8",
    )
    from desk.core.runtime.tuning import Tuning

    # Its papers written as a batch of their own (as a big file's or a slow import's are), then merged.
    with Library(seeded_dir, tuning=Tuning(index_on_workers_from=1)) as lib:
        toc = freshness.generation(seeded_dir / INDEX_DIR_NAME)
        assert lib.import_paths([more]).added == 2
    assert freshness.generation(seeded_dir / INDEX_DIR_NAME) != toc
    reader = QuickLibrary.open(seeded_dir)
    assert reader is not None
    reader.close()


def test_the_vectors_lag_check_digests_the_ids_as_pending_compares_them(seeded_dir: Path) -> None:
    # quick_search asks the database for a digest of its ids instead of every id (at 100k papers
    # that read the whole table); it must say "behind" exactly when SemanticVectors.pending does.
    from desk.core.library.quick_search import _lagging
    from desk.core.semantic.store import DIR_NAME
    from desk.core.semantic.vectors import SemanticVectors

    def verdicts() -> tuple[bool, bool]:
        vectors = SemanticVectors(seeded_dir / DIR_NAME)
        vectors.load()
        reader = QuickLibrary.open(seeded_dir)
        assert reader is not None
        with reader:
            assert reader.all_ids() == sorted(reader.column("SELECT id FROM paper"))
            return _lagging(vectors, reader), vectors.pending(reader.all_ids())

    assert verdicts() == (True, True)  # no vectors yet
    with Library(seeded_dir) as lib:
        lib.discovery.ensure_vectors()
    assert verdicts() == (False, False)
    with Library(seeded_dir) as lib:
        first, second = lib.paper_ids()[:2]
        lib.duplicates.merge(first, [second])  # one paper fewer
    assert verdicts() == (True, True)
    with Library(seeded_dir) as lib:
        lib.discovery.ensure_vectors()
        lib.trash.delete([first])
        lib.trash.restore([first])  # the same ids again
    assert verdicts() == (False, False)


def _listed(emit: Callable[[], None]) -> str:
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        emit()
    return out.getvalue()


def _listed_bytes(emit: Callable[[], None]) -> bytes:
    """What emit writes to a UTF-8 stdout with a buffer (a terminal's, a pipe's), as bytes."""
    import contextlib
    import io

    raw = io.BytesIO()
    out = io.TextIOWrapper(raw, encoding="utf-8", newline="\n")
    with contextlib.redirect_stdout(out):
        print("before", end=" ")  # text written first comes out first
        emit()
    out.flush()
    data = raw.getvalue()
    assert data.startswith(b"before ")
    return data[len(b"before ") :]


def test_list_json_written_by_sqlite_is_the_librarys_text_byte_for_byte(seeded_dir: Path) -> None:
    """`desk list --json` on a current index: each paper's object written by SQLite (json_quote,
    ordered subqueries) is the very text json.dumps gives for Library.list_papers' records: odd
    characters in titles and tags, notes of Unicode white space only (no note) or of a character
    strip() keeps, several sources, tags given to a paper against the order they were made."""
    from desk.cli.output import emit_json, emit_list_json, summary_json

    with Library(seeded_dir) as lib:
        ids = _worked_on(lib)
        lib.set_title(ids[5], 'He said "hi" \\ back\ttab — ünï 😀 \u2028 end')
        lib.set_title(ids[7], "")  # no title of the user's: the derived one
        lib.set_note(ids[8], "\u3000\xa0\u2029\x1c")  # white space to strip(): no note
        lib.set_note(ids[9], "\u200b")  # a zero-width space is no white space to strip()
        lib.tags.add([ids[14]], 'zeta "quoted" \\')
        lib.tags.add([ids[15]], "alpha\x7f ü")
        lib.tags.add([ids[16]], "alpha\x7f ü")  # made after zeta, given to paper 16 first
        lib.tags.add([ids[16]], 'zeta "quoted" \\')
        lists = [[summary_json(p) for p in lib.list_papers(starred=s)] for s in (False, True)]
        expected = [_listed(lambda papers=papers: emit_json({"papers": papers})) for papers in lists]
    reader = QuickLibrary.open(seeded_dir)
    assert reader is not None
    with reader:
        got = [_listed(lambda s=s: emit_list_json(reader.list_json(starred=s))) for s in (False, True)]
    assert got == expected
    with QuickLibrary.open(seeded_dir) as reader:  # type: ignore[union-attr]
        written = _listed_bytes(lambda: emit_list_json(reader.list_json()))
    assert written == expected[0].encode("utf-8")  # straight to a UTF-8 stdout's buffer
    papers = json.loads(got[0])["papers"]
    tags = next(p["tags"] for p in papers if p["id"] == ids[16])
    assert [t.split()[0] for t in tags] == ["zeta", "alpha"]  # in the order the tags were made
    assert any(len(p["sources"]) == 2 for p in papers) and json.loads(got[1])["papers"]


def test_list_json_of_a_paper_without_sources_lists_none(seeded_dir: Path) -> None:
    """A paper whose sources are gone (a database from elsewhere): `"sources": []`, as the
    library's own records give, not an object of nulls (printf() of a missing row)."""
    from desk.cli.output import summary_json

    conn = sqlite3.connect(seeded_dir / DATABASE_NAME)
    with conn:
        conn.execute("DELETE FROM source WHERE paper_id = 1")
    conn.close()
    with Library(seeded_dir) as lib:
        expected = [summary_json(p) for p in lib.list_papers()]
    reader = QuickLibrary.open(seeded_dir)
    assert reader is not None
    with reader:
        got = [json.loads(text) for text in reader.list_json()]
    assert got == expected and got[0]["id"] == 1 and got[0]["sources"] == []


def test_sqlite_json_quote_escapes_every_character_as_json_dumps_does() -> None:
    """Every code point (surrogates aside), and each control character alone."""
    import sys

    conn = sqlite3.connect(":memory:")
    every = "".join(chr(c) for c in range(sys.maxunicode + 1) if not 0xD800 <= c < 0xE000)
    for text in (every, *map(chr, range(0x20)), '"', "\\", "\x7f", ""):
        quoted = conn.execute("SELECT json_quote(?)", (text,)).fetchone()[0]
        assert quoted == json.dumps(text, ensure_ascii=False)


def test_white_space_is_every_character_strip_takes() -> None:
    import sys

    from desk.core.store.listing import WHITE_SPACE

    spaces = "".join(c for c in map(chr, range(sys.maxunicode + 1)) if c.isspace())
    assert spaces == WHITE_SPACE and spaces.strip() == ""
