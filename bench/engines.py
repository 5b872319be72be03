"""The two engines behind one small interface: desk (through Library, in-process) and FTS5."""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from fts import Fts5, corpus_files, read_abstracts, to_match

FIRST_PAGE = 100  # what the window asks for per keystroke (desk.gui.search.controller)
FIRST_ROWS = 40  # rows it loads with them


@dataclass(frozen=True)
class Answer:
    """One timed search: wall time, desk's own took_ms, total hits, corpus indexes found in order."""

    wall_ms: float
    took_ms: float | None
    total: int
    found: list[int]


class Engine(Protocol):
    """What the worker measures."""

    open_ms: float
    check_problems: int

    def import_corpus(self, corpus: Path) -> dict[str, Any]: ...
    def search(self, query: str) -> Answer: ...
    def keystroke(self, text: str, prefix: bool) -> float: ...
    def some_ids(self, n: int) -> list[int]: ...
    def change(self, what: str, paper: int, word: str) -> None: ...
    def changed_found(self, what: str, paper: int, word: str) -> bool: ...
    def idle(self) -> None: ...
    def view(self, paper: int) -> None: ...
    def check(self) -> None: ...
    def close(self) -> None: ...


def global_index(file: str, index: int, per_file: int) -> int:
    """The corpus-wide index of abstract ``index`` of ``synthetic-NNN.txt``."""
    m = re.search(r"(\d+)", file)
    return (int(m.group(1)) if m else 0) * per_file + index


def _ms(started: float) -> float:
    return (time.perf_counter() - started) * 1000.0


def typed_prefix(text: str) -> str:
    """The search-box text with its last word made a prefix (when it is being typed)."""
    if text.endswith(" ") or not text or len(text.split()[-1]) < 2 or text.endswith(("*", '"')):
        return text
    return text + "*"


class DeskEngine:
    """desk's Library, opened on the target folder."""

    def __init__(self, target: Path, per_file: int, defer_folds: bool = False) -> None:
        started = time.perf_counter()
        from desk.core.library.facade import Library

        self.import_ms = _ms(started)  # importing desk's modules, before any library is opened
        started = time.perf_counter()
        self.lib = Library(target, defer_folds=defer_folds)
        self.open_ms = _ms(started)
        self.per_file = per_file
        self.check_problems = 0
        # Opened as the window opens it (defer_folds), the library rehearses an edit once the
        # first results are shown, as the window does (Library.rehearse_edits), not timed with them.
        self._rehearse_after_results = defer_folds
        self.rehearse_ms: float | None = None

    def _results_shown(self) -> None:
        """What the window does once its first results are on screen: rehearse an edit."""
        if self._rehearse_after_results:
            self._rehearse_after_results = False
            started = time.perf_counter()
            self.lib.rehearse_edits()
            self.rehearse_ms = _ms(started)

    def close(self) -> None:
        self.lib.close()

    def import_corpus(self, corpus: Path) -> dict[str, Any]:
        files = corpus_files(corpus)
        started = time.perf_counter()
        report = self.lib.import_paths(files)
        seconds = _ms(started) / 1000.0
        return {
            "seconds": seconds,
            "files": len(files),
            "file_rate": len(files) / seconds if seconds else None,
            "abstracts": report.paragraphs,
            "rate": report.paragraphs / seconds if seconds else None,
            "added": report.added,
            "merged": report.merged,
            "near_duplicates": report.near_duplicates,
            "errors": len(report.errors),
            "open_ms": self.open_ms,
            "module_import_ms": self.import_ms,
            "segments": len(self.lib.index._index()._segments()),  # each query word costs a lookup in each
        }

    def search(self, query: str) -> Answer:
        started = time.perf_counter()
        page = self.lib.search(query, limit=50)
        wall = _ms(started)
        self._results_shown()
        found = [
            global_index(r.paper.sources[0].file, r.paper.sources[0].index, self.per_file)
            for r in page.rows
            if r.paper.sources
        ]
        return Answer(wall, page.took_ms, page.total, found)

    def keystroke(self, text: str, prefix: bool) -> float:
        """What the window does per keystroke: hits with snippets, then the first rows' summaries."""
        query = typed_prefix(text) if prefix else text
        started = time.perf_counter()
        result = self.lib.search_ids(query, limit=FIRST_PAGE)
        self.lib.summaries([h.id for h in result.hits[:FIRST_ROWS]])
        wall = _ms(started)
        self._results_shown()
        return wall

    def some_ids(self, n: int) -> list[int]:
        ids = self.lib.paper_ids()
        step = max(1, len(ids) // (n + 1))
        return ids[step::step][:n]

    def change(self, what: str, paper: int, word: str) -> None:
        if what == "note":
            self.lib.set_note(paper, f"Read with the group; {word} matters.")
        else:
            self.lib.set_starred([paper], True)

    def changed_found(self, what: str, paper: int, word: str) -> bool:
        query = f"note:{word}" if what == "note" else "is:starred"
        return any(h.id == paper for h in self.lib.search_ids(query, limit=50).hits)

    def idle(self) -> None:
        """The pause after an edit, as the window has it: what edits left unfolded is folded."""
        self.lib.fold_edits()

    def view(self, paper: int) -> None:
        """The paper opened in the reading pane, as the window does before its note can be typed."""
        self.lib.paper(paper)

    def check(self) -> None:
        self.check_problems = len(self.lib.check())


class FtsEngine:
    """One FTS5 table in target/fts.sqlite3."""

    def __init__(self, target: Path, per_file: int) -> None:
        started = time.perf_counter()
        target.mkdir(parents=True, exist_ok=True)
        self.fts = Fts5(target / "fts.sqlite3")
        self.fts.create()
        self.open_ms = _ms(started)
        self.check_problems = 0

    def close(self) -> None:
        self.fts.close()

    def import_corpus(self, corpus: Path) -> dict[str, Any]:
        started = time.perf_counter()
        files = corpus_files(corpus)
        abstracts = [a for f in files for a in read_abstracts(f)]
        parse_s = _ms(started) / 1000.0
        inserted = time.perf_counter()
        self.fts.insert(abstracts)
        insert_s = _ms(inserted) / 1000.0
        n = len(abstracts)
        return {
            "seconds": insert_s,
            "abstracts": n,
            "rate": n / insert_s if insert_s else None,
            "parse_seconds": parse_s,
            "end_to_end_rate": n / (parse_s + insert_s),
            "files": len(files),
            "file_rate": len(files) / (parse_s + insert_s),  # one transaction for all of them
            "open_ms": self.open_ms,
        }

    def search(self, query: str) -> Answer:
        started = time.perf_counter()
        rows = self.fts.search(to_match(query), limit=50)
        return Answer(_ms(started), None, len(rows), [r.rowid - 1 for r in rows])

    def keystroke(self, text: str, prefix: bool) -> float:
        started = time.perf_counter()
        self.fts.search(to_match(text, last_prefix=prefix), limit=FIRST_PAGE)
        return _ms(started)

    def some_ids(self, n: int) -> list[int]:
        count = self.fts.db.execute("SELECT max(rowid) FROM docs").fetchone()[0] or 0
        step = max(1, count // (n + 1))
        return list(range(step, count + 1, step))[:n]

    def change(self, what: str, paper: int, word: str) -> None:
        if what == "note":
            self.fts.set_note(paper, f"Read with the group; {word} matters.")
        else:
            self.fts.set_starred(paper, True)

    def changed_found(self, what: str, paper: int, word: str) -> bool:
        return paper in (self.fts.note_hits(word) if what == "note" else self.fts.starred())

    def idle(self) -> None:
        """Nothing is left for a pause: every change is in the table when committed."""

    def view(self, paper: int) -> None:
        """A row read, as a reader would before writing its note."""
        self.fts.db.execute("SELECT abstract FROM docs WHERE rowid = ?", (paper,)).fetchone()

    def check(self) -> None:
        self.fts.check()
