"""SQLite's online backup: a consistent copy of a database file while it is in use."""

from __future__ import annotations

import sqlite3
from pathlib import Path


def online_copy(src_path: Path, dest: Path, timeout_s: float = 10.0) -> None:
    """Copy the database at src_path to dest page by page (readers and writers may go on)."""
    src = sqlite3.connect(src_path, timeout=timeout_s)
    try:
        out = sqlite3.connect(dest)
        try:
            src.backup(out)
        finally:
            out.close()
    finally:
        src.close()
