"""The tags of a paper as compact chips ("1 reading group"), the digit that toggles a tag beside
each of the first nine, for the result rows and the reading pane alike."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

DIGITS = 9  # keys 1 … 9 toggle the first nine tags


def chip_labels(tags: Sequence[str], numbers: Mapping[str, int]) -> tuple[str, ...]:
    """Each tag as its chip reads: "1 reading group" for the first nine tags, the name else."""
    out = []
    for name in tags:
        n = numbers.get(name)
        out.append(f"{n} {name}" if n is not None and n <= DIGITS else name)
    return tuple(out)
