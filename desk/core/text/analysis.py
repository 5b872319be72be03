"""What desk derives from one raw abstract: the duplicate key, readable text, short name and title.

Run on worker processes during an import, so this module imports only the text code:
a worker starts without loading the database or search code.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from desk.core.text import derive_title, find_short_name, readable_text
from desk.core.text.normalize import dedup_key_of_readable, stored_key
from desk.core.text.short_names import short_name_of_title


@dataclass(frozen=True)
class Analysed:
    """What desk derives from one raw abstract."""

    raw: str
    key: str  # stored_key() of the duplicate key
    readable: str
    short_name: str | None
    title: str  # the list's real title when it gave one, else derived from the abstract


def analyse(raw: str, title: str | None = None) -> Analysed:
    """Derive the duplicate key, readable text, short name and title of one abstract.

    ``title``: the real title a rich list gave (a list's title is never re-derived). It names
    the paper first ("RACER: …"); the abstract is searched for a name only when it does not,
    and no title is derived.
    """
    readable = readable_text(raw)
    short = short_name_of_title(title, readable) or find_short_name(readable)
    key = stored_key(dedup_key_of_readable(readable))
    return Analysed(raw, key, readable, short, title or derive_title(readable, short))


def analyse_many(abstracts: Sequence[str], titles: Sequence[str | None] | None = None) -> list[Analysed]:
    """analyse() of each abstract, with its real title when ``titles`` has one (one worker job)."""
    if titles is None:
        return [analyse(a) for a in abstracts]
    return [analyse(a, t) for a, t in zip(abstracts, titles, strict=True)]
