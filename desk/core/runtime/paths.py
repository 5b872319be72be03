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


def shipped_dir() -> Path | None:
    """The folder of what desk ships beside its code (package data: ``samples/``, the desktop
    entry ``desk.desktop``, ``desk.svg`` and ``icons/hicolor/``), or None when it is not there.

    Found through importlib.resources, so it is the same from a checkout, an installed wheel and
    the one-folder bundle (whose importer serves its package data from the bundle's folder).
    """
    from importlib.resources import files

    folder = files("desk") / "data"
    # A package imported from a zip holds its data in the zip: nothing a file manager can open.
    return folder if isinstance(folder, Path) and folder.is_dir() else None


def bundled_seeds_dir() -> Path | None:
    """The sample lists a first run imports: $DESK_SEEDS, else the ones desk ships, if present."""
    chosen = os.environ.get("DESK_SEEDS")
    shipped = shipped_dir()
    folder = Path(chosen).expanduser() if chosen else shipped / "samples" if shipped is not None else None
    return folder if folder is not None and folder.is_dir() and any(folder.glob("*.txt")) else None


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
