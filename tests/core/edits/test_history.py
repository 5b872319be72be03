"""The undo history: every change one step, kept in the database, never undoing a later change."""

from __future__ import annotations

from pathlib import Path

from desk.core.library.facade import Library


def test_every_kind_of_change_undoes_and_redoes(seeded: Library) -> None:
    a, b, c = seeded.paper_ids()[:3]
    seeded.set_starred([a], True)
    seeded.set_read([a, b], True)
    seeded.set_note(a, "my note")
    seeded.set_title(b, "Mine")
    seeded.tags.add([a, c], "t")
    seeded.duplicates.mark_distinct(c, b)
    labels = [h.label for h in seeded.history.entries()]
    assert labels == [
        f"Say {b} and {c} are not duplicates",
        "Tag 2 papers “t”",
        f"Retitle paper {b}",
        f"Edit the note of paper {a}",
        "Mark 2 papers read",
        f"Star paper {a}",
    ]
    for _ in labels:
        assert seeded.history.undo() is not None
    assert seeded.history.undo() is None
    pa, pb, pc = seeded.papers([a, b, c])
    assert not pa.starred and not pa.read and not pb.read and pa.note == "" and pb.user_title is None
    assert seeded.tags.counts() == [] and seeded.duplicates.distinct_pairs() == set()
    for _ in labels:
        assert seeded.history.redo() is not None
    assert seeded.history.redo() is None
    pa, pb, pc = seeded.papers([a, b, c])
    assert pa.starred and pa.read and pb.read and pa.note == "my note" and pb.title == "Mine"
    assert pc.tags == ("t",) and (b, c) in seeded.duplicates.distinct_pairs()
    assert seeded.check() == []


def test_undo_takes_back_the_newest_step_whoever_made_it(seeded_dir: Path) -> None:
    with Library(seeded_dir) as window, Library(seeded_dir) as cli:
        a, b = window.paper_ids()[:2]
        window.set_starred([a], True)
        cli.set_note(b, "from the command line")
        outcome = window.history.undo()  # the newest change is the command line's
        assert outcome is not None and outcome.paper_ids == (b,)
        assert window.paper(a).starred and cli.paper(b).note == ""
        assert cli.history.undo() is not None and not window.paper(a).starred


def test_a_field_changed_since_is_skipped_not_overwritten(seeded: Library) -> None:
    a, b = seeded.paper_ids()[:2]
    seeded.set_starred([a, b], True)
    with seeded.db.writing() as session:  # a change made outside the history (an old desk)
        from desk.core.edits import fields as edits

        edits.set_value(session, [b], "starred", False)
        edits.set_value(session, [b], "note", "kept")
    outcome = seeded.history.undo()
    assert outcome is not None and outcome.skipped == 1 and outcome.paper_ids == (a,)
    assert not seeded.paper(a).starred and seeded.paper(b).note == "kept"


def test_a_note_session_is_one_step_and_a_new_session_another(seeded: Library) -> None:
    a = seeded.paper_ids()[0]
    seeded.set_note(a, "before")
    token = seeded.begin_note_session(a)
    for text in ("b", "be", "bet", "better"):
        seeded.set_note(a, text, session=token)
    seeded.end_note_session(token)
    seeded.set_note(a, "after", session=token)  # closed: a step of its own
    assert [h.label for h in seeded.history.entries()][:3] == [f"Edit the note of paper {a}"] * 3
    seeded.history.undo()
    assert seeded.paper(a).note == "better"
    seeded.history.undo()
    assert seeded.paper(a).note == "before"
    seeded.history.redo()
    assert seeded.paper(a).note == "better"


def test_another_change_between_saves_starts_a_new_step(seeded: Library) -> None:
    a, b = seeded.paper_ids()[:2]
    token = seeded.begin_note_session(a)
    seeded.set_note(a, "one", session=token)
    seeded.set_starred([b], True)
    seeded.set_note(a, "one two", session=token)
    seeded.history.undo()
    assert seeded.paper(a).note == "one" and seeded.paper(b).starred


def test_merge_undo_and_redo_carry_tags(seeded: Library) -> None:
    a, b = seeded.paper_ids()[:2]
    seeded.tags.add([b], "from b")
    seeded.tags.add([a], "on a")
    seeded.duplicates.merge(a, [b])
    assert seeded.paper(a).tags == ("from b", "on a")
    outcome = seeded.history.undo()
    assert outcome is not None and set(outcome.paper_ids) == {a, b}
    assert seeded.paper(a).tags == ("on a",) and seeded.paper(b).tags == ("from b",)
    seeded.history.redo()
    assert seeded.count() == 93 and seeded.paper(a).tags == ("from b", "on a")
    seeded.duplicates.unmerge(a)  # the command, as a step of its own
    assert seeded.paper(b).tags == ("from b",)
    seeded.history.undo()  # the unmerge: merged again
    assert seeded.count() == 93
    assert seeded.check() == []


def test_the_history_survives_a_restart(seeded_dir: Path) -> None:
    with Library(seeded_dir) as lib:
        ids = lib.paper_ids()[:5]
        lib.set_starred(ids, True)
    with Library(seeded_dir) as lib:
        outcome = lib.history.undo()
        assert outcome is not None and outcome.description == "Undid: star 5 papers"
        assert lib.list_papers(starred=True) == []


def test_a_batch_of_calls_is_one_undo_step(seeded: Library) -> None:
    a, b, c, d = seeded.paper_ids()[:4]
    seeded.set_read([d], True)
    with seeded.history.batch("Merge 2 groups"):
        seeded.duplicates.merge(a, [b])
        seeded.duplicates.merge(c, [d])
        seeded.tags.add([a, c], "merged")
    assert seeded.count() == 92
    outcome = seeded.history.undo()
    assert outcome is not None and outcome.description == "Undid: merge 2 groups"
    assert seeded.count() == 94 and seeded.tags.counts() == [] and seeded.paper(d).read
    assert seeded.history.redo() is not None and seeded.count() == 92 and seeded.tags.counts()[0].count == 2
    seeded.history.undo()
    assert seeded.history.undo() is not None and not seeded.paper(d).read  # the step before the batch
    assert seeded.check() == []


def test_undo_names_one_paper_by_its_title_and_the_step_keeps_its_id(seeded: Library) -> None:
    a, b = seeded.paper_ids()[:2]
    seeded.set_title(a, "A title of mine, long enough to be cut somewhere past the sixtieth character")
    seeded.set_note(a, "x")
    seeded.set_starred([a, b], True)
    assert seeded.history.entries()[1].label == f"Edit the note of paper {a}"  # the step keeps the id
    outcome = seeded.history.undo()
    assert outcome is not None and outcome.description == "Undid: star 2 papers"
    outcome = seeded.history.undo()  # one paper: named by its title, cut at a word
    assert outcome is not None
    said = "Undid: edit the note of “A title of mine, long enough to be cut somewhere past…”"
    assert outcome.description == said
