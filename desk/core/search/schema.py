"""The Whoosh schema of the search index, its analyzers and its version marker."""

from __future__ import annotations

import json
import os
from pathlib import Path

from whoosh.analysis import Analyzer, LowercaseFilter, RegexTokenizer, StemmingAnalyzer
from whoosh.fields import BOOLEAN, ID, NUMERIC, TEXT, Schema

#: Bump whenever the schema or the analyzers change: an index written with
#: another version reads as OLD_SCHEMA and is rebuilt from the database.
SCHEMA_VERSION = 1

#: Whoosh index name; the version is in it so files of two versions never mix.
INDEX_NAME = f"desk_v{SCHEMA_VERSION}"

#: Written last by a rebuild, so its absence means "incomplete".
MARKER_NAME = "desk-search.json"

# Query-time boosts (not Whoosh field_boost, which only scales tf and is
# flattened by BM25's saturation).
BOOSTS: dict[str, float] = {"title": 3.0, "short_name": 4.0, "short_kw": 5.0, "abstract": 1.0, "note": 1.0}

#: Stemmed text fields searched by a bare word.
TEXT_FIELDS: tuple[str, ...] = ("title", "short_name", "abstract", "note")


def stem_analyzer() -> Analyzer:
    """The analyzer of the stemmed fields (query words go through it too)."""
    return StemmingAnalyzer()


def plain_analyzer() -> Analyzer:
    """Lowercased, unstemmed words: spelling source and collection names."""
    return RegexTokenizer() | LowercaseFilter()


def build_schema() -> Schema:
    """The schema of version SCHEMA_VERSION."""
    stem = stem_analyzer()
    return Schema(
        id=NUMERIC(int, bits=64, unique=True, stored=True, sortable=True, signed=False),
        rev=NUMERIC(int, bits=64, stored=True, sortable=True, signed=False),
        title=TEXT(analyzer=stem),
        short_name=TEXT(analyzer=stem),
        short_kw=ID(lowercase=True),
        abstract=TEXT(analyzer=stem, stored=True),
        note=TEXT(analyzer=stem, stored=True),
        starred=BOOLEAN(),
        read=BOOLEAN(),
        has_note=BOOLEAN(),
        collections=TEXT(analyzer=plain_analyzer()),
        # Unstemmed words of title, abstract and note: the "did you mean" lexicon.
        words=TEXT(analyzer=plain_analyzer(), phrase=False),
    )


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
