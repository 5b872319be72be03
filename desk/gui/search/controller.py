"""Search as you type: debounced, run on the worker, stale answers dropped, pages loaded on demand."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, QTimer, Signal

from desk.core.records.page import PaperSummary
from desk.gui.search.model import Hit, ResultsModel
from desk.gui.workers import LibraryExecutor, plain_message

if TYPE_CHECKING:  # desk.core.library.facade loads Whoosh: only the worker thread imports it
    from desk.core.library.facade import Library
    from desk.core.search.model import Marks

RowMarks = dict[int, tuple[tuple[tuple[int, int], ...], tuple[tuple[int, int], ...]]]

# Keystrokes are coalesced rather than delayed by a fixed debounce: a search starts as soon
# as none is running (on the next turn of the event loop, so a paste is one search); keys
# typed while one runs become a single search for the latest text when it lands.  The list
# follows typing within about two searches' time, and the worker never queues more than one.
DEBOUNCE_MS = 0
FIRST_PAGE = 100  # hits asked for per keystroke
NEXT_PAGE = 200  # hits asked for when the list is scrolled to its end
FIRST_ROWS = 15  # rows loaded with the hits, so the first paint has titles

# The search bar's filters by name; any other filter is a query term of its own (the sidebar's
# `tag:"x"`, `in:"ICML 2026 Papers"`, `saved:"name"`), so there is one filter at a time.
FILTERS: dict[str, str] = {
    "all": "",
    "starred": "is:starred",
    "unread": "is:unread",
    "notes": "has:note",
}


def filter_term(filter_name: str) -> str:
    """The query term of a filter: a built-in's by its name, else the name is the term."""
    return FILTERS.get(filter_name, filter_name)


@dataclass(frozen=True)
class Outcome:
    """What one finished search tells the window."""

    query: str  # what the user typed (without the filter)
    total: int
    took_ms: float
    suggestion: str | None  # for what the user typed, filter removed
    corrected: bool
    terms: tuple[str, ...]
    message: str | None
    kept_previous: bool  # the query did not parse: the last good results stay on screen


RECOMMENDED = "recommended"  # the sort by Library's recommender (desk.core.library.sorting.RECOMMENDED)


def recommended_tag(filter_name: str) -> str | None:
    """The tag a `tag:"x"` filter names: in the recommended sort, the list is the papers
    recommended for it (those not carrying it yet), not its own papers."""
    term = filter_term(filter_name)
    if term.startswith('tag:"') and term.endswith('"') and len(term) > 6:
        return term[5:-1]
    return None


SCOPE_KINDS = ("in", "tag", "saved")  # the sidebar's filters that a typed term can stand for
_TYPED_SCOPE = re.compile(r"(?:^|\s)(in|tag|saved):\S", re.IGNORECASE)


def scope_kind(filter_name: str) -> str | None:
    """ "in", "tag" or "saved" for a sidebar entry's filter (`in:"ICML 2026 Papers"`), else None."""
    kind, colon, _rest = filter_term(filter_name).partition(":")
    return kind if colon and kind in SCOPE_KINDS and filter_name not in FILTERS else None


def typed_scopes(text: str) -> set[str]:
    """The kinds of scope typed in the box (`in:"x"` gives "in"; a negated `-in:` is not one)."""
    return {m.group(1).lower() for m in _TYPED_SCOPE.finditer(text)}


def replaced_by_typing(text: str, filter_name: str) -> bool:
    """Whether what is typed names a scope of the filter's own kind (a typed `in:` with a
    collection chosen in the sidebar): the typed one replaces it, never both at once."""
    kind = scope_kind(filter_name)
    return kind is not None and kind in typed_scopes(text)


def effective_query(text: str, filter_name: str) -> str:
    """The query sent to the library: the filter's term, then what was typed.

    The typed text comes last and keeps its end as typed: an open quote must not swallow the
    filter, and the library tells the word being typed by nothing following it.
    """
    extra = filter_term(filter_name)
    return f"{extra} {text.lstrip()}" if extra else text.lstrip()


def strip_filter(query: str, filter_name: str) -> str:
    """Take the filter's term back out of a suggested query."""
    extra = filter_term(filter_name)
    if not extra:
        return query.strip()
    if query.startswith(extra):  # corrections keep the filter where it stood, first
        return query[len(extra) :].strip()
    words = query.split()
    return " ".join(w for w in words if w != extra)


def _hits(result: Any) -> list[Hit]:
    return [Hit(h.id, h.snippet, tuple(h.highlights)) for h in result.hits]


def in_shown_order(shown: Sequence[int], hits: Sequence[Hit]) -> list[Hit]:
    """A search run again, in the order the list showed: the papers still found where they were
    (those gone left out), the ones found anew after them in their own order."""
    place = {pid: n for n, pid in enumerate(shown)}
    kept = sorted((h for h in hits if h.id in place), key=lambda h: place[h.id])
    return kept + [h for h in hits if h.id not in place]


def row_marks(lib: Library, marks: Marks | None, summaries: dict[int, PaperSummary]) -> RowMarks:
    """On the worker: where the search's words stand in each row's title and short name."""
    if marks is None or not summaries:
        return {}
    rows = list(summaries.values())
    found = lib.marks_in(marks, [text for s in rows for text in (s.title, s.short_name or "")])
    return {s.id: (found[2 * i], found[2 * i + 1]) for i, s in enumerate(rows)}


class SearchController(QObject):
    """Owns the result model's contents; the window feeds it text and a filter."""

    searched = Signal(object)  # Outcome
    failed = Signal(str)
    filterChanged = Signal(str)  # the filter's name (FILTERS) or its query term

    def __init__(self, executor: LibraryExecutor, model: ResultsModel, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.executor = executor
        self.model = model
        self.text = ""
        self.filter = "all"
        self.sort = "relevance"  # a name of desk.core.library.sorting.SORTS, or RECOMMENDED
        self.terms: tuple[str, ...] = ()
        self.marks: Marks | None = None  # what the search shown marks (the reading pane uses it too)
        self.enabled = False  # until the library is open
        self.shown_text: str | None = None  # what was typed for the hits in the model
        self.refined = False  # the last refill kept the typed words (a filter change, a re-run)
        self._generation = 0
        self._shown_generation = -1
        self._has_good = False
        self._model_query = ""  # the query whose hits the model holds
        self._model_sort: tuple[str, str | None] = ("relevance", None)  # its sort (and tag recommended for)
        self._model_epoch = 0  # bumped each time the model is refilled
        # A re-run that may reorder the list (meaning joined while the user was typing): its
        # generation, and what says, when it lands, whether the user is still in the search box.
        self._rerank: tuple[int, Callable[[], bool]] | None = None
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(DEBOUNCE_MS)
        self._timer.timeout.connect(self.run_now)
        self._running = 0  # searches submitted and not yet answered
        self._dirty = False  # typed while a search was running
        model.moreWanted.connect(self._load_more)
        model.rowsWanted.connect(self._load_rows)

    # -- input -------------------------------------------------------------------------------
    def set_text(self, text: str) -> None:
        """A keystroke: search now, or right after the search that is running.

        A typed scope of the sidebar filter's own kind (`in:"…"` with a collection chosen)
        replaces the filter: the sidebar and the chip go back to All papers."""
        if text == self.text:
            return
        self.text = text
        if replaced_by_typing(text, self.filter):
            self.filter = "all"
            self.filterChanged.emit("all")
        if self._running:
            self._dirty = True
        else:
            self._timer.start()

    def set_filter(self, name: str) -> None:
        """Search inside a filter: a name of FILTERS or a query term (`tag:"x"`, `in:"…"`)."""
        if name == self.filter:
            return
        self.filter = name
        self.filterChanged.emit(name)
        self.run_now()

    def set_sort(self, sort: str) -> None:
        """List the hits in another order (desk.core.library.sorting's, or RECOMMENDED)."""
        if sort == self.sort:
            return
        self.sort = sort
        self.run_now()

    def _sorting(self) -> tuple[str, str | None]:
        """The sort, and the tag the recommender works for (the recommended sort on a tag)."""
        return self.sort, recommended_tag(self.filter) if self.sort == RECOMMENDED else None

    def pending(self) -> bool:
        """A search typed but not yet answered."""
        return self._timer.isActive() or self._dirty or self._shown_generation != self._generation

    def hurry(self) -> None:
        """Search now for what was typed if that search has not started yet (a key waits for it)."""
        if self._timer.isActive():
            self.run_now()

    @property
    def query(self) -> str:
        """What is sent to the library: the filter's term, then what was typed."""
        tag = self._sorting()[1]
        if tag is not None:  # the papers recommended for the tag: those not carrying it yet
            return f"-{filter_term(self.filter)} {self.text.lstrip()}"
        return effective_query(self.text, self.filter)

    @property
    def shown_query(self) -> str:
        """The query (filter included) whose hits the list holds."""
        return self._model_query

    # -- running -----------------------------------------------------------------------------
    def rerank(self, may_reorder: Callable[[], bool]) -> None:
        """Search again for what the list shows, re-ranked (not in the order shown) if
        ``may_reorder()`` still holds when the answer lands: the user is in the search box, not
        in the list, whose rows never move under their keys."""
        self.run_now()
        self._rerank = (self._generation, may_reorder)

    def run_now(self) -> None:
        """Search for the current text and filter (newer searches make older ones moot)."""
        self._timer.stop()
        self._dirty = False
        if not self.enabled:
            return
        self._running += 1
        self._generation += 1
        generation = self._generation
        query = self.query
        typed = self.text
        filt = self.filter
        sort, tag = sorting = self._sorting()

        def op(lib: Library) -> tuple[Any, dict[int, PaperSummary], RowMarks] | None:
            if generation != self._generation:
                return None  # a newer keystroke arrived while this one waited
            result = lib.search_ids(query, limit=FIRST_PAGE, sort=sort, typing=True, recommend_for=tag)
            ids = [h.id for h in result.hits[:FIRST_ROWS]]
            summaries = lib.summaries(ids)
            return result, summaries, row_marks(lib, result.marks, summaries)

        def done(value: tuple[Any, dict[int, PaperSummary], RowMarks] | None) -> None:
            try:
                if value is not None and generation == self._generation:
                    self._show(value, typed, query, filt, generation, sorting)
                    self._model_sort = sorting if self._model_query == query else self._model_sort
            finally:
                self._landed()  # then search for anything typed meanwhile

        def failed(exc: Exception) -> None:
            try:
                if generation == self._generation:
                    self._shown_generation = generation
                    self.failed.emit(plain_message(exc))
            finally:
                self._landed()

        self.executor.submit(op, done, failed)

    def _show(
        self,
        value: tuple[Any, dict[int, PaperSummary], RowMarks],
        typed: str,
        query: str,
        filt: str,
        generation: int,
        sorting: tuple[str, str | None] = ("relevance", None),
    ) -> None:
        result, summaries, marks = value
        self._shown_generation = generation
        # Nothing complete to search yet ("title:" alone), or a query that does not parse:
        # the last good results stay.
        keep = (result.no_new_query or bool(result.message)) and self._has_good
        if not keep:
            self.terms = tuple(result.terms)  # before the reset: the paper shown next highlights them
            self.marks = result.marks
            self.refined = typed == self.shown_text  # same words, other filter or fresh data
            self.shown_text = typed
            hits = _hits(result)
            rerank, self._rerank = self._rerank, None
            reorder = rerank is not None and rerank[0] == generation and rerank[1]()
            same = query == self._model_query and sorting == self._model_sort
            if same and self.model.rowCount() and not reorder:
                # The same search again (an undo, another process's change, meaning joining):
                # the list on screen keeps its order; only a new query or filter re-ranks it,
                # or meaning joining while the user is still typing in the box (rerank).
                hits = in_shown_order(self.model.ids(), hits)
            self._model_query = query
            self._model_epoch += 1
            self.model.reset(hits, result.total, summaries, marks)
            self._has_good = not result.message
        suggestion = strip_filter(result.suggestion, filt) if result.suggestion else None
        self.searched.emit(
            Outcome(
                query=typed,
                total=self.model.total if keep else result.total,
                took_ms=result.took_ms,
                suggestion=suggestion or None,
                corrected=result.corrected,
                terms=tuple(result.terms),
                message=result.message or result.hint,
                kept_previous=keep,
            )
        )

    def _landed(self) -> None:
        self._running -= 1
        if not self._running and self._dirty:
            self.run_now()  # what was typed meanwhile

    def _load_more(self) -> None:
        epoch = self._model_epoch
        query = self._model_query
        sort, tag = self._model_sort
        offset = self.model.rowCount()

        def op(lib: Library) -> Any:
            if epoch != self._model_epoch:
                return None
            return lib.search_ids(
                query, limit=NEXT_PAGE, offset=offset, sort=sort, typing=True, recommend_for=tag
            )

        def done(result: Any) -> None:
            if epoch != self._model_epoch:
                return
            if result is None:
                self.model.more_failed()
                return
            self.model.append(_hits(result), {})

        def failed(exc: Exception) -> None:
            self.model.more_failed()
            self.failed.emit(plain_message(exc))

        self.executor.submit(op, done, failed)

    def _load_rows(self, ids: Sequence[int]) -> None:
        asked = list(ids)
        epoch, marks = self._model_epoch, self.marks

        def op(lib: Library) -> tuple[dict[int, PaperSummary], RowMarks]:
            summaries = lib.summaries(asked)
            return summaries, row_marks(lib, marks, summaries)

        def done(value: tuple[dict[int, PaperSummary], RowMarks]) -> None:
            # Rows are facts about papers, not about a query: apply them whatever was typed since
            # (their marks only while the list shows the search they were found for).
            summaries, found = value
            self.model.set_summaries(summaries, asked, found if epoch == self._model_epoch else None)

        def failed(exc: Exception) -> None:
            self.model.unload_failed(asked)
            self.failed.emit(plain_message(exc))

        self.executor.submit(op, done, failed)
