"""Opening a paper marks it read without a step of the undo history (the window's read marker)."""

from __future__ import annotations

from desk.core.library.facade import Library


def test_mark_opened_reads_the_paper_and_ctrl_z_still_takes_back_the_star(seeded: Library) -> None:
    a, b = seeded.paper_ids()[:2]
    seeded.set_starred([a], True)
    assert seeded.mark_opened(b) is True
    assert seeded.mark_opened(b) is False  # already read: nothing changes
    assert seeded.paper(b).read
    outcome = seeded.history.undo()  # the star, not the opening
    assert outcome is not None and a in outcome.paper_ids
    assert not seeded.paper(a).starred and seeded.paper(b).read
    assert seeded.history.undo() is None  # nothing else was recorded


def test_undoing_an_earlier_unread_leaves_a_paper_opened_since_read(seeded: Library) -> None:
    a = seeded.paper_ids()[0]
    seeded.set_read([a], True)
    seeded.set_read([a], False)  # `r`: unread again
    seeded.mark_opened(a)  # opened once more
    seeded.history.undo()  # undo the `r`: the field no longer holds what it left
    assert seeded.paper(a).read
