"""The rows a search hands back: a snippet per hit, read from the stored fields once per search."""

from __future__ import annotations

import time
from typing import Any

from desk.core.search.model import Hit, SearchResult
from desk.core.search.postings import Corpus
from desk.core.search.snippets import Highlighter, lead, snippet

Found = tuple[int, int, float]  # (docnum, query parts matched, relevance) of a ranked document


def stored_fields(corpus: Corpus, docnum: int, cache: dict[int, dict[str, Any]]) -> dict[str, Any]:
    """The stored fields of a document, read once per search."""
    fields = cache.get(docnum)
    if fields is None:
        fields = cache[docnum] = corpus.stored_fields(docnum)
    return fields


def make_hits(
    corpus: Corpus,
    found: list[Found],
    hl: Highlighter,
    stored: dict[int, dict[str, Any]],
) -> tuple[Hit, ...]:
    """A Hit per found document, in order: the abstract's best snippet, else the note's, else its lead."""
    hits: list[Hit] = []
    for docnum, parts, relevance in found:
        fields = stored_fields(corpus, docnum, stored)
        abstract, note = fields.get("abstract", ""), fields.get("note", "")
        cut = snippet(abstract, hl) or (snippet(note, hl) if note else None) or lead(abstract)
        hits.append(Hit(int(corpus.ids[docnum]), int(parts), float(relevance), cut[0], cut[1]))
    return tuple(hits)


def empty(label: str, started: float, message: str | None) -> SearchResult:
    """A result with no hits, saying ``message``."""
    return SearchResult(label, 0, (), ms(started), None, False, (), message)


def ms(started: float) -> float:
    """Milliseconds since ``started`` (a perf_counter reading)."""
    return (time.perf_counter() - started) * 1000.0
