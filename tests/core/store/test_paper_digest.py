"""The papers' (id, rev) digest kept by triggers (schema step 6) is the one computed from the rows.

The freshness stamp (desk/core/search/freshness.py) reads that row after every commit and at every
open instead of scanning every paper; it must therefore equal freshness.DIGEST_ALL_SQL's answer
after anything a user does, and a full check mends it when it does not.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from sqlalchemy import event

from desk.core.library.facade import Library
from desk.core.runtime.paths import DATABASE_NAME
from desk.core.search import freshness
from tests.core.dev_texts import dev_abstracts, needs_dev_corpus


def _kept_and_computed(library: Path) -> tuple[tuple[int, int], tuple[int, int]]:
    conn = sqlite3.connect(library / DATABASE_NAME)
    try:
        kept = conn.execute(freshness.KEPT_DIGEST_SQL).fetchone()
        return (int(kept[0]), int(kept[1])), freshness.computed_digest(conn)
    finally:
        conn.close()


def _write_list(path: Path, name: str, abstracts: list[str]) -> Path:
    path.write_text(f"{name}\n\n" + "\n\n".join(abstracts) + "\n", encoding="utf-8")
    return path


@needs_dev_corpus
def test_the_kept_digest_follows_every_kind_of_change(tmp_path: Path) -> None:
    texts = dev_abstracts()[:60]
    library = tmp_path / "lib"
    with Library(library) as lib:
        lib.import_paths([_write_list(tmp_path / "a.txt", "Real 2023 Papers", texts[:40])])
        kept, computed = _kept_and_computed(library)
        assert kept == computed and kept[0] == 40
        ids = lib.paper_ids()
        lib.set_note(ids[0], "a note")
        lib.set_note(ids[0], "the same note, edited")
        lib.set_title(ids[1], "My own title")
        lib.set_starred(ids[2:6], True)
        lib.set_read(ids[3:9], True)
        lib.tags.add(ids[:3], "reading group")
        lib.duplicates.merge(ids[10], [ids[11], ids[12]])
        assert _kept_and_computed(library)[0] == _kept_and_computed(library)[1]
        lib.duplicates.unmerge(ids[10])
        lib.trash.delete([ids[13], ids[14]])
        lib.trash.restore([ids[13]])
        lib.history.undo()
        lib.history.undo()
        lib.history.redo()
        lib.import_paths([_write_list(tmp_path / "b.txt", "More 2024 Papers", texts[30:60])])
        lib.trash.empty()
        kept, computed = _kept_and_computed(library)
        assert kept == computed
        assert kept[0] == len(lib.paper_ids())


def test_a_note_stamps_the_index_without_reading_every_paper(seeded_dir: Path) -> None:
    with Library(seeded_dir) as lib:
        statements: list[str] = []

        def trace(dbapi_connection: sqlite3.Connection, _record: object, _proxy: object) -> None:
            dbapi_connection.set_trace_callback(statements.append)

        event.listen(lib.db.engine, "checkout", trace)
        lib.set_note(lib.paper_ids()[0], "read this with the group")
        event.remove(lib.db.engine, "checkout", trace)
        assert any("paper_digest" in s for s in statements)  # the stamp was written, from the row
        assert not any("FROM paper" in s and "sum(" in s for s in statements)
        assert lib.index_behind is None
    with Library(seeded_dir) as lib:
        assert lib._sync.is_current()  # the stamp vouches for the index at the next open


def test_a_full_check_mends_a_kept_digest_that_disagrees_with_the_rows(seeded_dir: Path) -> None:
    conn = sqlite3.connect(seeded_dir / DATABASE_NAME)
    conn.execute("UPDATE paper_digest SET digest = digest + 1")
    conn.commit()
    conn.close()
    kept, computed = _kept_and_computed(seeded_dir)
    assert kept != computed
    with Library(seeded_dir) as lib:  # the stamp no longer matches: the full check runs, and stamps
        assert lib.check() == []
    kept, computed = _kept_and_computed(seeded_dir)
    assert kept == computed
    with Library(seeded_dir) as lib:
        assert lib._sync.is_current()  # and the stamp written then vouches for the index again
