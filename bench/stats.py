"""Small measuring helpers shared by the runner and its workers."""

from __future__ import annotations

import logging
import math
import resource
import sys
import time
from collections.abc import Callable, Sequence
from typing import TypeVar

T = TypeVar("T")


def percentile(samples: Sequence[float], q: float) -> float | None:
    """The q-th percentile (0-100, nearest-rank on sorted samples); None for no samples."""
    if not samples:
        return None
    ordered = sorted(samples)
    rank = max(1, math.ceil(q / 100 * len(ordered)))
    return ordered[min(rank, len(ordered)) - 1]


def summary(samples: Sequence[float]) -> dict[str, float | int | None]:
    """p50, p95, max and count of latency samples (milliseconds)."""
    return {
        "p50": percentile(samples, 50),
        "p95": percentile(samples, 95),
        "max": max(samples) if samples else None,
        "n": len(samples),
    }


def timed(fn: Callable[[], T]) -> tuple[T, float]:
    """(fn(), elapsed milliseconds)."""
    started = time.perf_counter()
    value = fn()
    return value, (time.perf_counter() - started) * 1000.0


def peak_rss_mb(who: int = resource.RUSAGE_SELF) -> float:
    """Peak resident set size of this process (or of its largest finished child), in MB."""
    peak = resource.getrusage(who).ru_maxrss
    return peak / (1024 * 1024) if sys.platform == "darwin" else peak / 1024


def cpu_seconds() -> float:
    """User + system CPU time of this process and its finished children."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


class ErrorLog(logging.Handler):
    """Counts the errors an engine logs while it answers (desk logs a failed search, never raises)."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        exc = record.exc_info[1] if record.exc_info else None
        detail = f" ({type(exc).__name__}: {exc})" if exc else ""
        self.messages.append(f"{record.name}: {record.getMessage()}{detail}"[:300])
