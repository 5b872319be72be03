"""The records of desk.core.records.page a search's page does not use (see that module's doc):
a paper in full, counts, tags, an import's report, the history's and the trash's entries.
Import them from desk.core.records.page, as every other record."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from desk.core.records.page import PaperSummary


@dataclass(frozen=True)
class PaperDetail(PaperSummary):
    """Everything about one paper."""

    abstract: str = ""
    abstract_raw: str = ""
    note: str = ""
    derived_title: str = ""
    user_title: str | None = None
    created_at: datetime | None = None
    updated_at: datetime | None = None


@dataclass(frozen=True)
class ImportFileError:
    """A file that was skipped, or (``paragraph`` set) one paragraph of a file that was
    imported without it, with the reason in plain words."""

    file: str
    error: str
    paragraph: int | None = None  # its number in the file, counting the header

    def as_json(self) -> dict[str, object]:
        """One entry of `desk import --json`'s "errors" ("paragraph" only for a paragraph's)."""
        shown: dict[str, object] = {"file": self.file, "error": self.error}
        if self.paragraph is not None:
            shown["paragraph"] = self.paragraph
        return shown


@dataclass(frozen=True)
class ImportReport:
    """The outcome of one import of files or folders."""

    files: int = 0
    paragraphs: int = 0
    added: int = 0
    merged: int = 0
    near_duplicates: int = 0
    already_imported: int = 0
    errors: tuple[ImportFileError, ...] = ()
    cancelled: bool = False
    new_ids: tuple[int, ...] = field(default=(), repr=False)
    #: The collections of the files read (imported now or before), each once, in file order:
    #: what the window shows after opening a file.
    collections: tuple[str, ...] = field(default=(), repr=False)

    @property
    def skipped_files(self) -> int:
        """How many files were not imported (an error about one paragraph is not one of them)."""
        return sum(e.paragraph is None for e in self.errors)

    def as_json(self) -> dict[str, object]:
        """The `desk import --json` object."""
        return {
            "files": self.files,
            "paragraphs": self.paragraphs,
            "added": self.added,
            "merged": self.merged,
            "near_duplicates": self.near_duplicates,
            "errors": [e.as_json() for e in self.errors],
        }


@dataclass(frozen=True)
class Stats:
    """Counts over the whole library."""

    papers: int
    sources: int
    starred: int
    read: int
    notes: int
    collections: dict[str, int]
    tags: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class TagCount:
    """A tag and how many papers carry it (the sidebar's entry, `desk tags`)."""

    name: str
    count: int


@dataclass(frozen=True)
class TagChange:
    """What tagging, untagging or toggling did: the papers that gained or lost the tag."""

    name: str
    added: tuple[int, ...] = ()
    removed: tuple[int, ...] = ()


@dataclass(frozen=True)
class SavedSearchInfo:
    """A saved search: its name and the query run each time it is opened."""

    name: str
    query: str


@dataclass(frozen=True)
class UndoOutcome:
    """What undo() or redo() did, in plain words ("Undid: star 5 papers")."""

    description: str
    label: str  # the change itself ("Star 5 papers")
    paper_ids: tuple[int, ...]  # papers it touched (to refresh rows)
    skipped: int = 0  # parts left as they were because a later change had touched them


@dataclass(frozen=True)
class HistoryEntry:
    """One step of the undo history, newest first in Library.history.entries()."""

    id: int
    label: str
    undone: bool
    created_at: datetime


@dataclass(frozen=True)
class TrashedPaper:
    """A paper in the trash: its row as it was, when it went, and with which list."""

    paper: PaperSummary
    removed_at: datetime
    removed_with: str | None  # the file whose removal took it, None when deleted alone


@dataclass(frozen=True)
class ListRemoval:
    """What removing a list does (or did): the files, the papers trashed, those that stay."""

    files: tuple[str, ...]
    trashed: tuple[int, ...]  # papers only these files held: to the trash
    kept: tuple[int, ...]  # papers also in another list: they lose these files' sources only
    with_notes: tuple[int, ...]  # trashed papers that carry a note (ask first)
