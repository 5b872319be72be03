"""A note's inline LaTeX (`$\\epsilon$-greedy`) as the abstracts show it (ε-greedy), for the note's
rendered preview; the note itself is kept as written.

Only `$…$` outside code (`` `x` `` and fenced blocks) is math, and only when it reads as math:
no space just inside the dollars, nothing across a line end, so "$5 and $10" stays money."""

from __future__ import annotations

import re

_FENCE_RE = re.compile(r"^ {0,3}(`{3,}|~{3,})", re.MULTILINE)
_CODE_SPAN_RE = re.compile(r"(`+)(?:.|\n)*?(?<!`)\1(?!`)")
_MATH_RE = re.compile(r"(?<![\\$\w])\$(?=[^\s$])([^$\n]{1,200}?)(?<=[^\s\\$])\$(?![\w$])")


def render_note_math(markdown: str) -> str:
    """The note with each `$…$` outside code turned into Unicode (α, ×, ≥, n², x₁)."""
    if "$" not in markdown:
        return markdown
    out: list[str] = []
    fenced = False
    for line in markdown.split("\n"):
        if _FENCE_RE.match(line):
            fenced = not fenced
            out.append(line)
        else:
            out.append(line if fenced else _outside_code(line))
    return "\n".join(out)


def _outside_code(line: str) -> str:
    parts: list[str] = []
    at = 0
    for span in _CODE_SPAN_RE.finditer(line):
        parts.append(_math(line[at : span.start()]))
        parts.append(span.group(0))
        at = span.end()
    parts.append(_math(line[at:]))
    return "".join(parts)


def _math(text: str) -> str:
    if "$" not in text:
        return text
    from desk.core.text.latex import convert_math  # pylatexenc: loaded once a note holds math

    return _MATH_RE.sub(lambda m: convert_math(m.group(1)) or m.group(0), text)
