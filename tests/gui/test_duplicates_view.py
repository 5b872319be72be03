"""The Duplicates review, driven by keys: open it, read the difference, merge, undo, mark distinct, batch."""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from gui_helpers import SEEDS, press
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from desk.core.library.facade import Library
from desk.core.runtime.errors import PaperNotFound
from desk.gui.dialogs.shortcut_sheet import ShortcutSheet
from desk.gui.duplicates.data import diff_html
from desk.gui.duplicates.dialog import EMPTY, DuplicatesDialog
from desk.gui.keymap import REVIEW_ACTIONS

Key = Qt.Key
Ctrl = Qt.KeyboardModifier.ControlModifier
Shift = Qt.KeyboardModifier.ShiftModifier
VARIANTS = "variants.txt"


def _paragraphs(path: Path) -> list[str]:
    return [p.strip() for p in path.read_text(encoding="utf-8").split("\n\n")[1:] if p.strip()]


def variants_text() -> str:
    """A list with near-duplicates of three seed abstracts (and a second copy of one of them).

    - the first abstract cut to its first 70 % of words;
    - the OGPO abstract with its second sentence rewritten, and the same cut to 80 %;
    - the RACER abstract with `$\\alpha$-VOR` written `alpha-VOR`: the same text after cleanup.
    """
    seeds = _paragraphs(SEEDS / "000_702a75ba5fd2766f.txt")
    first = seeds[0].split()
    ogpo = next(p for p in seeds if "**OGPO**" in p)
    racer = next(p for p in seeds if r"$\alpha$-VOR" in p)
    sentences = ogpo.split(". ")
    sentences[1] = "This paper presents a new method called OGPO that is quick & <b>stable</b> in practice"
    variants = [
        " ".join(first[: int(len(first) * 0.7)]),
        ". ".join(sentences),
        " ".join(ogpo.split()[: int(len(ogpo.split()) * 0.8)]),
        racer.replace(r"$\alpha$", "alpha"),
    ]
    return "Variants of the seeds\n\n" + "\n\n".join(variants) + "\n"


@pytest.fixture(scope="session")
def dupes_template(seeded_template: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The seeds library plus the variants: three groups, one of three papers, one exact."""
    root = tmp_path_factory.mktemp("dupes")
    directory = root / "library"
    shutil.copytree(seeded_template, directory)
    (root / VARIANTS).write_text(variants_text(), encoding="utf-8")
    with Library(directory) as lib:
        report = lib.import_paths([root / VARIANTS])
        assert report.added == 4 and report.near_duplicates == 4
        groups = lib.duplicates.groups()
    assert sorted(len(g.ids) for g in groups) == [2, 2, 3]
    assert [g.exact_after_cleanup for g in groups].count(True) == 1
    return directory


@pytest.fixture
def dupes_dir(dupes_template: Path, copy_library: Callable[..., Path]) -> Path:
    return copy_library(dupes_template, "dupes-library")


@pytest.fixture
def review(open_window, qtbot) -> Callable[[Path], tuple[Any, DuplicatesDialog]]:
    """Open a window on a library, then its Duplicates review with Ctrl+Shift+D."""

    def open_(directory: Path) -> tuple[Any, DuplicatesDialog]:
        window = open_window(directory)
        return window, open_review(qtbot, window)

    return open_


def open_review(qtbot, window) -> DuplicatesDialog:
    press(qtbot, "D", Ctrl | Shift)
    dialog = window.duplicates.dialog
    assert dialog is not None
    qtbot.waitUntil(lambda: dialog.isVisible() and dialog.isActiveWindow())
    qtbot.waitUntil(lambda: QApplication.focusWidget() is dialog)
    settle(qtbot, dialog)
    return dialog


def settle(qtbot, dialog: DuplicatesDialog) -> None:
    qtbot.waitUntil(dialog.idle)


def groups_now(directory: Path) -> list[tuple[int, ...]]:
    with Library(directory) as lib:
        return [g.ids for g in lib.duplicates.groups()]


def listed(directory: Path) -> int:
    """How many papers the library's list shows (one copy of each near-duplicate group)."""
    with Library(directory) as lib:
        return lib.search_ids("", limit=0).total


def html_of(dialog: DuplicatesDialog, side: str) -> str:
    return (dialog.left if side == "left" else dialog.right).abstract.toHtml()


def test_diff_html_escapes_file_text_and_marks_each_side() -> None:
    left, right, only_left, only_right = diff_html(
        "We show <b>bold</b> & more results here", "We show <i>new</i> & more results"
    )
    assert "<b>" not in left and "&lt;b&gt;bold&lt;/b&gt;" in left
    assert "<i>" not in right and "&lt;i&gt;new&lt;/i&gt;" in right
    assert '<span class="del">&lt;b&gt;bold&lt;/b&gt;</span>' in left
    assert '<span class="ins">&lt;i&gt;new&lt;/i&gt;</span>' in right
    assert "&amp; more results" in left and "&amp; more results" in right
    assert "here" in left and "here" not in right
    assert (only_left, only_right) == (2, 1)


def test_ctrl_shift_d_opens_the_first_group_with_the_differences_marked(
    review, dupes_dir: Path, qtbot
) -> None:
    expected = groups_now(dupes_dir)
    window, dialog = review(dupes_dir)
    assert window.duplicates.badge.isVisible()
    assert window.duplicates.badge.text() == f"{len(expected)} possible duplicates"
    assert f"({len(expected)})" in window.named_actions["duplicates"].text()
    assert [g.ids for g in dialog.groups] == expected
    assert dialog.group_label.text() == f"Group 1 of {len(expected)}"
    assert dialog.shown_pair() == expected[0][:2]
    assert re.fullmatch(r"(Same text|Truncation|Revision): .+", dialog.similarity_label.text())
    for side in (dialog.left, dialog.right):
        assert side.title.text() and side.abstract.toPlainText()
        assert "Source" in side.sources.text()
    assert VARIANTS in dialog.right.sources.text() or VARIANTS in dialog.left.sources.text()

    # The group of three: the original, the copy with a sentence rewritten, the copy cut short.
    for _ in range(len(expected)):
        if len(dialog.view.candidate.ids) == 3:
            break
        press(qtbot, "n")
        settle(qtbot, dialog)
    third = next(i for i, ids in enumerate(expected) if len(ids) == 3)
    assert dialog.group_label.text() == f"Group {third + 1} of {len(expected)}"
    # Words only the original has are struck through on the left, the new ones underlined on the right.
    assert "line-through" in html_of(dialog, "left") and "underline" in html_of(dialog, "right")
    assert "Off-policy" in dialog.left.abstract.toPlainText()
    assert "Off-policy" not in dialog.right.abstract.toPlainText()
    # Text from the file is shown as written, never as markup.
    assert "quick & <b>stable</b> in practice" in dialog.right.abstract.toPlainText()
    assert "&lt;b&gt;stable&lt;/b&gt;" in html_of(dialog, "right")
    first, second = dialog.shown_pair()
    assert dialog.selector.isVisible()
    press(qtbot, Key.Key_Down)
    assert dialog.shown_pair()[0] == first and dialog.shown_pair()[1] not in (first, second)
    press(qtbot, Key.Key_Up)
    assert dialog.shown_pair() == (first, second)

    press(qtbot, Key.Key_Escape)
    qtbot.waitUntil(lambda: not dialog.isVisible())


def test_skip_and_previous_walk_through_the_groups(review, dupes_dir: Path, qtbot) -> None:
    _window, dialog = review(dupes_dir)
    total = len(dialog.groups)
    seen = [dialog.view.candidate.ids]
    for key in ("n", Key.Key_Right, Key.Key_Space):
        press(qtbot, key)
        settle(qtbot, dialog)
        seen.append(dialog.view.candidate.ids)
    assert seen[:total] == [g.ids for g in dialog.groups]
    assert dialog.group_label.text() == f"Group {total} of {total}"
    assert "last group" in dialog.status.text()  # the third key had nowhere to go
    press(qtbot, "p")
    settle(qtbot, dialog)
    assert dialog.view.index == total - 2
    press(qtbot, Key.Key_Left)
    settle(qtbot, dialog)
    assert dialog.view.index == total - 3 == 0


def test_d_marks_a_pair_distinct_and_it_is_never_offered_again(review, dupes_dir: Path, qtbot) -> None:
    window, dialog = review(dupes_dir)
    before = len(dialog.groups)
    pair = dialog.shown_pair()
    press(qtbot, "d")
    settle(qtbot, dialog)
    assert all(not set(pair) <= set(g.ids) for g in dialog.groups)
    assert len(dialog.groups) == before - 1
    qtbot.waitUntil(lambda: window.duplicates.badge.text().startswith(f"{before - 1} "))

    press(qtbot, Key.Key_Escape)
    qtbot.waitUntil(lambda: not dialog.isVisible())
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    again = open_review(qtbot, window)
    shown = set()
    for _ in range(len(again.groups)):
        shown.add(again.shown_pair())
        press(qtbot, "n")
        settle(qtbot, again)
    assert pair not in shown
    window.close()
    with Library(dupes_dir) as lib:
        assert pair in lib.duplicates.distinct_pairs()
        assert all(not set(pair) <= set(g.ids) for g in lib.duplicates.groups())


def test_m_merges_keeping_the_left_paper_and_u_undoes_it(review, dupes_dir: Path, qtbot) -> None:
    first_group = groups_now(dupes_dir)[0]
    left_id, right_id = first_group[:2]
    with Library(dupes_dir) as lib:
        lib.set_starred([right_id], True)
        lib.set_note(left_id, "left note")
        right_files = {s.file for s in lib.paper(right_id).sources}
        left_files = {s.file for s in lib.paper(left_id).sources}
        total = lib.count()
    window, dialog = review(dupes_dir)
    before = len(dialog.groups)
    assert dialog.shown_pair() == (left_id, right_id)
    assert "★ starred" in dialog.right.meta.text() and "not starred" in dialog.left.meta.text()

    press(qtbot, "m")
    settle(qtbot, dialog)
    assert len(dialog.groups) == before - 1
    assert all(right_id not in g.ids for g in dialog.groups)
    assert "U undoes" in dialog.status.text()
    qtbot.waitUntil(lambda: window.duplicates.badge.text().startswith(f"{before - 1} "))
    # The main list follows: the paper merged away is gone from it (the list shows one copy of
    # each group still to review, so it counts as the library's own list does).
    qtbot.waitUntil(lambda: window.model.total == listed(dupes_dir) and not window.controller.pending())
    assert right_id not in window.model.ids() and left_id in window.model.ids()
    with Library(dupes_dir) as lib:
        kept = lib.paper(left_id)
        assert {s.file for s in kept.sources} == left_files | right_files
        assert kept.starred and kept.note == "left note"
        with pytest.raises(PaperNotFound):
            lib.paper(right_id)
        assert len(lib.duplicates.groups()) == before - 1

    press(qtbot, "u")
    settle(qtbot, dialog)
    assert len(dialog.groups) == before
    assert dialog.shown_pair() == (left_id, right_id)  # back to the group just restored
    qtbot.waitUntil(lambda: window.model.total == listed(dupes_dir) and not window.controller.pending())
    with Library(dupes_dir) as lib:
        assert lib.count() == total
        assert not lib.paper(left_id).starred and lib.paper(right_id).starred
        assert {s.file for s in lib.paper(left_id).sources} == left_files
        assert len(lib.duplicates.groups()) == before

    press(qtbot, "M", Shift)  # keep the right paper this time
    settle(qtbot, dialog)
    assert len(dialog.groups) == before - 1
    window.close()
    with Library(dupes_dir) as lib:
        assert {s.file for s in lib.paper(right_id).sources} == left_files | right_files
        assert lib.paper(right_id).note == "left note"
        with pytest.raises(PaperNotFound):
            lib.paper(left_id)


def test_batch_merges_only_the_exact_groups_after_a_confirmation(review, dupes_dir: Path, qtbot) -> None:
    with Library(dupes_dir) as lib:
        exact = [g.ids for g in lib.duplicates.groups() if g.exact_after_cleanup]
    assert len(exact) == 1
    window, dialog = review(dupes_dir)
    before = len(dialog.groups)
    press(qtbot, "M", Ctrl | Shift)
    ask = dialog.ask  # asked inside the review, not in a modal box
    qtbot.waitUntil(lambda: ask.isVisible() and QApplication.focusWidget() is ask.yes)
    assert QApplication.activeModalWidget() is None
    assert "Merge 1 group whose abstracts are the same text after cleanup (2 papers)" in ask.question.text()
    press(qtbot, Key.Key_Return)
    qtbot.waitUntil(lambda: len(dialog.groups) == before - 1)
    settle(qtbot, dialog)
    assert not any(g.exact_after_cleanup for g in dialog.groups)
    window.close()
    with Library(dupes_dir) as lib:
        groups = lib.duplicates.groups()
        assert len(groups) == before - 1 and not any(g.exact_after_cleanup for g in groups)
        keep, gone = exact[0]
        assert len(lib.paper(keep).sources) == 2
        with pytest.raises(PaperNotFound):
            lib.paper(gone)


def test_without_candidates_the_review_says_so_and_keys_do_nothing(review, library_dir: Path, qtbot) -> None:
    window, dialog = review(library_dir)
    assert not window.duplicates.badge.isVisible()
    assert dialog.pages.currentIndex() == 1 and dialog.empty.text() == EMPTY
    assert not dialog.buttons["merge_left"].isEnabled()
    for key in ("m", "d", "n", "u"):
        press(qtbot, key)
    settle(qtbot, dialog)
    assert dialog.groups == ()
    assert window.duplicates.count == 0


def test_an_import_refreshes_the_badge(open_window, library_dir: Path, tmp_path: Path, qtbot) -> None:
    window = open_window(library_dir)
    qtbot.waitUntil(lambda: window.duplicates.count == 0)
    assert not window.duplicates.badge.isVisible()
    variants = tmp_path / VARIANTS
    variants.write_text(variants_text(), encoding="utf-8")
    window.import_paths([variants])
    qtbot.waitUntil(lambda: window.duplicates.count == 3)
    assert window.duplicates.badge.isVisible()
    window.close()
    assert len(groups_now(library_dir)) == 3


def test_the_review_keys_are_on_the_shortcut_sheet(open_window, library_dir: Path, qtbot) -> None:
    window = open_window(library_dir)
    press(qtbot, Key.Key_F1)
    sheet = window.findChild(ShortcutSheet, "shortcutSheet")
    entries = dict(sheet.entries())
    assert "Ctrl+Shift+D" in entries["Review duplicates"]
    for spec in REVIEW_ACTIONS:
        assert entries[spec.text.rstrip("…")]
    sheet.close()


def _walk_to(qtbot, dialog: DuplicatesDialog, kind: str) -> None:
    for _ in range(len(dialog.groups)):
        if dialog.view.candidate.kind == kind:
            return
        press(qtbot, "n")
        settle(qtbot, dialog)
    raise AssertionError(f"no {kind} group")


def test_the_review_says_what_each_pair_shares(review, dupes_dir: Path, qtbot) -> None:
    """A copy cut to 70 % is not "100 % similar": it is 70 % of the other, all of it in it."""
    _window, dialog = review(dupes_dir)
    said = {}
    for _ in range(len(dialog.groups)):
        said[dialog.view.candidate.kind] = dialog.similarity_label.text()
        press(qtbot, "n")
        settle(qtbot, dialog)
    assert set(said) == {"exact", "truncation", "revision"}
    assert said["exact"] == "Same text: the same text after cleanup"
    cut = re.fullmatch(
        r"Truncation: the right paper is (\d+) % of the left paper, all of it in the left paper",
        said["truncation"],
    )
    assert cut is not None and 65 <= int(cut.group(1)) <= 72
    assert re.fullmatch(r"Revision: \d\d % of sentences shared", said["revision"])
    assert not any("similar" in text for text in said.values())


def test_u_takes_back_not_a_duplicate(review, dupes_dir: Path, qtbot) -> None:
    window, dialog = review(dupes_dir)
    before = len(dialog.groups)
    pair = dialog.shown_pair()
    press(qtbot, "d")
    settle(qtbot, dialog)
    assert len(dialog.groups) == before - 1 and "U undoes" in dialog.status.text()
    press(qtbot, "u")
    settle(qtbot, dialog)
    assert len(dialog.groups) == before
    assert dialog.shown_pair() == pair  # the pair is offered again, and shown
    assert "offered again" in dialog.status.text()
    window.close()
    with Library(dupes_dir) as lib:
        assert pair not in lib.duplicates.distinct_pairs()


def test_merge_all_truncations_shows_each_merge_first(review, dupes_dir: Path, qtbot) -> None:
    with Library(dupes_dir) as lib:
        [cut] = [g.ids for g in lib.duplicates.groups() if g.kind == "truncation"]
        total = lib.count()
    window, dialog = review(dupes_dir)
    before = len(dialog.groups)
    assert dialog.buttons["merge_truncations"].text().startswith("Merge all truncations (1)…")
    press(qtbot, "T", Ctrl | Shift)
    ask = dialog.ask  # the preview inside the review, not in a modal box
    qtbot.waitUntil(lambda: ask.isVisible() and QApplication.focusWidget() is ask.yes)
    assert QApplication.activeModalWidget() is None
    keep, gone = cut  # the full text was imported first
    with Library(dupes_dir) as lib:
        titles = {p.id: p.title for p in lib.papers([keep, gone])}
    said = ask.question.text()
    # Each merge is named by the papers' titles (ids say nothing to a reader).
    assert f"keep “{titles[keep][:40]}" in said and f"← “{titles[gone][:40]}" in said
    assert f"keep {keep}" not in said
    press(qtbot, Key.Key_Return)
    qtbot.waitUntil(lambda: len(dialog.groups) == before - 1)
    settle(qtbot, dialog)
    assert not any(g.kind == "truncation" for g in dialog.groups)
    qtbot.waitUntil(lambda: QApplication.focusWidget() is dialog)
    press(qtbot, "u")
    settle(qtbot, dialog)
    assert len(dialog.groups) == before
    window.close()
    with Library(dupes_dir) as lib:
        assert lib.count() == total


def test_a_reload_on_the_heels_of_a_step_keeps_the_step(review, dupes_dir: Path, qtbot) -> None:
    """The window's delayed refresh can reload the review just after a key moved on: it stays moved."""
    _window, dialog = review(dupes_dir)
    second = dialog.groups[1].ids
    press(qtbot, "n")
    dialog.reload()  # before the step's group has loaded
    settle(qtbot, dialog)
    assert dialog.view.candidate.ids == second


def test_merge_all_truncations_counts_what_it_merges(review, dupes_dir: Path, tmp_path: Path, qtbot) -> None:
    """A copy cut short with edits of its own is a truncation the batch leaves for the review:
    the button counts only the groups the batch merges, as its preview does."""
    racer = next(p for p in _paragraphs(SEEDS / "000_702a75ba5fd2766f.txt") if r"$\alpha$-VOR" in p)
    words = racer.split()[: int(len(racer.split()) * 0.6)]
    words[5], words[12] = "remarkably", "novel"
    (tmp_path / "edited-cut.txt").write_text("Cut\n\n" + " ".join(words) + "\n", encoding="utf-8")
    with Library(dupes_dir) as lib:
        lib.import_paths([tmp_path / "edited-cut.txt"])
        truncations = [g for g in lib.duplicates.groups() if g.kind == "truncation"]
        merged = lib.duplicates.plan("truncation")
    assert len(truncations) == 2 and len(merged) == 1
    window, dialog = review(dupes_dir)
    assert dialog.buttons["merge_truncations"].text().startswith("Merge all truncations (1)…")
    press(qtbot, "T", Ctrl | Shift)
    qtbot.waitUntil(dialog.ask.isVisible)
    assert "Merge 1 group where" in dialog.ask.question.text()
    press(qtbot, Key.Key_Escape)  # not now
    assert not dialog.ask.isVisible()
    with Library(dupes_dir) as lib:
        assert len([g for g in lib.duplicates.groups() if g.kind == "truncation"]) == 2
    window.close()


def test_related_lists_neither_the_papers_own_copy_nor_twins_and_the_row_counts_its_copies(
    open_window, dupes_dir: Path, qtbot
) -> None:
    from desk.gui.search.model import Roles

    with Library(dupes_dir) as lib:
        group = max(lib.duplicates.groups(), key=lambda g: len(g.ids))  # three copies of OGPO
        shown = lib.duplicates.copies().shown[group.ids[0]]
    window = open_window(dupes_dir)
    press(qtbot, "k", Ctrl)
    qtbot.keyClicks(QApplication.focusWidget(), "OGPO")
    qtbot.waitUntil(lambda: not window.controller.pending() and window.controller.text == "OGPO")
    ids = window.model.ids()
    assert shown in ids and not set(group.ids) - {shown} & set(ids)  # one copy in the list
    row = window.model.index(window.model.row_of(shown))
    qtbot.waitUntil(lambda: window.model.data(row, Roles.Summary) is not None)
    assert window.model.data(row, Roles.Summary).copies == 3
    window.show_paper(shown, select=True)
    press(qtbot, "r", Ctrl)  # related papers
    related = window.related.list
    qtbot.waitUntil(lambda: related.count() > 3)
    from desk.gui.reading.related import ID_ROLE

    listed_ids = [related.item(i).data(ID_ROLE) for i in range(related.count())]
    assert all(isinstance(i, int) for i in listed_ids)
    assert not set(group.ids) & set(listed_ids), listed_ids  # not itself, not its twins
    assert "3 copies" in window.paper_view.meta.text()
    window.close()
