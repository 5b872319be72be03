"""Whether another process holds an advisory lock (``flock``) on a file, asked without waiting."""

from __future__ import annotations

import os
from pathlib import Path


def held_elsewhere(path: Path) -> bool:
    """True when a process holds ``path`` locked with ``flock`` right now (its own lock included:
    flock locks belong to an open file, and this opens it anew). False when nobody does, when the
    file does not exist or cannot be read, and where there is no flock (Windows)."""
    try:
        import fcntl
    except ImportError:
        return False
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return False  # never locked here (no file) or not ours to read
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    except OSError:
        return False
    else:
        fcntl.flock(fd, fcntl.LOCK_UN)
        return False
    finally:
        os.close(fd)
