"""The user's secret key, kept outside every library: what desk signs its derived files with.

A library folder can come from anywhere (handed over, synced, unpacked). Derived data desk
must read with a format that can run code (Whoosh's pickles) is trusted only when it carries
desk's signature under this key, which lives in the user's config folder
(``platformdirs.user_config_dir("desk")/secret.key``, ``$DESK_KEY_DIR`` overrides it), never in a
library. It is made on first use: 32 random bytes, the folder 0700 and the file 0600. A key
file that is not the user's own, or is readable by others, is not used. When no key can be
kept (a read-only home), a key for this process only is used: every open then rebuilds what it
cannot verify, which is slow but never unsafe.

A key file of the user's own that is not a whole key (cut short, written over) is replaced by a
new one, once, under a lock in the key's folder: a key left as it was would sign every command's
files for that process alone, so that every command rebuilt what the last one wrote.

What a library's derived files are signed with is that library's key (:func:`library_key`): the
user's key and the library's own identity, a random token kept in the library folder
(``LIBRARY_ID_NAME``, made on first use). An index another of the user's libraries wrote then
carries no signature valid here, even when the two hold the same papers at the same revisions;
a copy of the whole folder (``cp -r``) keeps its identity, and its index with it.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
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
LIBRARY_ID_NAME = "library.id"
_LIBRARY_ID_HEX = 32  # 16 random bytes, as hex
_LIBRARY_CONTEXT = b"desk library key\x00"


def key_path() -> Path:
    """Where the key is kept: $DESK_KEY_DIR, else the user's config folder for desk."""
    env = os.environ.get(KEY_DIR_ENV)
    folder = Path(env).expanduser() if env else Path(platformdirs.user_config_dir(APP_NAME, appauthor=False))
    return folder / KEY_FILE_NAME


class _NotWhole(Exception):
    """The key file is the user's own regular file, but does not hold a whole key."""


def _read(path: Path) -> bytes | None:
    """The key in ``path`` when it is the user's own, private and whole; None when it is not
    the user's own file; raises :class:`_NotWhole` when it is theirs but not a whole key."""
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
    if len(key) != KEY_BYTES:
        raise _NotWhole(path)
    return key


def _write_new(path: Path, *, replace: bool) -> bytes:
    """A new key written to ``path`` through a private temporary file; ``replace``: over the
    file there (else a key another process made meanwhile is kept, and returned)."""
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
        if replace:
            os.replace(tmp, path)
        else:
            try:
                os.link(tmp, path)  # never replaces a key another process made meanwhile
            except FileExistsError:
                pass
            except OSError:  # a file system without hard links
                os.replace(tmp, path)
    finally:
        with contextlib.suppress(OSError):
            tmp.unlink()
    try:
        return _read(path) or key
    except _NotWhole:  # cut short by someone else since: ours is used for this run
        return key


def _create(path: Path) -> bytes:
    return _write_new(path, replace=False)


def _repair(path: Path) -> bytes | None:
    """A new key in place of a key file of the user's own that is not whole (None: not ours after
    all). Under a lock in the key's folder, and read again under it: of processes that found the
    same short file, one replaces it and the others read what it wrote."""
    try:
        import fcntl
    except ImportError:  # no flock (Windows): replaced without the lock
        fcntl = None  # type: ignore[assignment]
    lock = os.open(path.with_name(f".{KEY_FILE_NAME}.lock"), os.O_RDWR | os.O_CREAT, 0o600)
    try:
        if fcntl is not None:
            fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            return _read(path)  # another process replaced it while we waited
        except (_NotWhole, FileNotFoundError):
            pass
        log.warning("the key file %s did not hold a whole key; a new key replaces it", path)
        return _write_new(path, replace=True)
    finally:
        os.close(lock)  # closing lets go of the lock


@cache
def secret_key() -> bytes:
    """The user's key (made on first use); a key for this process alone when none can be kept."""
    path = key_path()
    try:
        try:
            key = _read(path)
        except FileNotFoundError:
            key = _create(path)
        except _NotWhole:
            key = _repair(path)
        if key is not None:
            return key
        log.warning("the key file %s is not usable; derived files are signed for this run only", path)
    except OSError as exc:
        log.warning("no key can be kept in %s (%s); derived files are signed for this run only", path, exc)
    return secrets.token_bytes(KEY_BYTES)


def _token_in(path: Path) -> bytes | None:
    """The library token in ``path`` (a regular file holding it and nothing else), else None."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        data = os.read(fd, _LIBRARY_ID_HEX + 1)
    except OSError:
        return None
    finally:
        os.close(fd)
    try:
        bytes.fromhex(data.decode("ascii"))
    except (UnicodeDecodeError, ValueError):
        return None
    return data if len(data) == _LIBRARY_ID_HEX else None


def _new_token(path: Path, *, replace: bool) -> bytes | None:
    """A new token written to ``path`` (``replace``: over what is there, else a token another
    process made meanwhile is kept); None when the folder cannot be written."""
    tmp = path.with_name(f".{LIBRARY_ID_NAME}.{os.getpid()}.tmp")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            os.write(fd, secrets.token_hex(_LIBRARY_ID_HEX // 2).encode("ascii"))
            os.fsync(fd)
        finally:
            os.close(fd)
        if replace:
            os.replace(tmp, path)
        else:
            try:
                os.link(tmp, path)  # never replaces the token another process made meanwhile
            except FileExistsError:
                pass
            except OSError:  # a file system without hard links
                os.replace(tmp, path)
    except OSError:
        log.debug("no identity can be kept in %s", path.parent, exc_info=True)
        return None
    finally:
        with contextlib.suppress(OSError):
            tmp.unlink()
    return _token_in(path)


def library_token(library: Path) -> bytes:
    """The identity of the library folder ``library`` (made on first use; b"" when none can be
    kept there, a read-only folder: what it signed is then trusted nowhere else)."""
    path = library / LIBRARY_ID_NAME
    token = _token_in(path)
    if token is None:
        token = _new_token(path, replace=path.exists() or path.is_symlink())
    return token or b""


@cache
def _derived(user_key: bytes, token: bytes) -> bytes:
    return hmac.new(user_key, _LIBRARY_CONTEXT + token, hashlib.sha256).digest()


def library_key(library: Path) -> bytes:
    """The key the derived files of the library folder ``library`` are signed with: the user's
    key and that library's identity (:func:`library_token`)."""
    return _derived(secret_key(), library_token(library))
