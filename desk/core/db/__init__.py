"""The database: typed models, the engine, sessions and schema migrations."""

from desk.core.db.database import Database
from desk.core.db.models import (
    Base,
    DistinctPair,
    ImportRecord,
    IndexQueue,
    KeyAlias,
    MergeRecord,
    Paper,
    Source,
)

__all__ = [
    "Base",
    "Database",
    "DistinctPair",
    "ImportRecord",
    "IndexQueue",
    "KeyAlias",
    "MergeRecord",
    "Paper",
    "Source",
]
