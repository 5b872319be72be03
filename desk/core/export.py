"""Export: Markdown a person would keep, BibTeX, CSV and JSON, with file text escaped.

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


def _citation_line(paper: PaperDetail) -> str | None:
    """Authors, venue and year, and the link (its address as its text), escaped; None when unknown."""
    c = paper.citation
    if c is None:
        return None
    bits = [", ".join(escape_markdown(a) for a in c.authors)] if c.authors else []
    where = " ".join(escape_markdown(str(x)) for x in (c.venue, c.year) if x)
    if where:
        bits.append(where)
    if c.link:
        bits.append(escape_markdown(harmless(c.link, lines=False)))
    return " — ".join(bits) or None


def paper_markdown(paper: PaperDetail) -> str:
    """One paper: heading (title and short name), authors and link, sources, abstract, the note."""
    parts = [_heading(paper)]
    cited = _citation_line(paper)
    if cited:
        parts += ["", cited]
    parts += ["", _sources_line(paper)]
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


# -- citations: BibTeX, CSV, JSON ----------------------------------------------------------------
FORMATS = ("markdown", "bibtex", "csv", "json")
_TEX_SPECIAL = re.compile(r"(?<!\\)([%&#_$~^\\{}])")
_TEX_TEXT = re.compile(r"(?<!\\)([%&#])")
_CAPITALISED = re.compile(r"\b([A-Za-z]*[A-Z][A-Za-z0-9]*[A-Z0-9][A-Za-z0-9-]*)\b")
_KEY_WORD = re.compile(r"[a-z0-9]+")
_KEY_SKIP = frozenset(
    ("a", "an", "the", "on", "of", "for", "in", "to", "and", "with", "from", "via", "is", "are")
)
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def _tex(text: str) -> str:
    """Plain text (a title, a name, a venue) as a BibTeX value: every TeX special escaped."""
    escaped = _TEX_SPECIAL.sub(
        lambda m: "\\textbackslash{}" if m.group(1) == "\\" else "\\" + m.group(1), text
    )
    return escaped.replace("\\~", "\\textasciitilde{}").replace("\\^", "\\textasciicircum{}")


def _tex_abstract(raw: str) -> str:
    """An abstract as a BibTeX value: its LaTeX kept ($\\alpha$), %, & and # escaped, and braces
    escaped when they do not balance (one stray brace would swallow the rest of the file)."""
    text = _TEX_TEXT.sub(r"\\\1", raw)
    depth = 0
    for ch in text:
        depth += {"{": 1, "}": -1}.get(ch, 0)
        if depth < 0:
            break
    if depth != 0:
        text = re.sub(r"(?<!\\)([{}])", r"\\\1", text)
    return text


def _protected_title(title: str) -> str:
    """A title escaped, with words of inner capitals braced so styles keep their case ({BERT})."""
    return _CAPITALISED.sub(r"{\1}", _tex(title))


def _last_first(name: str) -> str:
    """ "First Last" as BibTeX's "Last, First" (one word alone, or a name with a comma, braced)."""
    parts = name.split()
    if "," in name or " and " in f" {name.lower()} " or len(parts) < 2:
        return "{" + _tex(name) + "}"
    return f"{_tex(parts[-1])}, {_tex(' '.join(parts[:-1]))}"


def _ascii_word(text: str) -> str:
    import unicodedata

    return unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().lower()


def citation_key(paper: PaperDetail, taken: set[str]) -> str:
    """A key as Google Scholar writes them (vaswani2017attention), unique among ``taken``."""
    c = paper.citation
    last = _KEY_WORD.findall(_ascii_word(c.authors[0].split()[-1])) if c and c.authors else []
    words = [w for w in _KEY_WORD.findall(_ascii_word(paper.title)) if w not in _KEY_SKIP]
    year = str(c.year) if c and c.year else ""
    key = "".join(last[:1]) + year + "".join(words[:1]) or f"desk{paper.id}"
    unique, n = key, 0
    while unique in taken:
        n += 1
        unique = key + (chr(ord("a") + n - 1) if n <= 26 else str(n))
    taken.add(unique)
    return unique


def paper_bibtex(paper: PaperDetail, key: str) -> str:
    """One BibTeX entry: @inproceedings when a venue is known, else @misc."""
    c = paper.citation
    fields = [("title", _protected_title(paper.title))]
    if c and c.authors:
        fields.append(("author", " and ".join(_last_first(a) for a in c.authors)))
    if c and c.venue:
        fields.append(("booktitle", _tex(c.venue)))
    if c and c.year:
        fields.append(("year", str(c.year)))
    if c and c.url:
        fields.append(("url", _tex_url(c.url)))
    if c and c.doi:
        fields.append(("doi", _tex_url(c.doi)))
    if c and c.arxiv_id:
        fields += [("eprint", c.arxiv_id), ("archiveprefix", "arXiv")]
    if paper.tags:
        fields.append(("keywords", _tex(", ".join(paper.tags))))
    fields.append(("abstract", _tex_abstract(harmless(paper.abstract_raw, lines=False))))
    kind = "inproceedings" if c and c.venue else "misc"
    body = ",\n".join(f"  {name} = {{{value}}}" for name, value in fields)
    return f"@{kind}{{{key},\n{body}\n}}\n"


def _tex_url(url: str) -> str:
    """A link as a BibTeX value: braces and % escaped (nothing else is special in one)."""
    return re.sub(r"([{}%])", r"\\\1", harmless(url, lines=False))


def to_bibtex(papers: Sequence[PaperDetail]) -> str:
    """A .bib file of the papers, keys unique."""
    taken: set[str] = set()
    return "\n".join(paper_bibtex(p, citation_key(p, taken)) for p in papers)


CSV_COLUMNS = (
    "id", "title", "short_name", "authors", "year", "venue", "url", "doi", "arxiv_id",
    "starred", "read", "tags", "collections", "abstract", "note",
)  # fmt: skip


def _cell(value: object) -> str:
    """A cell a spreadsheet shows as text: one starting as a formula (=, +, -, @) gets a ' first."""
    text = harmless("" if value is None else str(value))
    return "'" + text if text.startswith(_FORMULA_START) else text


def to_csv(papers: Sequence[PaperDetail]) -> str:
    """A CSV file of the papers with a header row (authors joined by "; ")."""
    import csv
    import io

    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(CSV_COLUMNS)
    for p in papers:
        c = p.citation
        writer.writerow(
            _cell(v)
            for v in (
                p.id,
                p.title,
                p.short_name,
                "; ".join(c.authors) if c else "",
                c.year if c else None,
                c.venue if c else None,
                c.url if c else None,
                c.doi if c else None,
                c.arxiv_id if c else None,
                "yes" if p.starred else "",
                "yes" if p.read else "",
                "; ".join(p.tags),
                "; ".join(p.collections),
                p.abstract,
                p.note,
            )
        )
    return out.getvalue()


def paper_record(p: PaperDetail) -> dict[str, object]:
    """One paper as desk's JSON export writes it (desk's reader reads it back as a list)."""
    c = p.citation
    return {
        "id": p.id,
        "title": p.title,
        "short_name": p.short_name,
        "authors": list(c.authors) if c else [],
        "year": c.year if c else None,
        "venue": c.venue if c else None,
        "url": c.url if c else None,
        "doi": c.doi if c else None,
        "arxiv_id": c.arxiv_id if c else None,
        "starred": p.starred,
        "read": p.read,
        "tags": list(p.tags),
        "collections": list(p.collections),
        "abstract": p.abstract_raw,
        "note": p.note,
    }


def to_json(papers: Sequence[PaperDetail]) -> str:
    """``{"papers": [...]}``, one record each (control characters escaped by JSON itself)."""
    import json

    return json.dumps({"papers": [paper_record(p) for p in papers]}, ensure_ascii=False, indent=1) + "\n"
