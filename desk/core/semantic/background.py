"""The sentence encoder's vectors built by a process that outlives the command that started it.

Encoding costs ~40 ms an abstract on two cores: ten minutes for a 13,000-paper library. The
window builds them in a process it waits for (build.py) while it searches with LSA; a command
cannot wait that long, so ``desk import`` and the first search after it start a *builder*: a
detached process (its own session, no terminal, no pipe of the command's held open) that
encodes the papers the store lacks, at the lowest priority, checkpointing as it goes
(encoded.py), while searches use LSA alone. When the store covers every paper, searches fuse
it. A few papers (``inline_max``) are encoded by the command itself: seconds, not minutes.

One build at a time per library: a builder holds an exclusive ``flock`` on
``encoded/build.lock`` for as long as it writes the store; the kernel releases it when the
builder exits or is killed, so a lock is never left behind. Where there is no ``flock``
(Windows), nothing is started: commands encode in line as before.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

from desk.core.runtime.file_locks import held_elsewhere

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None  # type: ignore[assignment]

LOCK_NAME = "build.lock"
INLINE_MAX_VARIABLE = "DESK_ENCODE_INLINE_MAX"
INLINE_MAX = 100  # papers a command encodes itself (~4 s on two cores) instead of starting a builder
LOW_PRIORITY = 19  # the builder's niceness: a search or the window always comes first

SUPPORTED = fcntl is not None


def inline_max() -> int:
    """How many papers a command encodes in line before it leaves them to a builder."""
    try:
        return max(0, int(os.environ.get(INLINE_MAX_VARIABLE, INLINE_MAX)))
    except ValueError:
        return INLINE_MAX


@contextmanager
def build_lock(store: Path, wait: bool) -> Iterator[bool]:
    """Hold the build lock of the encoder store folder ``store`` for the block.

    Yields True while it is held; False when another process holds it and ``wait`` is False,
    or when the folder cannot be written (then nobody can build there: the caller skips).
    """
    if fcntl is None:
        yield True
        return
    try:
        fd = _open_lock(store)
    except OSError:
        yield False
        return
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX if wait else fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            yield False
            return
        try:
            yield True
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def building(store: Path) -> bool:
    """Whether a builder is encoding into the store folder ``store`` now."""
    return held_elsewhere(store / LOCK_NAME)


def start(library: Path) -> int | None:
    """Start a builder for the library folder ``library``; its process id, None when none started.

    It is detached: a new session (no terminal's signals reach it) with its standard streams on
    /dev/null, so a caller reading the command's output is not kept waiting for it."""
    import subprocess  # here: a search asks whether a builder is at work, and needs none of this

    from desk.core.semantic.encoded import DIR_NAME

    if not SUPPORTED or not writable(library / DIR_NAME):
        return None  # a builder could not write there either
    try:
        builder = subprocess.Popen(
            [sys.executable, "-m", "desk.core.semantic.builder", str(library)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            close_fds=True,
        )
    except OSError:
        return None
    return builder.pid


def _open_lock(store: Path) -> int:
    """A descriptor of the store's lock file, made with its folder when missing (OSError when
    they cannot be)."""
    store.mkdir(parents=True, exist_ok=True)
    return os.open(store / LOCK_NAME, os.O_RDWR | os.O_CREAT, 0o644)


def writable(store: Path) -> bool:
    """Whether the encoder store folder ``store`` can be made and written (its lock file opened)."""
    try:
        os.close(_open_lock(store))
    except OSError:
        return False
    return True


def lower_priority() -> None:
    """Make this process the last to get a core (a builder's first act, before it starts threads).

    Its own session is its own scheduling group where the kernel groups by session (Linux's
    autogroup): a niceness inside the group would weigh only against the group's other threads,
    so the group's niceness is lowered too."""
    with suppress(AttributeError, OSError):  # no nice() on Windows; a refusal costs nothing
        os.nice(LOW_PRIORITY)
    with suppress(OSError):  # no autogroup here (another OS, or the kernel's feature off)
        Path("/proc/self/autogroup").write_text(str(LOW_PRIORITY), encoding="ascii")
