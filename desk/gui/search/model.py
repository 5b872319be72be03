"""The result list: the ids a search returned and a cache of rows loaded lazily (Anki's browser model)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from PySide6.QtCore import (
    QAbstractListModel,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    Qt,
    QTimer,
    Signal,
)

from desk.core.records.page import PaperSummary
from desk.gui.search.tag_chips import chip_labels

CHUNK = 60  # rows loaded per request around the one asked for
PLACEHOLDER = "Loading…"
MISSING = "(this paper is no longer in the library)"

Index = QModelIndex | QPersistentModelIndex
Spans = tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class Hit:
    """One entry of a result list: the paper's id and its snippet for this query."""

    id: int
    snippet: str = ""
    highlights: tuple[tuple[int, int], ...] = ()


class Roles:
    Id = Qt.ItemDataRole.UserRole + 1
    Summary = Qt.ItemDataRole.UserRole + 2
    Snippet = Qt.ItemDataRole.UserRole + 3
    Highlights = Qt.ItemDataRole.UserRole + 4
    Loaded = Qt.ItemDataRole.UserRole + 5
    TitleHighlights = Qt.ItemDataRole.UserRole + 6  # (start, end) in the title, code points
    ShortNameHighlights = Qt.ItemDataRole.UserRole + 7
    TagChips = Qt.ItemDataRole.UserRole + 8  # ("1 reading group", …): the row's tags as shown


class ResultsModel(QAbstractListModel):
    """Holds ids in ranked order; `data()` never blocks and never raises.

    A row not yet loaded shows a placeholder and asks for itself (and its
    neighbours) through `rowsWanted`; the window loads them on the worker and
    hands them back with `set_summaries`.  The next page of hits is asked for
    through `moreWanted` when the view scrolls to the end.
    """

    rowsWanted = Signal(list)
    moreWanted = Signal()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._hits: list[Hit] = []
        self._rows: dict[int, int] = {}
        self._cache: dict[int, PaperSummary] = {}
        self._marks: dict[int, tuple[Spans, Spans]] = {}  # the search's words in title, short name
        self._missing: set[int] = set()
        self._pending: set[int] = set()
        self._wanted: set[int] = set()
        self._total = 0
        self._fetching = False
        self.tag_numbers: dict[str, int] = {}  # a tag's digit (the order tags were made)
        self._ask = QTimer(self)
        self._ask.setSingleShot(True)
        self._ask.setInterval(0)
        self._ask.timeout.connect(self._emit_wanted)

    # -- filling -----------------------------------------------------------------------------
    def reset(
        self,
        hits: Sequence[Hit],
        total: int,
        summaries: Mapping[int, PaperSummary],
        marks: Mapping[int, tuple[Spans, Spans]] | None = None,
    ) -> None:
        """Replace the list with a new search's first page (`marks`: its words in titles, short names)."""
        self.beginResetModel()
        self._hits = list(self._unique(hits, set()))
        self._rows = {h.id: r for r, h in enumerate(self._hits)}
        self._cache = {i: s for i, s in summaries.items() if i in self._rows}
        self._marks = dict(marks or {})
        self._missing.clear()
        self._pending.clear()
        self._wanted.clear()
        self._total = max(total, len(self._hits))
        self._fetching = False
        self.endResetModel()

    def append(self, hits: Sequence[Hit], summaries: Mapping[int, PaperSummary]) -> None:
        """Add the next page of the same search."""
        self._fetching = False
        new = list(self._unique(hits, set(self._rows)))
        if not new:
            self._total = len(self._hits)  # the index had fewer than it said: stop asking
            return
        first = len(self._hits)
        self.beginInsertRows(QModelIndex(), first, first + len(new) - 1)
        for h in new:
            self._rows[h.id] = len(self._hits)
            self._hits.append(h)
        self._cache.update((i, s) for i, s in summaries.items() if i in self._rows)
        self._total = max(self._total, len(self._hits))
        self.endInsertRows()

    def more_failed(self) -> None:
        """The next page could not be loaded; allow asking again later."""
        self._fetching = False

    def set_summaries(
        self,
        summaries: Mapping[int, PaperSummary],
        asked: Iterable[int] = (),
        marks: Mapping[int, tuple[Spans, Spans]] | None = None,
    ) -> None:
        """Rows loaded (or reloaded after a change); ids asked for but absent are missing papers.

        `marks` are the search's words in their titles and short names; a row whose title
        changed without new marks loses its old ones.
        """
        asked = set(asked)
        self._pending -= asked | set(summaries)
        changed = [i for i in summaries if i in self._rows]
        for i in changed:
            old = self._cache.get(i)
            if marks is not None and i in marks:
                self._marks[i] = marks[i]
            elif old is not None and (old.title, old.short_name) != (
                summaries[i].title,
                summaries[i].short_name,
            ):
                self._marks.pop(i, None)
        self._cache.update((i, summaries[i]) for i in changed)
        gone = [i for i in asked - set(summaries) if i in self._rows]
        self._missing.update(gone)
        for i in changed + gone:
            if i in self._cache or i in self._missing:
                idx = self.index(self._rows[i])
                self.dataChanged.emit(idx, idx)

    def unload_failed(self, asked: Iterable[int]) -> None:
        """Loading failed: the rows may be asked for again."""
        self._pending -= set(asked)

    @staticmethod
    def _unique(hits: Iterable[Hit], seen: set[int]) -> Iterable[Hit]:
        for h in hits:
            if h.id not in seen:
                seen.add(h.id)
                yield h

    # -- reading -----------------------------------------------------------------------------
    @property
    def total(self) -> int:
        """How many hits the search found (the list may hold fewer until scrolled)."""
        return self._total

    def ids(self) -> list[int]:
        return [h.id for h in self._hits]

    def id_at(self, row: int) -> int | None:
        return self._hits[row].id if 0 <= row < len(self._hits) else None

    def row_of(self, paper_id: int) -> int | None:
        return self._rows.get(paper_id)

    def set_tag_numbers(self, numbers: dict[str, int]) -> None:
        """The digits beside the tags changed (a tag made, or gone): redraw the rows."""
        self.tag_numbers = dict(numbers)
        if self._hits:
            self.dataChanged.emit(self.index(0), self.index(len(self._hits) - 1), [Roles.TagChips])

    def summary(self, paper_id: int) -> PaperSummary | None:
        return self._cache.get(paper_id)

    # -- Qt model interface ------------------------------------------------------------------
    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008 - Qt's signature
        return 0 if parent.isValid() else len(self._hits)

    def flags(self, index: Index) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        hit = self._hits[index.row()]
        if hit.id in self._missing:
            return Qt.ItemFlag.ItemNeverHasChildren
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemNeverHasChildren

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> object:
        if not index.isValid() or index.row() >= len(self._hits) or index.column() != 0:
            return None
        hit = self._hits[index.row()]
        summary = self._cache.get(hit.id)
        if summary is None and hit.id not in self._missing:
            self._want(hit.id)
        if role == Qt.ItemDataRole.DisplayRole:
            if summary is not None:
                return summary.title
            return MISSING if hit.id in self._missing else PLACEHOLDER
        if role == Qt.ItemDataRole.ToolTipRole and summary is not None:
            return "\n".join((summary.title, *summary.collections))
        if role == Roles.Id:
            return hit.id
        if role == Roles.Summary:
            return summary
        if role == Roles.Snippet:
            return hit.snippet
        if role == Roles.Highlights:
            return hit.highlights
        if role == Roles.TitleHighlights:
            return self._marks.get(hit.id, ((), ()))[0]
        if role == Roles.ShortNameHighlights:
            return self._marks.get(hit.id, ((), ()))[1]
        if role == Roles.Loaded:
            return summary is not None
        if role == Roles.TagChips:
            return chip_labels(summary.tags, self.tag_numbers) if summary is not None else ()
        if role == Qt.ItemDataRole.AccessibleTextRole:
            return summary.title if summary is not None else PLACEHOLDER
        return None

    def canFetchMore(self, parent: Index) -> bool:
        return not parent.isValid() and not self._fetching and len(self._hits) < self._total

    def fetchMore(self, parent: Index) -> None:
        if self.canFetchMore(parent):
            self._fetching = True
            self.moreWanted.emit()

    # -- lazy loading ------------------------------------------------------------------------
    def _want(self, paper_id: int) -> None:
        if paper_id in self._pending or paper_id in self._wanted:
            return
        self._wanted.add(paper_id)
        if not self._ask.isActive():
            self._ask.start()

    def _emit_wanted(self) -> None:
        if not self._wanted:
            return
        ask: list[int] = []
        for pid in sorted(self._wanted, key=lambda i: self._rows.get(i, 0)):
            row = self._rows.get(pid)
            if row is None:
                continue
            for r in range(max(0, row - CHUNK // 4), min(len(self._hits), row + CHUNK)):
                i = self._hits[r].id
                if i not in self._cache and i not in self._missing and i not in self._pending:
                    self._pending.add(i)
                    ask.append(i)
        self._wanted.clear()
        if ask:
            self.rowsWanted.emit(ask)
