"""Where a library lives: --library, else $DESK_LIBRARY, else the platform's user data dir."""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

APP_NAME = "desk"
DATABASE_NAME = "library.sqlite3"
INDEX_DIR_NAME = "index"
BACKUP_DIR_NAME = "backups"
CACHE_DIR_NAME = "cache"
DUPLICATES_CACHE_NAME = "near-duplicates.npz"  # in CACHE_DIR_NAME: the near-duplicate finder's


def default_library_dir() -> Path:
    """The library folder used when none is named: $DESK_LIBRARY or the user data dir."""
    env = os.environ.get("DESK_LIBRARY")
    if env:
        return Path(env).expanduser()
    return Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))


def resolve_library_dir(explicit: str | os.PathLike[str] | None) -> Path:
    """The library folder for an optional explicit path."""
    return Path(explicit).expanduser() if explicit else default_library_dir()


def bundled_seeds_dir() -> Path | None:
    """The sample lists shipped with desk (the repository's seeds/), if present."""
    candidates = [
        Path(__file__).resolve().parents[3] / "seeds",
        Path(os.environ.get("DESK_SEEDS", "")) if os.environ.get("DESK_SEEDS") else None,
    ]
    for c in candidates:
        if c is not None and c.is_dir() and any(c.glob("*.txt")):
            return c
    return None


def shown_name(name: str) -> str:
    """A file name or path as text that can be stored and printed: bytes that are not UTF-8
    (which Python holds as lone surrogates) are written as ``\\xff`` escapes."""
    try:
        name.encode("utf-8")
        return name
    except UnicodeEncodeError:
        return name.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def shown_path(path: str | os.PathLike[str]) -> str:
    """A path for a message: its text, bytes that are not UTF-8 as ``\\xff`` escapes (``shown_name``)."""
    return shown_name(os.fsdecode(path))
