"""How many threads BLAS (OpenBLAS, under numpy) runs: one, for a process that asks before numpy loads.

desk's BLAS products are one query's matrix-vector product (vectors.one_blas_thread) and the
LSA fit (vectors._fit): both run on one thread, limited through threadpoolctl around each call.
OpenBLAS still starts its pool of threads when numpy loads, and on a 2-core machine those
threads spin against the process's own: a one-shot command (`desk search`) spends ~90 ms more
CPU importing numpy with its pool than without (interleaved runs, load ~1.7: 194 → 104 ms).
:func:`pin_to_one_thread`, called by the command line before anything imports numpy, sets
``OPENBLAS_NUM_THREADS=1`` (unless the user set it), so OpenBLAS starts no pool; the products
then need no threadpoolctl either (:func:`pinned`). The window does not call it.
"""

from __future__ import annotations

import os
import sys

VARIABLE = "OPENBLAS_NUM_THREADS"
_PINNED: list[bool] = []  # [True] once pin_to_one_thread set one thread before numpy loaded


def pin_to_one_thread() -> bool:
    """Ask for a one-thread OpenBLAS in this process and those it starts; True when it holds:
    numpy was not loaded yet and the variable is (or is now) "1". A value the user set is kept."""
    if "numpy" in sys.modules:
        return pinned()
    os.environ.setdefault(VARIABLE, "1")
    if os.environ[VARIABLE].strip() == "1" and not _PINNED:
        _PINNED.append(True)
    return pinned()


def pinned() -> bool:
    """Whether BLAS runs on one thread with nothing to limit: set so before numpy loaded
    (pin_to_one_thread), and threadpoolctl not loaded since (through it, code in a long-lived
    process such as a test run may have changed BLAS's threads; then the limit is applied)."""
    return bool(_PINNED) and "threadpoolctl" not in sys.modules
