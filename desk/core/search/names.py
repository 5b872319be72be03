"""The index folder's names and its version marker: what is on disk, without loading Whoosh.

Kept apart from ``schema.py`` (which builds Whoosh's schema and analyzers) so that a command
checking whether the index is current (``desk.core.search.freshness``) reads these without importing
Whoosh; ``schema.py`` re-exports every name.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

#: Queued papers indexed per batch: a big file's papers in one batch (a segment per worker process).
INDEX_BATCH = 5000

#: Bump whenever the schema or the analyzers change: an index written with
#: another version reads as OLD_SCHEMA and is rebuilt from the database.
SCHEMA_VERSION = 4  # 2: the acronyms file (acronyms.py) beside the index; 3: Snowball stems; 4: authors

#: Whoosh index name; the version is in it so files of two versions never mix.
INDEX_NAME = f"desk_v{SCHEMA_VERSION}"

#: Written last by a rebuild, so its absence means "incomplete".
MARKER_NAME = "desk-search.json"

#: Unstemmed words and their document counts: the "did you mean" lexicon.
LEXICON_NAME = "words.tsv"

#: The acronyms learned from the library (acronyms.py), kept beside the index.
ACRONYMS_NAME = "acronyms.json"


def read_marker(directory: Path) -> int | None:
    """The schema version the marker records; None when absent; -1 when unreadable."""
    path = directory / MARKER_NAME
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError):
        return -1
    version = data.get("schema_version") if isinstance(data, dict) else None
    return version if isinstance(version, int) else -1


def write_marker(directory: Path) -> None:
    """Record SCHEMA_VERSION atomically (temp file + replace)."""
    tmp = directory / (MARKER_NAME + ".tmp")
    tmp.write_text(json.dumps({"schema_version": SCHEMA_VERSION, "index": INDEX_NAME}), encoding="utf-8")
    os.replace(tmp, directory / MARKER_NAME)


def remove_marker(directory: Path) -> None:
    """Mark the index incomplete."""
    (directory / MARKER_NAME).unlink(missing_ok=True)
