"""Errors a user can cause or meet; each carries a message in plain words."""

from __future__ import annotations


class DeskError(Exception):
    """Base of every error desk reports to a user (CLI prints it, the window shows it)."""


class PaperNotFound(DeskError):
    """No paper has the given id."""

    def __init__(self, paper_id: int) -> None:
        super().__init__(f"no paper has id {paper_id}")
        self.paper_id = paper_id


class LibraryTooNew(DeskError):
    """The library was written by a newer desk; it is left untouched."""


class LibraryBusy(DeskError):
    """Another desk is writing to the library and did not finish in time."""


class LibraryDamaged(DeskError):
    """The database file cannot be read as a desk library."""


class DiskFull(DeskError):
    """The disk holding the library has no room left; nothing half-written was kept."""


class LibraryReadOnly(DeskError):
    """The library folder (or its database) cannot be written."""
