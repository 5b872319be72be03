"""Near-duplicates compared by title too, where both papers have a real one (a rich list's title).

Two abstracts can look like copies and be two papers: a group's papers on one problem that open
alike, a list whose entries share a placeholder abstract. When both papers have the title their
list gave them, those titles decide: two titles that share less than half of the shorter one's
content words (case, accents and punctuation aside) name two papers, and the pair is not offered.
A title desk derived from the abstract says nothing here (it is cut from the very text compared).
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterable, Sequence

from desk.core.text.folding import fold

TITLE_SHARED = 0.5
"""Share of the shorter title's content words the other must hold for the two to name one paper."""
CHUNK = 500
_WORD = re.compile(r"\w+")
_STOP_TEXT = """a an and are as at by for from in into is it its of on or over the their to towards
toward via vs with without we our"""
_STOP = frozenset(_STOP_TEXT.split())


def title_words(title: str) -> frozenset[str]:
    """The content words of a title, folded (case and accents aside)."""
    return frozenset(w for w in _WORD.findall(fold(title)) if w not in _STOP)


def titles_differ(a: str, b: str) -> bool:
    """Whether two real titles name two papers (see the module doc)."""
    wa, wb = title_words(a), title_words(b)
    if not wa or not wb:
        return False  # a title of no word ("???"): no evidence either way
    return len(wa & wb) < TITLE_SHARED * min(len(wa), len(wb))


def real_titles(conn: sqlite3.Connection, ids: Iterable[int]) -> dict[int, str]:
    """The real titles (from a rich list) of those of ``ids`` that have one."""
    wanted = sorted(set(ids))
    found: dict[int, str] = {}
    for start in range(0, len(wanted), CHUNK):
        chunk = wanted[start : start + CHUNK]
        marks = ", ".join("?" * len(chunk))
        sql = f"SELECT paper_id, title FROM paper_meta WHERE title IS NOT NULL AND paper_id IN ({marks})"
        found.update((int(i), str(t)) for i, t in conn.execute(sql, chunk))
    return found


def pairs_apart(pairs: Iterable[tuple[int, int]], titles: dict[int, str]) -> set[tuple[int, int]]:
    """The (a, b) pairs, a < b, whose papers both have a real title and the titles differ."""
    apart: set[tuple[int, int]] = set()
    for a, b in pairs:
        ta, tb = titles.get(a), titles.get(b)
        if ta is not None and tb is not None and titles_differ(ta, tb):
            apart.add((min(a, b), max(a, b)))
    return apart


def group_pairs(groups: Iterable[Sequence[int]]) -> list[tuple[int, int]]:
    """Every pair of papers within each group."""
    return [(a, b) for ids in groups for k, a in enumerate(ids) for b in ids[k + 1 :]]
