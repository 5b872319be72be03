"""Abstract text: LaTeX/Markdown to readable spans, duplicate keys, short names, titles, rendering."""

from __future__ import annotations

from desk.core.text.latex import latex_to_unicode
from desk.core.text.markup import Span, SpanKind, parse_spans, readable_text
from desk.core.text.normalize import dedup_key, stem_word
from desk.core.text.render import escape_markdown, spans_to_html, spans_to_markdown
from desk.core.text.short_names import find_short_name
from desk.core.text.titles import TITLE_MAX, derive_title

__all__ = [
    "TITLE_MAX",
    "Span",
    "SpanKind",
    "dedup_key",
    "derive_title",
    "escape_markdown",
    "find_short_name",
    "latex_to_unicode",
    "parse_spans",
    "readable_text",
    "spans_to_html",
    "spans_to_markdown",
    "stem_word",
]
