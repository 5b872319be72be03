"""The database, the truth: typed models, the engine and sessions, migrations, backup and salvage.

Holds the SQLAlchemy models (``models``), the engine, sessions and locks (``database``), the
schema version and its frozen migration steps (``schema_version``, ``migrations``,
``schema_steps``), shared queries (``queries``), online backups (``backup``), salvage of a
damaged database (``salvage``), each paper's list object kept by triggers (``listing``), and the
data-only file format of derived stores (``derived_files``).

May import: runtime, text.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from desk.core.runtime.lazy import names_from

if TYPE_CHECKING:
    from desk.core.store.database import Database
    from desk.core.store.models import (
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

# The names below load SQLAlchemy on first use: a light module of this package (``id_digest``,
# ``schema_version``) is imported by commands that never open the ORM.
_HOME = {
    "Database": "database",
    "Base": "models",
    "DistinctPair": "models",
    "HistoryStep": "models",
    "ImportRecord": "models",
    "IndexQueue": "models",
    "KeyAlias": "models",
    "MergeRecord": "models",
    "Paper": "models",
    "PaperTag": "models",
    "RemovedList": "models",
    "SavedSearch": "models",
    "Source": "models",
    "Tag": "models",
    "TrashEntry": "models",
}

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

__getattr__ = names_from(__name__, _HOME, globals())
