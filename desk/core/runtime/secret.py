"""The user's secret key, kept outside every library: what desk signs its derived files with.

A library folder can come from anywhere (handed over, synced, unpacked). Derived data desk
must read with a format that can run code (Whoosh's pickles) is trusted only when it carries
desk's signature under this key, which lives in the user's config folder
(``platformdirs.user_config_dir("desk")/secret.key``, ``$DESK_KEY_DIR`` overrides it), never in a
library. It is made on first use: 32 random bytes, the folder 0700 and the file 0600. A key
file that is not the user's own, or is readable by others, is not used. When no key can be
kept (a read-only home), a key for this process only is used: every open then rebuilds what it
cannot verify, which is slow but never unsafe.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
from functools import cache
from pathlib import Path

import platformdirs

from desk.core.runtime.logs import logger
from desk.core.runtime.paths import APP_NAME

log = logger(__name__)  # logging imported when something is logged (desk/core/runtime/logs.py)

KEY_DIR_ENV = "DESK_KEY_DIR"
KEY_FILE_NAME = "secret.key"
KEY_BYTES = 32


def key_path() -> Path:
    """Where the key is kept: $DESK_KEY_DIR, else the user's config folder for desk."""
    env = os.environ.get(KEY_DIR_ENV)
    folder = Path(env).expanduser() if env else Path(platformdirs.user_config_dir(APP_NAME, appauthor=False))
    return folder / KEY_FILE_NAME


def _read(path: Path) -> bytes | None:
    """The key in ``path`` when it is the user's own, private and whole; None otherwise."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return None
        if hasattr(os, "getuid") and info.st_uid != os.getuid():
            log.warning("the key file %s belongs to another user; it is not used", path)
            return None
        if info.st_mode & 0o077:
            os.fchmod(fd, 0o600)  # ours, but others could read it: make it private again
        key = os.read(fd, KEY_BYTES + 1)
    finally:
        os.close(fd)
    return key if len(key) == KEY_BYTES else None


def _create(path: Path) -> bytes:
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    key = secrets.token_bytes(KEY_BYTES)
    tmp = path.with_name(f".{KEY_FILE_NAME}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        os.write(fd, key)
        os.fsync(fd)
    finally:
        os.close(fd)
    try:
        os.link(tmp, path)  # never replaces a key another process made meanwhile
    except FileExistsError:
        pass
    except OSError:  # a file system without hard links
        os.replace(tmp, path)
    finally:
        with contextlib.suppress(OSError):
            tmp.unlink()
    return _read(path) or key


@cache
def secret_key() -> bytes:
    """The user's key (made on first use); a key for this process alone when none can be kept."""
    path = key_path()
    try:
        try:
            key = _read(path)
        except FileNotFoundError:
            key = _create(path)
        if key is not None:
            return key
        log.warning("the key file %s is not usable; derived files are signed for this run only", path)
    except OSError as exc:
        log.warning("no key can be kept in %s (%s); derived files are signed for this run only", path, exc)
    return secrets.token_bytes(KEY_BYTES)
