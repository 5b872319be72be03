"""Abstract text: LaTeX/Markdown to readable spans, duplicate keys, short names, titles, rendering.

May import: runtime.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from desk.core.runtime.lazy import names_from

if TYPE_CHECKING:
    from desk.core.text.latex import latex_to_unicode
    from desk.core.text.markup import Span, SpanKind, parse_spans, readable_text
    from desk.core.text.normalize import dedup_key, stem_word
    from desk.core.text.render import escape_markdown, spans_to_html, spans_to_markdown
    from desk.core.text.short_names import find_short_name
    from desk.core.text.titles import TITLE_MAX, derive_title

# The names below load their module on first use: the stemmer alone (``stemming``, which the
# search index's schema needs) then loads neither the LaTeX converter nor the title rules.
_HOME = {
    "latex_to_unicode": "latex",
    "Span": "markup",
    "SpanKind": "markup",
    "parse_spans": "markup",
    "readable_text": "markup",
    "dedup_key": "normalize",
    "stem_word": "normalize",
    "escape_markdown": "render",
    "spans_to_html": "render",
    "spans_to_markdown": "render",
    "find_short_name": "short_names",
    "TITLE_MAX": "titles",
    "derive_title": "titles",
}

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

__getattr__ = names_from(__name__, _HOME, globals())
