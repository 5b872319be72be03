"""BibTeX (PMLR, ACL Anthology, DBLP, Zotero and JabRef exports) to entries, with bibtexparser 2.

bibtexparser splits the file into blocks and recovers at the next ``@`` after a broken one (an
unbalanced brace, a missing comma), so one bad entry costs only itself, named by its key and
line. Its own LaTeX middleware runs pylatexenc over every field (~14 ms an entry: 27 s for 2,000
PMLR abstracts), so titles, names and venues are decoded with desk's bounded converter instead,
and abstracts are kept as written: desk reads the LaTeX in an abstract as in any list.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from typing import Any

from desk.core.reader.entries import (
    Entry,
    Metadata,
    Skip,
    arxiv_id_of,
    clean_abstract,
    clean_field,
    doi_of,
    url_of,
    year_of,
)

# A file starts as BibTeX when its first line that is not blank or a "%" comment opens an entry.
_START = re.compile(r"\A(?:\s*%[^\n]*\n)*\s*@[A-Za-z]+\s*[{(]")
_ENTRY = re.compile(r"^\s*@[A-Za-z]+\s*[{(]", re.MULTILINE)
_CONCAT = re.compile(r"\s+#\s+")
# TeX's escapes of characters that are plain text in an abstract (\% \& \#); the rest of its
# LaTeX ($\alpha$, \emph{...}) is read by desk as in any list.
_TEXT_ESCAPE = re.compile(r"\\([%&#])")
_NAME_AND = re.compile(r"\s+and\s+", re.IGNORECASE)
# What makes a name more than words and one comma: braces, TeX, ties and quotes go to
# bibtexparser's name parser (a second comma too: "Last, Jr., First").
_NOT_PLAIN_NAME = re.compile(r'[{}\\$~"]')


def looks_like_bibtex(head: str) -> bool:
    """Whether text (its first kilobytes) begins as a BibTeX file."""
    return bool(_START.match(head))


def holds_entries(text: str) -> bool:
    """Whether a ``@type{`` entry starts any line (a .bib file with a long preamble of prose)."""
    return bool(_ENTRY.search(text))


def read_bibtex(text: str) -> Iterator[Entry | Skip]:
    """The entries of a BibTeX file, in order; a broken one as a Skip that names it."""
    import bibtexparser
    from bibtexparser.model import DuplicateBlockKeyBlock, DuplicateFieldKeyBlock
    from bibtexparser.model import Entry as BibEntry

    # bibtexparser logs each broken block as a warning: desk reports it itself, in one line.
    logging.getLogger("bibtexparser").addHandler(logging.NullHandler())
    logging.getLogger("bibtexparser").propagate = False
    library = bibtexparser.parse_string(text)
    strings = {s.key.lower(): str(s.value) for s in library.strings}
    blocks: list[tuple[int, Any]] = [(e.start_line or 0, e) for e in library.entries]
    blocks += [(b.start_line or 0, b) for b in library.failed_blocks]
    blocks.sort(key=lambda pair: pair[0])
    for line, block in blocks:
        if isinstance(block, DuplicateBlockKeyBlock | DuplicateFieldKeyBlock):
            inner = block.ignore_error_block
            if isinstance(inner, BibEntry):
                yield _entry(inner, strings)
                continue
        if isinstance(block, BibEntry):
            yield _entry(block, strings)
        else:
            yield Skip(_where(_key_in(getattr(block, "raw", "")), line), _why())


def _where(key: str | None, line: int) -> str:
    return f"entry {key} (line {line + 1})" if key else f"the entry at line {line + 1}"


def _key_in(raw: str) -> str | None:
    found = re.match(r"\s*@[A-Za-z]+\s*[{(]\s*([^,\s{}()]{1,100})\s*,", raw)
    return found.group(1) if found else None


def _why() -> str:
    return "could not be read as BibTeX (an unbalanced brace or quote, a missing comma?); it was skipped"


def _value(raw: Any, strings: dict[str, str]) -> str:
    """A field's text: @string macros and "#" concatenation resolved, outer braces or quotes gone."""
    text = str(raw)
    if " # " not in text and "#" not in text.strip()[:1]:
        return text
    parts = []
    for piece in _CONCAT.split(text.strip()):
        piece = piece.strip()
        if piece[:1] in '{"' and piece[-1:] in '}"':
            parts.append(piece[1:-1])
        else:
            parts.append(strings.get(piece.lower(), piece))
    return "".join(parts)


def _entry(entry: Any, strings: dict[str, str]) -> Entry | Skip:
    fields = {k.lower(): _value(f.value, strings) for k, f in entry.fields_dict.items()}
    where = _where(entry.key, entry.start_line)
    abstract = clean_abstract(_TEXT_ESCAPE.sub(r"\1", fields.get("abstract", "")))
    if not abstract:
        return Skip(where, "has no abstract", broken=False)
    eprint = fields.get("eprint") or ""
    archive = (fields.get("archiveprefix") or fields.get("eprinttype") or "").lower()
    arxiv = arxiv_id_of(eprint) if (archive in ("", "arxiv") and eprint) else None
    url = url_of(fields.get("url")) or url_of(fields.get("link"))
    arxiv = arxiv or (arxiv_id_of(url) if url and "arxiv.org" in url else None)
    venue = fields.get("booktitle") or fields.get("journal") or fields.get("journaltitle")
    meta = Metadata(
        title=clean_field(fields.get("title"), latex=True),
        authors=authors_of(fields.get("author", "")),
        year=year_of(fields.get("year") or fields.get("date")),
        venue=clean_field(venue, latex=True),
        url=url,
        doi=doi_of(fields.get("doi")) or (doi_of(url) if url and "doi.org" in url else None),
        arxiv_id=arxiv,
    )
    return Entry(abstract, meta, where)


def _one_group(text: str) -> bool:
    """Whether ``text`` is one brace group: the brace it opens with closes at its end."""
    depth = 0
    for k, ch in enumerate(text):
        if ch == "{" and (k == 0 or text[k - 1] != "\\"):
            depth += 1
        elif ch == "}" and text[k - 1] != "\\":
            depth -= 1
            if depth == 0 and k != len(text) - 1:
                return False
    return depth == 0


def authors_of(field: str) -> tuple[str, ...]:
    """A BibTeX author field ("Last, First and First Last and {Org Name} and others") as
    "First Last" names in order ("others", BibTeX's "et al.", left out)."""
    from bibtexparser.middlewares.names import parse_single_name_into_parts, split_multiple_persons_names

    if not field.strip():
        return ()
    try:
        names = split_multiple_persons_names(field)
    except Exception:  # an unbalanced brace in the names: split them plainly
        names = _NAME_AND.split(field)
    out: list[str] = []
    for name in names:
        if name.strip().lower() == "others":
            continue
        whole = name.strip()
        if whole.startswith("{") and whole.endswith("}") and _one_group(whole):
            # "{Google Research}", "{Ann Lee, Jr.}": one name as written, not "Last, First".
            cleaned = clean_field(whole[1:-1], latex=True)
            if cleaned:
                out.append(cleaned)
            continue
        plain = _plain_name(whole)
        if plain is not None:
            out.append(plain)
            continue
        try:
            parts = parse_single_name_into_parts(name, strict=False).merge_first_name_first
        except Exception:
            parts = name
        cleaned = clean_field(parts, latex=True)
        if cleaned:
            out.append(cleaned)
    return tuple(out)


def _plain_name(name: str) -> str | None:
    """A name of plain words ("Ann Lee", "van der Berg, Jan") as "First Last", without the name
    parser; None when it needs the parser (braces, TeX, two commas, an empty side of its comma).

    The parser's "First von Last Jr" order is the written order for a name without a comma and
    the two sides swapped for "von Last, First" (tested equal): most of a conference's names,
    where the parser was a third of reading its BibTeX.
    """
    if _NOT_PLAIN_NAME.search(name) or name.count(",") > 1:
        return None
    last, comma, first = name.partition(",")
    if comma and not (last.strip() and first.strip()):
        return None
    return clean_field(f"{first} {last}" if comma else name)
