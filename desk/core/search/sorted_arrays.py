"""Set operations on sorted id arrays that numpy's own would pay an import for."""

from __future__ import annotations

import numpy as np


def sorted_distinct(values: np.ndarray) -> np.ndarray:
    """``values``' distinct elements, sorted: np.unique's answer for a 1-D array, without the
    numpy.ma import its first call makes (tens of ms of a one-shot `desk search`)."""
    ordered = np.sort(values)
    if len(ordered) < 2:
        return ordered
    first = np.ones(len(ordered), bool)
    np.not_equal(ordered[1:], ordered[:-1], out=first[1:])
    return ordered[first]
