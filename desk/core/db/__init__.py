"""The database: typed models, the engine, sessions and schema migrations."""

from desk.core.db.database import Database
from desk.core.db.models import Base, ImportRecord, IndexQueue, Paper, Source

__all__ = ["Base", "Database", "ImportRecord", "IndexQueue", "Paper", "Source"]
