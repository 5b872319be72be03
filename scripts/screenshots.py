"""Screenshots of the window for the README: light and dark, a search and a note, math in a
snippet, the first run, the sidebar with tags, a saved search and their counts.

Run from the repository: `python scripts/screenshots.py` (offscreen; writes resources/screenshots/*.png).
The libraries are built from seeds/ in a temporary folder (see shots.py).
"""

from __future__ import annotations

import sys
from typing import Any

from shots import SEEDS, Session, session, wait

QUERY = "offline reinforcement learning"
MATH_QUERY = "wasted evidence"  # the seed paper SCORE: 𝕀(y ≥ 1) ≤ y - (y-1)₊ … “wasted” evidence
NOTE = (
    "## Why read it\n\n"
    "- Latent **flow prior** + a *feasibility-weighted* manifold: compare with RACER.\n"
    "- Bring to the reading group on Friday.\n\n"
    "> Check the violation rates in the safety benchmarks."
)


def search(s: Session, window: Any, query: str) -> None:
    window.search_box.setText(query)
    window.controller.set_text(query)
    window.controller.run_now()
    wait(s.app, lambda: not window.controller.pending() and window.model.rowCount() > 0)


def in_view(s: Session, window: Any, row: int) -> int:
    pid = window.model.id_at(row)
    wait(s.app, lambda: window.paper_view.paper is not None and window.paper_view.paper.id == pid)
    return int(pid)


def search_and_note(s: Session, scheme: str) -> None:
    window = s.window(s.library(scheme), scheme)
    window.main_splitter.setSizes([470, 810])
    window.right_splitter.setSizes([420, 330])
    search(s, window, QUERY)
    window.focus.to_list()  # as after ↓ from the box: the list has the keys
    window.move_selection(1)
    pid = in_view(s, window, 1)
    window.reading.toggle("starred")
    wait(s.app, lambda: window.model.summary(pid) is not None and window.model.summary(pid).starred)
    s.save(window, f"{scheme}-search")

    window.reading.edit_note()
    window.note_editor.setPlainText(NOTE)
    window.note.flush()
    wait(s.app, lambda: window.note.state_text() == "Saved")
    window.reading.toggle_preview()
    wait(s.app, lambda: window.model.summary(pid) is not None and window.model.summary(pid).has_note)
    s.save(window, f"{scheme}-note")
    window.close()


def math_snippet(s: Session) -> None:
    window = s.window(s.library("math"), "light")
    window.main_splitter.setSizes([520, 760])
    search(s, window, MATH_QUERY)
    row = next(
        r
        for r in range(window.model.rowCount())
        if (summary := window.model.summary(window.model.id_at(r))) is not None
        and summary.short_name == "SCORE"
    )
    window.focus.to_list()
    window.results_view.select_row(row)
    in_view(s, window, row)
    s.save(window, "light-math")
    window.close()


def sidebar(s: Session, scheme: str) -> None:
    """Tags (the first nine numbered), a saved search and the counts; a tag chosen, sorted by title."""
    from desk.core.library.facade import Library

    library = s.library(f"sidebar-{scheme}")
    with Library(library) as lib:
        top = [h.id for h in lib.search_ids("offline reinforcement learning", limit=12).hits]
        lib.tags.add(top[:5], "reading group")
        lib.tags.add([h.id for h in lib.search_ids("safety constraints", limit=3).hits], "safe RL")
        lib.tags.add([h.id for h in lib.search_ids("vehicle routing", limit=2).hits], "routing")
        lib.tags.add(top[3:9], "to reproduce")
        lib.set_starred(top[:3], True)
        lib.set_read(top[:7], True)
        lib.saved_searches.save("RL policies", "reinforcement learning policy")
        lib.saved_searches.save("Unread on LLMs", "is:unread language model")
    window = s.window(library, scheme)
    window.main_splitter.setSizes([470, 580])
    wait(s.app, lambda: window.sidebar.counts is not None)
    window.sorting.choose("title")
    window.set_filter('tag:"reading group"')
    wait(s.app, lambda: not window.controller.pending() and window.model.rowCount() > 0)
    window.results_view.select_row(1)
    in_view(s, window, 1)
    window.places.focus_sidebar()
    s.save(window, f"{scheme}-sidebar")
    window.close()


def first_run(s: Session) -> None:
    window = s.window(s.library("first-run", seeds=False), "light", first_run_seeds=SEEDS)
    wait(s.app, window.welcome.isVisible)
    s.save(window, "first-run")
    window.close()


def main() -> int:
    with session() as s:
        for scheme in ("light", "dark"):
            search_and_note(s, scheme)
        math_snippet(s)
        first_run(s)
        for scheme in ("light", "dark"):
            sidebar(s, scheme)
    return 0


if __name__ == "__main__":
    sys.exit(main())
