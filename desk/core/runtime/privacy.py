"""A library is private to its owner: made 0700, every file in it 0600, whatever the umask.

Notes are personal, and a library holds them in its database, its backups, its index (the
notes are indexed) and its caches. Rather than give each of the files desk, SQLite (``-wal``,
``-shm``, journals) and Whoosh create a mode of its own — and miss the next one — a process that
opens a library tightens its umask so that group and others get nothing (:func:`keep_private`):
what it creates, its worker and builder processes included (they inherit the umask), is the
owner's alone. A file the user names (an export) is given the mode their own umask would have
given it (:func:`shared_mode`).

A library made before, readable by others, is left as it is — it may be so on purpose — but
the user is told once (:func:`exposure`), the telling remembered in the library folder.
"""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path

from desk.core.runtime.paths import shown_name

PRIVATE_UMASK = 0o077  # group and others get no permission at all
FOLDER_MODE = 0o700
NOTED_NAME = "permissions-noted"  # the folder's mode the user was last told about

_user_umask: int | None = None  # the umask the process had before keep_private tightened it


def keep_private() -> None:
    """From now on, what this process creates is its owner's alone (the umask gains 0o077; a
    stricter umask is kept)."""
    global _user_umask
    before = os.umask(PRIVATE_UMASK)
    if _user_umask is None:
        _user_umask = before
    os.umask(before | PRIVATE_UMASK)


def shared_mode() -> int:
    """The mode of a new file the user named (an export), as their own umask makes it."""
    if _user_umask is not None:
        umask = _user_umask
    else:
        umask = os.umask(0)
        os.umask(umask)
    return 0o666 & ~umask


def make_folder(directory: Path) -> None:
    """Make the library folder (0700) if it is not there; an existing one is left as it is."""
    if directory.is_dir():
        return
    directory.mkdir(mode=FOLDER_MODE, parents=True, exist_ok=True)  # its parents as the umask says
    with contextlib.suppress(OSError):
        os.chmod(directory, FOLDER_MODE)  # mkdir's mode passes through the umask


def exposure(directory: Path) -> str | None:
    """One line telling that the library in ``directory`` can be read by other users, the first
    time it is asked for that folder at that mode (None after, and for a private folder).

    Remembered in the library folder; where it cannot be written (a read-only library) it is
    said each time, as it stays true.
    """
    try:
        mode = stat.S_IMODE(directory.stat().st_mode)
    except OSError:
        return None
    if not mode & PRIVATE_UMASK:
        return None
    noted = directory / NOTED_NAME
    said = f"{mode:04o}"
    try:
        if noted.read_text(encoding="ascii").strip() == said:
            return None
    except (OSError, UnicodeDecodeError):
        pass
    with contextlib.suppress(OSError):
        noted.write_text(said + "\n", encoding="ascii")
    shown = shown_name(str(directory))
    return (
        f"the library folder {shown} can be read by other users (permissions {said}); desk makes "
        f"new libraries private (0700): `chmod -R go= {shown}` makes this one so"
    )
