"""Markdown export: valid Markdown a person would keep, with file text escaped."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from desk.core.records import PaperDetail
from desk.core.text import escape_markdown, parse_spans, spans_to_markdown


def _sources_line(paper: PaperDetail) -> str:
    collections = ", ".join(escape_markdown(c) for c in paper.collections)
    files = "; ".join(f"{escape_markdown(s.file)} #{s.index}" for s in paper.sources)
    return f"*{collections}* — {files}" if files else f"*{collections}*"


def paper_markdown(paper: PaperDetail) -> str:
    """One paper: heading (title and short name), sources, abstract, and the note as written."""
    title = escape_markdown(paper.title)
    if paper.short_name and paper.short_name not in paper.title:
        title += f" ({escape_markdown(paper.short_name)})"
    parts = [f"## {title}", "", _sources_line(paper)]
    if paper.tags:
        parts += ["", "Tags: " + ", ".join(escape_markdown(t) for t in paper.tags)]
    parts += ["", spans_to_markdown(parse_spans(paper.abstract_raw))]
    note = paper.note.strip("\n")
    if note.strip():
        # The note is the user's own Markdown: it goes out as they wrote it.
        parts += ["", "**Note**", "", note]
    return "\n".join(parts)


def to_markdown(papers: Sequence[PaperDetail], *, what: str, when: datetime) -> str:
    """A whole document: a first line saying what was exported and when, then each paper."""
    count = f"{len(papers)} paper{'s' if len(papers) != 1 else ''}"
    head = f"# desk export: {escape_markdown(what)} — {count}, {when.strftime('%Y-%m-%d %H:%M %Z').strip()}"
    body = "\n\n---\n\n".join(paper_markdown(p) for p in papers)
    return head + "\n\n" + (body + "\n" if body else "")
