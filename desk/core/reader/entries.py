"""What a rich list's entry holds besides its abstract, and the cleaning every format shares.

A bare list gives abstracts only; BibTeX, RIS, CSV, OpenReview and arXiv records also give the
paper's real title, its authors in order, year, venue, link, DOI and arXiv id. Each format's
reader turns an entry into an :class:`Entry` (or a :class:`Skip` naming why it was left out),
with its text cleaned here the same way: LaTeX in titles and names decoded ({\\"o} → ö,
{BERT} → BERT), white space collapsed, controls removed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from desk.core.reader.parse import clean_paragraph

#: A title, venue or name longer than this is cut (a broken field swallowing the file).
MAX_FIELD_CHARS = 1_000
MAX_AUTHORS = 500  # physics papers list thousands; the first ones are kept
_LATEX_CUES = re.compile(r"[\\{}$~]")
_YEAR = re.compile(r"(?<!\d)(1[89]\d\d|20\d\d|2100)(?!\d)")
_DOI = re.compile(r"10\.\d{4,9}/\S+")
# New-style (2007-) ids "2101.00001v2" and old-style "hep-th/9901001", "cs.LG/0101001".
_ARXIV = re.compile(r"(?<![\w.])(\d{4}\.\d{4,5}|[a-z-]+(?:\.[A-Z]{2})?/\d{7})(?:v\d+)?(?![\w])")
_URL = re.compile(r"https?://\S+", re.IGNORECASE)
_SUFFIXES = frozenset(("jr", "sr", "ii", "iii", "iv", "phd"))
_KEPT_CHARS = {"\\textbackslash": "\\", "\\textasciicircum": "^"}
_KEPT_MACROS = (("\\textbackslash", "\ue000"), ("\\textasciicircum", "\ue001"))


@dataclass(frozen=True)
class Metadata:
    """Everything desk keeps about a paper besides its abstract (each None or empty when unknown)."""

    title: str | None = None
    authors: tuple[str, ...] = ()  # "First Last", in the paper's order
    year: int | None = None
    venue: str | None = None
    url: str | None = None
    doi: str | None = None
    arxiv_id: str | None = None

    @property
    def empty(self) -> bool:
        """Nothing known."""
        return self == NO_METADATA


NO_METADATA = Metadata()


@dataclass(frozen=True)
class Entry:
    """One paper of a rich list: its raw abstract and what the list says about it."""

    abstract: str
    meta: Metadata
    where: str  # "entry vaswani2017 (line 12)", "record 5": named when something is wrong with it


@dataclass(frozen=True)
class Skip:
    """An entry left out: ``where`` it is and ``why``, in plain words. ``broken``: it could not be read
    at all (named one by one); otherwise it was read but holds no abstract (counted)."""

    where: str
    why: str
    broken: bool = True


def clean_field(value: object, *, latex: bool = False) -> str | None:
    """A one-line field (title, venue, name) cleaned: LaTeX decoded when ``latex``, controls
    removed, white space collapsed, cut at MAX_FIELD_CHARS; None when nothing is left."""
    if value is None:
        return None
    text = value if isinstance(value, str) else str(value)
    if len(text) > 4 * MAX_FIELD_CHARS:
        text = text[: 4 * MAX_FIELD_CHARS]
    if latex and _LATEX_CUES.search(text):
        from desk.core.text.latex import latex_to_unicode

        # desk's converter drops these two (its abstracts never need them); a title may.
        for macro, mark in _KEPT_MACROS:
            text = text.replace(macro + "{}", mark).replace(macro, mark)
        text = latex_to_unicode(text)
        for macro, mark in _KEPT_MACROS:
            text = text.replace(mark, _KEPT_CHARS[macro])
    text = clean_paragraph(text)
    if len(text) > MAX_FIELD_CHARS:
        text = text[:MAX_FIELD_CHARS].rstrip() + "…"
    return text or None


def clean_abstract(value: object) -> str:
    """An abstract field as a list's paragraph (desk's own reading of LaTeX happens later)."""
    if not isinstance(value, str):
        value = "" if value is None else str(value)
    return clean_paragraph(value)


def clean_authors(names: object, *, latex: bool = False) -> tuple[str, ...]:
    """Names cleaned, empty ones dropped, at most MAX_AUTHORS."""
    if not isinstance(names, list | tuple):
        return ()
    out: list[str] = []
    for name in names[:MAX_AUTHORS]:
        cleaned = clean_field(name, latex=latex)
        if cleaned:
            out.append(cleaned)
    return tuple(out)


def first_last(name: str) -> str:
    """ "Last, First" (BibTeX, RIS, arXiv's parsed names) as "First Last"; other forms as they are.

    "Last, Jr, First" keeps the suffix after the last name ("First Last Jr").
    """
    parts = [p.strip() for p in name.split(",")]
    if len(parts) == 2 and parts[1].rstrip(".").lower() in _SUFFIXES:
        return name.strip()  # "Ann Lee, Jr." is already "First Last"
    if len(parts) == 2 and parts[0] and parts[1]:
        return f"{parts[1]} {parts[0]}"
    if len(parts) == 3 and parts[0] and parts[2]:
        return f"{parts[2]} {parts[0]} {parts[1]}".strip()
    return name.strip()


def split_author_string(text: str) -> list[str]:
    """One string of names ("A, B and C", "A; B; C", "A and B") as names.

    A string of "Last, First" pairs joined by " and " (BibTeX style) keeps each pair whole.
    """
    text = " ".join(text.split())
    if not text:
        return []
    if ";" in text:
        return [first_last(p) for p in re.split(r"\s*;\s*", text) if p.strip()]
    pieces = [p for p in re.split(r"\s+and\s+|\s*&\s*", text) if p.strip()]
    if len(pieces) > 1 and all(p.count(",") == 1 for p in pieces):
        return [first_last(p) for p in pieces]  # "Vaswani, Ashish and Shazeer, Noam"
    names: list[str] = []
    for piece in pieces:
        names += [p.strip() for p in piece.split(",") if p.strip()]
    return names


def year_of(value: object) -> int | None:
    """A year from a field ("2023", "2023//", "2023-05-01", 2023), or None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if 1800 <= value <= 2100 else None
    if not isinstance(value, str):
        return None
    found = _YEAR.search(value[:200])
    return int(found.group(1)) if found else None


def doi_of(value: object) -> str | None:
    """A DOI ("10.1234/abc"), from a bare one, a "doi:" one or a doi.org link; lowercased (DOIs are
    case-insensitive), or None."""
    if not isinstance(value, str):
        return None
    found = _DOI.search(value[:500])
    if not found:
        return None
    return found.group().rstrip(".,;)]}").lower()


def arxiv_id_of(value: object) -> str | None:
    """An arXiv id without its version ("2101.00001", "hep-th/9901001"), or None."""
    if not isinstance(value, str):
        return None
    found = _ARXIV.search(value[:500].strip())
    return found.group(1) if found else None


def url_of(value: object) -> str | None:
    """The first http(s) link of a field, or None (no other scheme is kept: nothing opens a file)."""
    if isinstance(value, list | tuple):
        for item in value:
            found = url_of(item)
            if found:
                return found
        return None
    if not isinstance(value, str):
        return None
    match = _URL.search(value[:4000])
    if not match:
        return None
    link = match.group().rstrip(".,;)]}>\"'")
    return link if len(link) <= 2000 else None


def link_of(meta: Metadata) -> str | None:
    """Where the paper can be read: its url, else its DOI's or arXiv id's page."""
    if meta.url:
        return meta.url
    if meta.doi:
        return f"https://doi.org/{meta.doi}"
    if meta.arxiv_id:
        return f"https://arxiv.org/abs/{meta.arxiv_id}"
    return None
