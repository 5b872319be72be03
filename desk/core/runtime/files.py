"""Writing a user-named file: atomically when it is a regular file, never replacing anything else.

Renaming a finished temporary file over the path is what keeps a reader from seeing half a
file, but done blindly it turns a symlink, a FIFO or a device node into a regular file. A
symlink is followed (the file it points at is replaced, the link stays); a FIFO or a character
device (``/dev/stdout``) is written through where text is written; anything else is refused.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Callable
from pathlib import Path

from desk.core.runtime.errors import DeskError, DiskFull
from desk.core.runtime.failures import reason
from desk.core.runtime.paths import shown_path
from desk.core.runtime.privacy import shared_mode

_KINDS = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def _kind(mode: int) -> str | None:
    return next((name for test, name in _KINDS if test(mode)), None)


def _target(dest: Path) -> tuple[Path, os.stat_result | None]:
    """dest with symlinks followed, and its status (None when it does not exist yet)."""
    target = Path(os.path.realpath(dest)) if dest.is_symlink() else dest
    try:
        return target, target.stat()
    except FileNotFoundError:
        return target, None


def replace_file(dest: Path, write: Callable[[Path], None]) -> None:
    """Have ``write`` fill a temporary file beside dest, then rename it over dest (through a
    symlink); a dest that is not a regular file is refused in plain words."""
    target, st = _target(dest)
    if st is not None and not stat.S_ISREG(st.st_mode):
        raise DeskError(
            f"{dest} is {_kind(st.st_mode) or 'not a regular file'}; desk writes only regular files"
        )
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".{target.name}.{os.getpid()}.part")
    try:
        tmp.unlink(missing_ok=True)
        write(tmp)
        with contextlib.suppress(OSError), tmp.open("rb") as fh:
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    finally:
        with contextlib.suppress(OSError):
            tmp.unlink()


def write_text(dest: Path, text: str) -> None:
    """Write text to dest: atomically for a regular file (through a symlink), straight into a
    FIFO or a character device, refused for anything else. A failure of the disk is a DeskError
    naming dest (the error of a write to a device names no file)."""
    try:
        _write_text(dest, text)
    except OSError as exc:
        kind = DiskFull if exc.errno in (errno.ENOSPC, errno.EDQUOT) else DeskError
        raise kind(f"{shown_path(dest)} could not be written: {reason(exc)}") from exc


def _write_text(dest: Path, text: str) -> None:
    target, st = _target(dest)
    if st is not None and (stat.S_ISFIFO(st.st_mode) or stat.S_ISCHR(st.st_mode)):
        with target.open("w", encoding="utf-8") as fh:
            fh.write(text)
        return

    def fill(tmp: Path) -> None:
        tmp.write_text(text, encoding="utf-8")
        # The user's file, not the library's: the mode it had, else the one their umask gives
        # (desk's own files are private: desk.core.runtime.privacy).
        os.chmod(tmp, stat.S_IMODE(st.st_mode) if st is not None else shared_mode())

    replace_file(dest, fill)
