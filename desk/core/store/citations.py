"""The ``author:``, ``year:`` and ``venue:`` filters as SQL over a rich list's metadata (schema step 9).

Plain SQL text and parameters, run by whoever asks on their own connection (the Library's live
filters, the light reader's): one definition of what each filter matches.

* ``author:scholkopf`` — papers with an author one of whose names starts with the words typed,
  case and accents aside (``author:schol``, ``author:"bernhard scholkopf"``, ``author:isla`` for
  Martín-Isla);
* ``year:2023``, ``year:>2021``, ``year:<=2020``, ``year:2019..2022``;
* ``venue:icml`` — papers whose venue holds the words typed (any case).
"""

from __future__ import annotations

import re

from desk.core.text.folding import fold

_YEAR = re.compile(r"(>=|<=|>|<|=)?\s*(\d{4})")
_RANGE = re.compile(r"(\d{4})\s*(?:\.\.|-|–)\s*(\d{4})")


def _like(words: str) -> str:
    """A LIKE pattern's literal text (its wildcards escaped with \\)."""
    return words.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def citation_filter(kind: str, value: str) -> tuple[str, tuple[object, ...]] | None:
    """(SQL giving the matching papers' ids, its parameters), or None when ``value`` can match no
    paper (an empty name, a year that is no year)."""
    if kind in ("author", "authors"):
        words = " ".join(fold(value).replace("-", " ").split())
        if not words:
            return None
        sql = (
            "SELECT DISTINCT paper_id FROM paper_author"
            " WHERE (' ' || replace(folded, '-', ' ')) LIKE ? ESCAPE '\\'"
        )
        return sql, (f"% {_like(words)}%",)
    if kind == "year":
        text = value.strip()
        if found := _RANGE.fullmatch(text):
            low, high = sorted((int(found.group(1)), int(found.group(2))))
            return "SELECT paper_id FROM paper_meta WHERE year BETWEEN ? AND ?", (low, high)
        if found := _YEAR.fullmatch(text):
            op = found.group(1) or "="
            return f"SELECT paper_id FROM paper_meta WHERE year {op} ?", (int(found.group(2)),)
        return None
    if kind == "venue":
        words = " ".join(value.split())
        if not words:
            return None
        return "SELECT paper_id FROM paper_meta WHERE venue LIKE ? ESCAPE '\\'", (f"%{_like(words)}%",)
    raise ValueError(f"no citation field {kind!r}")
