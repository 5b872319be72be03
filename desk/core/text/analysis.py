"""What desk derives from one raw abstract: the duplicate key, readable text, short name and title.

Run on worker processes during an import, so this module imports only the text code:
a worker starts without loading the database or search code.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from desk.core.text import derive_title, find_short_name, readable_text
from desk.core.text.normalize import dedup_key_of_readable, stored_key


@dataclass(frozen=True)
class Analysed:
    """What desk derives from one raw abstract."""

    raw: str
    key: str  # stored_key() of the duplicate key
    readable: str
    short_name: str | None
    title: str


def analyse(raw: str) -> Analysed:
    """Derive the duplicate key, readable text, short name and title of one abstract."""
    readable = readable_text(raw)
    short = find_short_name(readable)
    key = stored_key(dedup_key_of_readable(readable))
    return Analysed(raw, key, readable, short, derive_title(readable, short))


def analyse_many(abstracts: Sequence[str]) -> list[Analysed]:
    """analyse() of each abstract (one worker job)."""
    return [analyse(a) for a in abstracts]
