"""Jobs for tests/core/runtime/test_workers.py that a spawned worker imports by name (tests/core is on
the path the pool hands its workers)."""

from __future__ import annotations

import os
from pathlib import Path

_kept: list[object] = []


class TeardownMark:
    """Writes its file when freed: by the interpreter's teardown, if the process has one."""

    def __init__(self, path: str) -> None:
        self.path = path

    def __del__(self) -> None:
        Path(self.path).write_text("torn down", encoding="utf-8")


def keep_mark(path: str) -> int:
    """Hold a TeardownMark for ``path`` in this module until the process ends; this pid."""
    _kept.append(TeardownMark(path))
    return os.getpid()
