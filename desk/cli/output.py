"""How the CLI prints: JSON objects on stdout, plain-words lines for people.

What is printed may come from files or from a library made elsewhere: a line for a person goes
through ``harmless`` (no control character reaches the terminal), JSON through ``json_escaped``
(every control character a ``\\u`` escape).
"""

from __future__ import annotations

import codecs
import json
import sys
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from desk.core.records.page import PaperSummary, ResultPage, SourceInfo
from desk.core.text.control_chars import harmless, json_escaped, json_escaped_bytes

if TYPE_CHECKING:
    from desk.core.records.detail import PaperDetail


def takes_utf8(stream: Any) -> bool:
    """Whether ``stream`` takes any text: it encodes UTF-8, or it has no encoding (in memory)."""
    encoding = getattr(stream, "encoding", None)
    return encoding is None or codecs.lookup(encoding).name == "utf-8"


def tolerate_narrow_encodings() -> None:
    """On a stdout or stderr that cannot encode every character (a Latin-1 terminal,
    PYTHONIOENCODING=ascii), a character it lacks is written as "?" rather than ending the
    command with an encoding error; JSON is written with ``\\u`` escapes there (``emit_json``)."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)  # a TextIOWrapper's (not every TextIO's)
        if not takes_utf8(stream) and callable(reconfigure):
            reconfigure(errors="replace")


def emit_json(obj: dict[str, Any]) -> None:
    """Print one JSON object on stdout and nothing else (characters past ASCII as JSON's
    ``\\u`` escapes when stdout cannot encode them all: the same JSON); DEL and C1 controls
    escaped as JSON escapes C0's. To a UTF-8 stdout the text is encoded here and escaped as bytes
    (json_escaped_bytes: two memchr scans, where a scan of the text for C1 took ~100 ms over the
    27 MB of 100k papers), then written to its buffer: encoded once, as the stream would have."""
    out = sys.stdout
    narrow = not takes_utf8(out)
    text = json.dumps(obj, ensure_ascii=narrow) + "\n"  # ensure_ascii escapes DEL and C1 too
    buffer = getattr(out, "buffer", None)
    if narrow or buffer is None:
        out.write(json_escaped(text))
        return
    out.flush()
    buffer.write(json_escaped_bytes(text.encode("utf-8", getattr(out, "errors", None) or "strict")))
    buffer.flush()


def say(line: str = "") -> None:
    """A line for a person on stdout, its control characters made harmless."""
    sys.stdout.write(harmless(line) + "\n")


def warn(line: str) -> None:
    """A line on stderr, its control characters made harmless."""
    sys.stderr.write(harmless(line) + "\n")


def sources_json(sources: tuple[SourceInfo, ...]) -> list[dict[str, Any]]:
    """Sources in the contract's shape."""
    return [{"file": s.file, "index": s.index, "collection": s.collection} for s in sources]


def summary_json(p: PaperSummary) -> dict[str, Any]:
    """A paper's list fields in the contract's shape; a paper a rich list gave adds its authors
    ("First Last", in order), year, venue, url, doi and arxiv_id (null when unknown)."""
    shown: dict[str, Any] = {
        "id": p.id,
        "title": p.title,
        "short_name": p.short_name,
        "starred": p.starred,
        "read": p.read,
        "has_note": p.has_note,
        "sources": sources_json(p.sources),
        "tags": list(p.tags),
    }
    c = p.citation
    if c is not None:
        shown.update(
            authors=list(c.authors), year=c.year, venue=c.venue, url=c.url, doi=c.doi, arxiv_id=c.arxiv_id
        )
    return shown


def emit_list_json(papers: Iterable[bytes]) -> None:
    """`desk list --json` from QuickLibrary.list_json (each paper's object as UTF-8 JSON): the very
    text ``emit_json`` prints for ``{"papers": [summary_json(p), ...]}`` (tests/core/library/test_quick.py
    compares the bytes). Written once every paper is read: a read failing halfway prints no half
    object on stdout. To a UTF-8 stdout the bytes go straight to its buffer (one copy of them
    joined, no str of them made); to a stream without one (in memory) as text."""
    body = json_escaped_bytes(b", ".join(papers))
    out = sys.stdout
    buffer = getattr(out, "buffer", None)
    if not takes_utf8(out):  # a narrow stdout: what emit_json writes there
        emit_json({"papers": json.loads(b"[" + body + b"]")})
        return
    if buffer is not None:
        out.flush()
        buffer.write(b'{"papers": [')
        buffer.write(body)
        buffer.write(b"]}\n")
        buffer.flush()
        return
    out.write('{"papers": [' + body.decode("utf-8") + "]}\n")


def detail_json(p: PaperDetail) -> dict[str, Any]:
    """`desk show --json`: the list fields plus abstract and note."""
    return {**summary_json(p), "abstract": p.abstract, "note": p.note}


def page_json(page: ResultPage) -> dict[str, Any]:
    """`desk search --json` / `desk related --json`."""
    results = []
    for row in page.rows:
        item = summary_json(row.paper)
        sources = item.pop("sources")
        item.update(score=round(row.score, 4), snippet=row.snippet, sources=sources)
        results.append(item)
    return {
        "query": page.query,
        "total": page.total,
        "took_ms": round(page.took_ms, 2),
        "suggestion": page.suggestion,
        "results": results,
    }


def marks(p: PaperSummary) -> str:
    """Star / unread / note markers for a plain line."""
    return ("★" if p.starred else " ") + (" " if p.read else "•") + ("✎" if p.has_note else " ")


def summary_line(p: PaperSummary) -> str:
    """One paper on one line (a newline in a title from elsewhere as a space)."""
    name = f" [{p.short_name}]" if p.short_name and p.short_name not in p.title else ""
    return harmless(f"{p.id:>6} {marks(p)} {p.title}{name}", lines=False)
