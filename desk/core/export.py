"""Markdown export: valid Markdown a person would keep, with file text escaped.

Nothing in the document makes a viewer reach the network or lie about where a link goes: no
image, no raw HTML, a link's address is its visible text (render.spans_to_markdown); and no
control character reaches it (a document sent to stdout may be on a terminal)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime

from desk.core.records.detail import PaperDetail
from desk.core.text import escape_markdown, parse_spans, spans_to_markdown
from desk.core.text.control_chars import harmless


def _sources_line(paper: PaperDetail) -> str:
    collections = ", ".join(escape_markdown(c) for c in paper.collections)
    # 1-based, as the window and `desk show` number them (SourceInfo.place); the file's name escaped.
    files = "; ".join(f"{escape_markdown(s.file)} #{s.index + 1}" for s in paper.sources)
    return f"*{collections}* — {files}" if files else f"*{collections}*"


_FENCE_OPEN = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")
_FENCE_CHARS = re.compile(r"`{3}|~{3}")
_HTML_START = re.compile(r"^[ \t>*+\-\d.)]*<", re.MULTILINE)  # "<" where an HTML block could open
# A line that may open an HTML block, or a container (quote, list, indented block) that would
# hold a fence where a line scan does not see it.
_NESTED_OR_HTML = re.compile(r"^(?: {0,3}(?:<|>|[-+*](?:\s|$)|\d{1,9}[.)](?:\s|$))| {4}|\t)")


def contained_note(note: str) -> str:
    """The user's Markdown, made unable to swallow the papers after it in the document.

    A note with no code fence goes out as written; so does one whose fences stand at the top
    level (a fence left open is closed at its end). A note whose fences or HTML sit inside
    lists, quotes or HTML blocks, where only a full Markdown parser would know what is open,
    goes out as a block quote: the quote ends at the note's end and closes all it holds.
    """
    if not _FENCE_CHARS.search(note) and not _HTML_START.search(note):
        return note
    fence: str | None = None  # the open fence's marker run
    for line in note.split("\n"):
        if fence is not None:
            stripped = line.strip()
            closes = stripped and set(stripped) == {fence[0]} and len(stripped) >= len(fence)
            if closes and len(line) - len(line.lstrip(" ")) <= 3:
                fence = None
            continue
        m = _FENCE_OPEN.match(line)
        if m and not (m.group(1)[0] == "`" and "`" in m.group(2)):
            fence = m.group(1)
        elif _NESTED_OR_HTML.match(line):
            return "\n".join(f"> {line}" if line.strip() else ">" for line in note.split("\n"))
    return note if fence is None else f"{note}\n{fence}"


def _heading(paper: PaperDetail) -> str:
    title = escape_markdown(paper.title)
    if paper.short_name and paper.short_name not in paper.title:
        title += f" ({escape_markdown(paper.short_name)})"
    return f"## {title}"


def paper_markdown(paper: PaperDetail) -> str:
    """One paper: heading (title and short name), sources, abstract, and the note as written."""
    parts = [_heading(paper), "", _sources_line(paper)]
    if paper.tags:
        parts += ["", "Tags: " + ", ".join(escape_markdown(t) for t in paper.tags)]
    parts += ["", spans_to_markdown(parse_spans(paper.abstract_raw))]
    note = harmless(paper.note).strip("\n")
    if note.strip():
        # The note is the user's own Markdown: it goes out as they wrote it, but for control
        # characters (none is Markdown, and the document may be shown on a terminal).
        parts += ["", "**Note**", "", contained_note(note)]
    return "\n".join(parts)


def to_markdown(papers: Sequence[PaperDetail], *, what: str, when: datetime) -> str:
    """A whole document: a first line saying what was exported and when, then each paper."""
    count = f"{len(papers)} paper{'s' if len(papers) != 1 else ''}"
    head = f"# desk export: {escape_markdown(what)} — {count}, {when.strftime('%Y-%m-%d %H:%M %Z').strip()}"
    body = "\n\n---\n\n".join(paper_markdown(p) for p in papers)
    return head + "\n\n" + (body + "\n" if body else "")


def clipping(papers: Sequence[PaperDetail]) -> str:
    """Papers to paste elsewhere (the window's Ctrl+C): each one's heading (title and short name)
    and abstract, escaped as the export escapes them."""
    return (
        "\n\n".join(f"{_heading(p)}\n\n{spans_to_markdown(parse_spans(p.abstract_raw))}" for p in papers)
        + "\n"
    )
