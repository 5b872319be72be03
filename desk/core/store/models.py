"""SQLAlchemy 2.x typed models: the library's source of truth."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import DDL, ForeignKey, Index, String, Table, Text, UniqueConstraint, event, text
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship

from desk.core.store.schema_steps import V6_DDL, V9_TRIGGERS


def utcnow() -> datetime:
    """Now, in UTC (stored naive-free as ISO by SQLAlchemy's DateTime)."""
    return datetime.now(UTC)


class Base(DeclarativeBase):
    """Declarative base of every desk table."""


def table_of(model: type[Base]) -> Table:
    """The Core ``Table`` of a model (its ``__table__`` is typed as any FromClause)."""
    return Base.metadata.tables[model.__tablename__]


class Paper(Base):
    """One paper, known by its abstract; several sources may point at it."""

    __tablename__ = "paper"
    # Never reuse an id: a merged-away paper comes back under its own id on unmerge.
    __table_args__ = (
        # Noted papers counted from the index alone (the note sits behind the abstracts in a row).
        Index("ix_paper_noted", "id", sqlite_where=text("trim(note) != ''")),
        # Every column of a list row, in id order: `desk list` reads no table page (schema step 7).
        Index("ix_paper_row", "id", "starred", "read", "short_name", "derived_title", "user_title"),
        {"sqlite_autoincrement": True},
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    key: Mapped[str] = mapped_column(Text, unique=True, index=True)
    abstract_raw: Mapped[str] = mapped_column(Text)
    abstract: Mapped[str] = mapped_column(Text)
    derived_title: Mapped[str] = mapped_column(String(200))
    user_title: Mapped[str | None] = mapped_column(Text, default=None)
    short_name: Mapped[str | None] = mapped_column(String(80), default=None)
    starred: Mapped[bool] = mapped_column(default=False, index=True)
    read: Mapped[bool] = mapped_column(default=False, index=True)
    note: Mapped[str] = mapped_column(Text, default="")
    # Indexed: the open's freshness check digests every (id, rev) from this index alone.
    rev: Mapped[int] = mapped_column(default=1, index=True)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)

    sources: Mapped[list[Source]] = relationship(
        back_populates="paper", order_by="Source.id", cascade="all, delete-orphan"
    )

    @property
    def title(self) -> str:
        """The title a user sees: theirs if they set one, else the derived one."""
        return self.user_title or self.derived_title

    def touch(self) -> None:
        """Record a change: bump the revision the search index is checked against."""
        self.rev = (self.rev or 0) + 1
        self.updated_at = utcnow()


class ImportRecord(Base):
    """One imported file; its content hash makes re-importing it add nothing."""

    __tablename__ = "import_record"

    id: Mapped[int] = mapped_column(primary_key=True)
    sha256: Mapped[str] = mapped_column(String(64), unique=True)
    file: Mapped[str] = mapped_column(Text)
    path: Mapped[str] = mapped_column(Text)
    collection: Mapped[str] = mapped_column(Text)
    encoding: Mapped[str] = mapped_column(String(40))
    paragraphs: Mapped[int] = mapped_column(default=0)
    added: Mapped[int] = mapped_column(default=0)
    merged: Mapped[int] = mapped_column(default=0)
    imported_at: Mapped[datetime] = mapped_column(default=utcnow)

    sources: Mapped[list[Source]] = relationship(back_populates="import_record")


class Source(Base):
    """Where a paper was read from: a file's base name and the abstract's 0-based index in it."""

    __tablename__ = "source"
    __table_args__ = (
        UniqueConstraint("paper_id", "file", "index", name="uq_source_paper_file_index"),
        Index("ix_source_file_index", "file", "index"),
        Index("ix_source_collection_paper", "collection", "paper_id"),  # papers per collection
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    paper_id: Mapped[int] = mapped_column(ForeignKey("paper.id", ondelete="CASCADE"), index=True)
    file: Mapped[str] = mapped_column(Text)
    index: Mapped[int] = mapped_column()
    collection: Mapped[str] = mapped_column(Text)
    import_id: Mapped[int] = mapped_column(ForeignKey("import_record.id"), index=True)

    paper: Mapped[Paper] = relationship(back_populates="sources")
    import_record: Mapped[ImportRecord] = relationship(back_populates="sources")


class IndexQueue(Base):
    """Papers changed in the database whose search-index entry is not yet rewritten.

    Written in the same transaction as the change, emptied after the index commit, so a
    crash between the two commits is repaired at the next open.
    """

    __tablename__ = "index_queue"

    paper_id: Mapped[int] = mapped_column(primary_key=True)


class KeyAlias(Base):
    """The duplicate key of a paper merged into another: importing that text again lands on the kept paper."""

    __tablename__ = "key_alias"

    key: Mapped[str] = mapped_column(Text, primary_key=True)
    paper_id: Mapped[int] = mapped_column(ForeignKey("paper.id", ondelete="CASCADE"), index=True)
    merge_id: Mapped[int] = mapped_column(ForeignKey("merge_record.id", ondelete="CASCADE"), index=True)


class MergeRecord(Base):
    """One merge, with everything needed to undo it exactly (JSON snapshot of the papers before)."""

    __tablename__ = "merge_record"

    id: Mapped[int] = mapped_column(primary_key=True)
    keep_id: Mapped[int] = mapped_column(index=True)  # no FK: the kept paper may itself be merged later
    merged_ids: Mapped[str] = mapped_column(Text)  # comma-separated, for lookup by a merged-away id
    snapshot: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class DistinctPair(Base):
    """Two papers a user said are not duplicates: never offered again (a < b)."""

    __tablename__ = "distinct_pair"

    a: Mapped[int] = mapped_column(ForeignKey("paper.id", ondelete="CASCADE"), primary_key=True)
    b: Mapped[int] = mapped_column(ForeignKey("paper.id", ondelete="CASCADE"), primary_key=True)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


# ---- version 4: tags, saved searches, the undo history and the trash ---------------------------


class Tag(Base):
    """A tag a user typed (any Unicode). A reading list is a tag whose papers keep an order.

    Reading lists are tags, not a table of their own: one toggle key, one sidebar entry, one
    ``tag:`` filter and one export option serve both, and ``PaperTag.position`` gives every tag
    an order (the order papers were tagged, changeable) for the times it is read as a list.
    """

    __tablename__ = "tag"
    __table_args__ = ({"sqlite_autoincrement": True},)

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(Text)  # as first typed (NFC, spaces collapsed)
    key: Mapped[str] = mapped_column(Text, unique=True)  # name.casefold(): "ML" and "ml" are one tag
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class PaperTag(Base):
    """A paper carries a tag; ``position`` is its place in the tag's order (reading list)."""

    __tablename__ = "paper_tag"
    __table_args__ = (Index("ix_paper_tag_tag_position", "tag_id", "position"),)

    paper_id: Mapped[int] = mapped_column(ForeignKey("paper.id", ondelete="CASCADE"), primary_key=True)
    tag_id: Mapped[int] = mapped_column(ForeignKey("tag.id", ondelete="CASCADE"), primary_key=True)
    position: Mapped[int] = mapped_column()
    added_at: Mapped[datetime] = mapped_column(default=utcnow)


class SavedSearch(Base):
    """A query saved under a name; it is run again each time, so it follows the library."""

    __tablename__ = "saved_search"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(Text)
    key: Mapped[str] = mapped_column(Text, unique=True)  # name.casefold()
    query: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class HistoryStep(Base):
    """One change a user made, with what undoing and redoing it needs (JSON), window and CLI alike."""

    __tablename__ = "history_step"
    __table_args__ = ({"sqlite_autoincrement": True},)

    id: Mapped[int] = mapped_column(primary_key=True)
    kind: Mapped[str] = mapped_column(String(20))
    label: Mapped[str] = mapped_column(Text)  # "Star 5 papers", said back by undo/redo
    payload: Mapped[str] = mapped_column(Text)
    undone: Mapped[bool] = mapped_column(default=False, index=True)
    group_key: Mapped[str | None] = mapped_column(Text, default=None)  # a note's editing session
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)


class RemovedList(Base):
    """An imported file removed as a whole; its record's hash is put aside so it can be imported again.

    ``import_record.sha256`` is unique; while a list is removed its record holds
    ``removed:<id>:<hash>`` instead (its sources in the trash still point at it), and the real
    hash is kept here for the list's restore.
    """

    __tablename__ = "removed_list"

    id: Mapped[int] = mapped_column(primary_key=True)
    import_id: Mapped[int] = mapped_column(ForeignKey("import_record.id"), index=True)
    sha256: Mapped[str] = mapped_column(String(64))
    file: Mapped[str] = mapped_column(Text)
    collection: Mapped[str] = mapped_column(Text)
    sources: Mapped[str] = mapped_column(Text)  # JSON: the file's sources on papers that stayed
    removed_at: Mapped[datetime] = mapped_column(default=utcnow)


class TrashEntry(Base):
    """A removed paper: everything needed to put it back (JSON snapshot); the paper row is gone."""

    __tablename__ = "trash_entry"
    __table_args__ = ({"sqlite_autoincrement": True},)

    id: Mapped[int] = mapped_column(primary_key=True)
    paper_id: Mapped[int] = mapped_column(index=True)  # no FK: the paper is out of the table
    title: Mapped[str] = mapped_column(Text)
    has_note: Mapped[bool] = mapped_column(default=False)
    snapshot: Mapped[str] = mapped_column(Text)
    list_id: Mapped[int | None] = mapped_column(
        ForeignKey("removed_list.id", ondelete="SET NULL"), default=None, index=True
    )
    removed_at: Mapped[datetime] = mapped_column(default=utcnow)


class PaperDigest(Base):
    """One row (id 1): the count and the (id, rev) digest of every paper, kept by triggers on
    ``paper`` (schema step 6), so the index's freshness stamp reads it instead of every paper."""

    __tablename__ = "paper_digest"

    id: Mapped[int] = mapped_column(primary_key=True)
    papers: Mapped[int]
    digest: Mapped[int]


class PaperListing(Base):
    """Each paper's object of `desk list --json`, as SQLite writes it, kept by triggers on the
    tables it reads (schema step 8), so a listing reads the objects instead of writing them."""

    __tablename__ = "paper_listing"

    id: Mapped[int] = mapped_column(primary_key=True)
    json: Mapped[bytes]


class PaperListingDeferred(Base):
    """A row while a writer (the importer) writes the objects of what it inserts itself, before
    its transaction ends: the insert triggers of paper_listing stand aside meanwhile."""

    __tablename__ = "paper_listing_deferred"

    id: Mapped[int] = mapped_column(primary_key=True)


class PaperMeta(Base):
    """What a rich list says about a paper besides its abstract (schema step 9); no foreign key:
    a trashed or merged-away paper finds it again when it comes back under its id."""

    __tablename__ = "paper_meta"
    __table_args__ = (
        Index("ix_paper_meta_doi", "doi"),
        Index("ix_paper_meta_arxiv_id", "arxiv_id"),
        Index("ix_paper_meta_year", "year"),
    )

    paper_id: Mapped[int] = mapped_column(primary_key=True, autoincrement=False)
    title: Mapped[str | None] = mapped_column(Text)  # the list's real title (also derived_title)
    year: Mapped[int | None]
    venue: Mapped[str | None] = mapped_column(Text)
    url: Mapped[str | None] = mapped_column(Text)
    doi: Mapped[str | None] = mapped_column(Text)  # lowercased
    arxiv_id: Mapped[str | None] = mapped_column(Text)  # without its version


class PaperAuthor(Base):
    """A paper's author at a position (0 first), as "First Last", with its folded form for ``author:``."""

    __tablename__ = "paper_author"
    __table_args__ = (Index("ix_paper_author_folded", "folded"),)

    paper_id: Mapped[int] = mapped_column(primary_key=True, autoincrement=False)
    position: Mapped[int] = mapped_column(primary_key=True, autoincrement=False)
    name: Mapped[str] = mapped_column(Text)
    folded: Mapped[str] = mapped_column(Text)


# The triggers that keep paper_digest's row, paper_listing's rows and the real titles (created
# after every table, as steps 6, 8 and 9 create them).
for _trigger in V6_DDL[2:] + V9_TRIGGERS:
    event.listen(Base.metadata, "after_create", DDL(_trigger.replace("%", "%%")))  # DDL formats with %
