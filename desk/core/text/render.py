"""Spans to safe HTML (for QTextBrowser) and to Markdown (for export); file text is untrusted."""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Collection, Iterator, Sequence

from desk.core.text.control_chars import one_line
from desk.core.text.markup import Span, safe_url
from desk.core.text.normalize import stem_word

_WORD_RE = re.compile(r"[^\W_]+")
_TAGS = {"bold": "b", "italic": "i", "code": "code"}
_ESCAPE_RE = re.compile(r"([\\`*_\[\]<>#|~$])")
_ENTITY_RE = re.compile(r"&(?=#?\w+;)")
_BLOCK_START_RE = re.compile(r"^(\s*)([-+=]|\d+[.)])")  # ">" and "#" are escaped everywhere
_WS_RE = re.compile(r"\s+")


def _highlighted(text: str, highlight: frozenset[str]) -> str:
    if not highlight:
        return html.escape(text, quote=True)
    out: list[str] = []
    pos = 0
    for m in _WORD_RE.finditer(text):
        word = m.group(0)
        if stem_word(word) in highlight or word.lower() in highlight:
            out.append(html.escape(text[pos : m.start()], quote=True))
            out.append(f'<span class="hl">{html.escape(word, quote=True)}</span>')
            pos = m.end()
    out.append(html.escape(text[pos:], quote=True))
    return "".join(out)


Marker = Callable[[str], Sequence[tuple[int, int]]]


def marked_html(text: str, marks: Sequence[tuple[int, int]]) -> str:
    """``text`` escaped for HTML, each (start, end) of ``marks`` wrapped in ``<span class="hl">``."""
    out: list[str] = []
    pos = 0
    for start, end in sorted(marks):
        start, end = max(start, pos), min(end, len(text))
        if start >= end:
            continue
        out.append(html.escape(text[pos:start], quote=True))
        out.append(f'<span class="hl">{html.escape(text[start:end], quote=True)}</span>')
        pos = end
    out.append(html.escape(text[pos:], quote=True))
    return "".join(out)


def link_runs(spans: Sequence[Span]) -> Iterator[tuple[str | None, Sequence[Span]]]:
    """``spans`` cut into runs: each link's spans (one link's text can be several spans, a
    sub/superscript in it) with its web address, each other span alone with None."""
    k = 0
    while k < len(spans):
        span = spans[k]
        url = safe_url(span.url or "") if span.kind == "link" else None
        if url is None:
            yield None, spans[k : k + 1]
            k += 1
            continue
        end = k + 1
        while end < len(spans) and spans[end].kind == "link" and spans[end].url == span.url:
            end += 1
        yield url, spans[k:end]
        k = end


def shows_its_target(url: str, run: Sequence[Span]) -> bool:
    """Whether a link's visible text is its address: else the text could say one place and lead
    to another ("[the official code](http://elsewhere)"), and the address is shown beside it."""
    return _WS_RE.sub(" ", "".join(span.text for span in run)).strip() == url


def spans_to_html(
    spans: Sequence[Span], highlight: Collection[str] = (), marker: Marker | None = None
) -> str:
    """An HTML fragment: all text escaped, emphasis as <b>/<i>/<code>, http(s) links as <a>,
    math sub/superscripts as <sub>/<sup>, words whose stem is in `highlight` wrapped in
    <span class="hl">. A link whose text is not its address is its text, then the address
    as the link: "the code (<a>https://…</a>)".

    `marker`, when given, is asked once for the marks of the whole text (what a search's
    highlighter finds, phrases included) and replaces `highlight`.
    """
    stems = frozenset(highlight)
    texts = [span.raised if span.script is not None else _WS_RE.sub(" ", span.text) for span in spans]
    marks = sorted(marker("".join(texts))) if marker is not None else []
    out: list[str] = []
    offset = 0
    at = 0
    for url, run in link_runs(spans):
        bodies: list[str] = []
        for span in run:
            text = texts[at]
            at += 1
            if marker is not None:
                local = [(s - offset, e - offset) for s, e in marks if s < offset + len(text) and e > offset]
                inner = marked_html(text, local)
            else:
                inner = _highlighted(text, stems)
            offset += len(text)
            # A real sub/superscript: <sub>/<sup> around its own text.
            body = f"<{span.script}>{inner}</{span.script}>" if span.script is not None else inner
            tag = _TAGS.get(span.kind)
            bodies.append(f"<{tag}>{body}</{tag}>" if tag else body)
        if url is None:
            out.extend(bodies)
            continue
        href = html.escape(url, quote=True)
        if shows_its_target(url, run):
            out.extend(f'<a href="{href}">{body}</a>' for body in bodies)
        else:
            label = "".join(bodies)
            space = "" if label.endswith(" ") else " "
            out.append(f'{label}{space}(<a href="{href}">{href}</a>)')
    return "".join(out)


def escape_markdown(text: str) -> str:
    """Escape plain file-derived text (titles, names) so Markdown shows it literally on one line
    (a control character a space: a title or a file's name from elsewhere may hold ESC)."""
    return _escape(one_line(text), line_start=True)


def _escape(text: str, *, line_start: bool) -> str:
    text = _ESCAPE_RE.sub(r"\\\1", text)
    text = _ENTITY_RE.sub(r"\\&", text)
    if line_start:
        # "- x", "+ x", "1. x", "> x" at the start of a line would become lists or quotes.
        text = _BLOCK_START_RE.sub(lambda m: m.group(1) + _escape_block_marker(m.group(2)), text, count=1)
    return text


def _escape_block_marker(marker: str) -> str:
    if marker[-1] in ".)":
        return marker[:-1] + "\\" + marker[-1]
    return "\\" + marker


def _code(text: str) -> str:
    longest = max((len(m.group(0)) for m in re.finditer(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith(("`", " ")) or text.endswith(("`", " ")) else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _emphasis(text: str, mark: str, line_start: bool) -> str:
    core = text.strip(" ")
    if not core:
        return text
    lead = " " if text.startswith(" ") else ""
    trail = " " if text.endswith(" ") else ""
    return f"{lead}{mark}{_escape(core, line_start=line_start and not lead)}{mark}{trail}"


def spans_to_markdown(spans: Sequence[Span]) -> str:
    """One Markdown paragraph: text escaped, **bold**, *italic*, `code`, links as <https://…>.

    A link's address is what the reader sees: a link whose text is its address is an autolink,
    any other is its text, escaped, then the address: "the code (<https://…>)". Never
    ``[text](address)``, whose text could lie, nor an image (every "[" of text is escaped).
    """
    out: list[str] = []
    for url, run in link_runs(spans):
        if url is not None:
            if shows_its_target(url, run):  # an autolink: its text is its address
                out.append(f"<{url}>")
                continue
            at_start = not "".join(out).strip()
            text = _WS_RE.sub(" ", "".join(span.text for span in run))
            if at_start:
                text = text.lstrip()
            label = text.strip()
            lead = " " if text.startswith(" ") else ""
            trail = " " if text.endswith(" ") else ""
            shown = f"{_escape(label, line_start=at_start)} " if label else ""
            out.append(f"{lead}{shown}(<{url}>){trail}")
            continue
        span = run[0]
        text = _WS_RE.sub(" ", span.text)
        at_start = not "".join(out).strip()
        if at_start:
            text = text.lstrip()
        if not text.strip():
            out.append(" " if text else "")
            continue
        if span.kind == "bold":
            out.append(_emphasis(text, "**", at_start))
        elif span.kind == "italic":
            out.append(_emphasis(text, "*", at_start))
        elif span.kind == "code":
            out.append(_code(text))
        else:
            out.append(_escape(text, line_start=at_start))
    return "".join(out).strip()
