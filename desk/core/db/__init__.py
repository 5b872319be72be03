"""The database: typed models, the engine, sessions and schema migrations."""

from desk.core.db.database import Database
from desk.core.db.models import (
    Base,
    DistinctPair,
    HistoryStep,
    ImportRecord,
    IndexQueue,
    KeyAlias,
    MergeRecord,
    Paper,
    PaperTag,
    RemovedList,
    SavedSearch,
    Source,
    Tag,
    TrashEntry,
)

__all__ = [
    "Base",
    "Database",
    "DistinctPair",
    "HistoryStep",
    "ImportRecord",
    "IndexQueue",
    "KeyAlias",
    "MergeRecord",
    "Paper",
    "PaperTag",
    "RemovedList",
    "SavedSearch",
    "Source",
    "Tag",
    "TrashEntry",
]
