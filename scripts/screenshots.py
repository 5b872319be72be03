"""Screenshots of the window for the README: light and dark, a search and a note, math in a
snippet, the first run, the sidebar with tags, a saved search and their counts; the list with
its tags' chips, the filter in force as a chip, a related list with one copy of a paper, and an
import going on above the list.

Run from the repository: `python scripts/screenshots.py` (offscreen; writes resources/screenshots/*.png).
The libraries are built from seeds/ in a temporary folder (see shots.py). One seed list is named in
Chinese: install a CJK font first (`apt-get install fonts-wqy-microhei`) or it shows as boxes.
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


def tags_in_the_list(s: Session) -> None:
    """Rows and the reading pane with their tags' chips, the digit beside each of the first nine."""
    from desk.core.library.facade import Library

    library = s.library("tags")
    with Library(library) as lib:
        top = [h.id for h in lib.search_ids(QUERY, limit=8).hits]
        lib.tags.add(top[:4], "reading group")
        lib.tags.add(top[1:3], "to reproduce")
        lib.tags.add([top[0], top[5]], "safe RL")
    window = s.window(library, "light")
    window.main_splitter.setSizes([520, 760])
    search(s, window, QUERY)
    window.focus.to_list()
    wait(s.app, lambda: bool(window.model.tag_numbers))
    window.results_view.select_row(0)
    in_view(s, window, 0)
    wait(s.app, lambda: bool(window.paper_view.chips()))
    s.save(window, "light-tags")
    window.close()


def filter_chip(s: Session) -> None:
    """A collection chosen in the sidebar: the chip left of the box says where the search is."""
    window = s.window(s.library("chip"), "light")
    window.main_splitter.setSizes([470, 580])
    window.set_filter('in:"ICML 2026 Papers"')
    search(s, window, "policy")
    window.focus.to_search(select_all=False)
    s.save(window, "light-filter-chip")
    window.close()


def one_copy_in_related(s: Session) -> None:
    """A truncated copy of a paper: one row ("2 copies"), and not in its own related list."""
    from shots import SEEDS as seeds

    paragraphs = [p.strip() for p in (seeds / "000_702a75ba5fd2766f.txt").read_text().split("\n\n")[1:]]
    ogpo = next(p for p in paragraphs if "**OGPO**" in p)
    cut = s.folder / "cut.txt"
    cut.write_text("Variants\n\n" + " ".join(ogpo.split()[: int(len(ogpo.split()) * 0.8)]) + "\n")
    window = s.window(s.library("copies", [cut]), "light")
    window.main_splitter.setSizes([470, 810])
    search(s, window, "OGPO")
    window.focus.to_list()
    window.results_view.select_row(0)
    in_view(s, window, 0)
    window.reading.show_related()
    wait(s.app, lambda: window.related.list.count() > 3)
    s.save(window, "light-related-copies")
    window.close()


def inline_import(s: Session) -> None:
    """A list being imported in the band above the list; the list and the paper stay in use."""
    big = s.folder / "icml2033.txt"
    big.write_text(
        "ICML 2033 Papers\n\n"
        + "\n\n".join(
            f"We study QUILL{i}, a sampler for diffusion models with {i % 7 + 2} layers whose error "
            f"bound improves on {i + 5} earlier ones; it runs on one GPU."
            for i in range(6000)
        )
        + "\n"
    )
    window = s.window(s.library("import"), "light")
    window.main_splitter.setSizes([470, 810])
    wait(s.app, lambda: window.sidebar.counts is not None)
    search(s, window, "diffusion")
    window.focus.to_list()
    window.results_view.select_row(1)
    in_view(s, window, 1)
    window.import_paths([big])
    panel = window.importer.panel
    wait(s.app, lambda: panel.running and panel.summary().startswith("Reading"), 120)
    s.save(window, "light-import")
    wait(s.app, lambda: not panel.running, 300)
    window.close()


def main() -> int:
    with session() as s:
        tags_in_the_list(s)
        filter_chip(s)
        one_copy_in_related(s)
        inline_import(s)
        for scheme in ("light", "dark"):
            search_and_note(s, scheme)
        math_snippet(s)
        first_run(s)
        for scheme in ("light", "dark"):
            sidebar(s, scheme)
    return 0


if __name__ == "__main__":
    sys.exit(main())
