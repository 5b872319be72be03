"""How much of the process's resident memory is file pages it maps (Linux's /proc/self/statm).

A file mapped read-only (the flat postings, the semantic vectors) is read in place; on a kernel
that caches files in large folios, touching a few bytes maps megabytes, and every page mapped
counts in the process's RSS although the page cache holds it anyway. Readers of such mappings
give their pages back (madvise MADV_DONTNEED) when this says they hold too many.
"""

from __future__ import annotations

import contextlib
import mmap
import os

#: File-backed resident memory past which mapped files' pages are given back after a search
#: (the window's own libraries hold some tens of MB of it).
MAPPED_BUDGET = 160 * 1024 * 1024


def file_resident() -> int | None:
    """Bytes of the process's resident memory that are file or shared pages, None where unknown."""
    try:
        with open("/proc/self/statm", "rb") as fh:
            fields = fh.read().split()
        return int(fields[2]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return None


def over_budget(budget: int | None = None) -> bool:
    """Whether mapped pages should be given back now (always, where it cannot be known)."""
    held = file_resident()
    return held is None or held > (MAPPED_BUDGET if budget is None else budget)


def release(mapping: mmap.mmap, start: int = 0, stop: int | None = None) -> None:
    """Give back the pages of ``mapping`` holding bytes [start, stop) (all by default): the next
    read maps them again from the page cache. Nothing where madvise is missing."""
    advise = getattr(mapping, "madvise", None)
    dontneed = getattr(mmap, "MADV_DONTNEED", None)
    end = len(mapping) if stop is None else min(len(mapping), stop)
    start -= start % mmap.PAGESIZE
    if advise is None or dontneed is None or end <= start:
        return
    with contextlib.suppress(OSError, ValueError):
        advise(dontneed, start, end - start)
