"""Rich list files written from the dev corpus's real papers (titles, authors, abstracts), as real
sources write them: BibTeX as PMLR and DBLP do (LaTeX accents, {Protected} words, "Last, First"),
RIS as Zotero does, CSV/TSV as spreadsheets do, OpenReview API v1/v2 notes, arXiv snapshot lines
(wrapped titles and abstracts, authors in one string).

``../shared/dev-corpus/cvpr2023.json`` is read where it is (``DESK_DEV_CORPUS`` names another
folder); it is never copied into the repository. ``bench/rich_import_bench.py`` writes its files
with these functions too.
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
import unicodedata
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[3]


def dev_corpus_dir() -> Path:
    """Where the dev corpus is: DESK_DEV_CORPUS, else ../shared/dev-corpus beside the repository."""
    given = os.environ.get("DESK_DEV_CORPUS")
    return Path(given) if given else ROOT.parent / "shared" / "dev-corpus"


DEV_JSON = dev_corpus_dir() / "cvpr2023.json"

needs_dev_records = pytest.mark.skipif(
    not DEV_JSON.is_file(), reason="needs ../shared/dev-corpus/cvpr2023.json (real titles and authors)"
)


def dev_records() -> list[dict[str, Any]]:
    """The dev corpus's 2,359 papers: index, title, authors (a list), abstract, venue, year."""
    records: list[dict[str, Any]] = json.loads(DEV_JSON.read_text(encoding="utf-8"))
    return records


def real_authors(record: dict[str, Any]) -> tuple[str, ...]:
    """A record's authors as a reader should give them (the corpus has a few with stray spaces)."""
    return tuple(" ".join(name.split()) for name in record["authors"])


# -- BibTeX ---------------------------------------------------------------------------------------
_ACCENTS = {
    "\u0301": "'", "\u0300": "`", "\u0308": '"', "\u0302": "^", "\u0303": "~", "\u0327": "c",
    "\u030c": "v", "\u0304": "=", "\u0306": "u", "\u030a": "r", "\u030b": "H", "\u0328": "k",
}  # fmt: skip
_SPECIAL = {"ß": r"{\ss}", "ø": r"{\o}", "Ø": r"{\O}", "ł": r"{\l}", "Ł": r"{\L}", "æ": r"{\ae}"}


def latex_accents(text: str) -> str:
    """Accented letters as BibTeX writes them ({\\"o}, {\\'e}, {\\c{c}}); others as they are."""
    out = []
    for ch in text:
        if ch in _SPECIAL:
            out.append(_SPECIAL[ch])
            continue
        parts = unicodedata.normalize("NFD", ch)
        if len(parts) == 2 and parts[1] in _ACCENTS:
            mark = _ACCENTS[parts[1]]
            out.append(f"{{\\{mark}{{{parts[0]}}}}}" if mark.isalpha() else f"{{\\{mark}{parts[0]}}}")
        else:
            out.append(ch)
    return "".join(out)


def balanced(text: str) -> bool:
    """Whether every brace of ``text`` closes one opened before it."""
    depth = 0
    for ch in text:
        depth += {"{": 1, "}": -1}.get(ch, 0)
        if depth < 0:
            return False
    return depth == 0


def tex_escape(text: str) -> str:
    """Text as a BibTeX field value: TeX's special text characters escaped; braces kept when they
    balance (LaTeX such as \\mathcal{O}), escaped when not (two dev abstracts have a stray "}")."""
    return re.sub(r"([%&#])" if balanced(text) else r"([%&#{}])", r"\\\1", text)


def protect_capitals(title: str) -> str:
    """Words with inner capitals braced as DBLP and PMLR do ({BERT}, {NeRF})."""
    return re.sub(r"\b([A-Za-z]*[A-Z][A-Za-z]*[A-Z][A-Za-z0-9]*)\b", r"{\1}", title)


def last_first(name: str) -> str:
    """ "First Middle Last" as "Last, First Middle"."""
    parts = name.split()
    return f"{parts[-1]}, {' '.join(parts[:-1])}" if len(parts) > 1 else name


def bib_key(record: dict[str, Any], taken: set[str]) -> str:
    last = re.sub(r"\W", "", unicodedata.normalize("NFKD", record["authors"][0].split()[-1]).lower())
    last = last.encode("ascii", "ignore").decode() or "anon"
    word = next((w for w in re.findall(r"[a-z]+", record["title"].lower()) if len(w) > 3), "paper")
    key = f"{last}{record['year']}{word}"
    base, n = key, 1
    while key in taken:
        n += 1
        key = f"{base}{n}"
    taken.add(key)
    return key


CVPR = "Proceedings of the IEEE/CVF Conference on Computer Vision and Pattern Recognition (CVPR)"


def bibtex(records: Sequence[dict[str, Any]], *, latex: bool = True) -> str:
    """A .bib file of the records, each entry with a key, a protected title, LaTeX accents in names
    (``latex``), booktitle, year, a DOI-like url and the abstract."""
    taken: set[str] = set()
    entries = []
    for r in records:
        names = " and ".join(last_first(a) for a in r["authors"])
        title = protect_capitals(tex_escape(r["title"]))
        entries.append(
            f"@inproceedings{{{bib_key(r, taken)},\n"
            f"  title = {{{title}}},\n"
            f"  author = {{{latex_accents(names) if latex else names}}},\n"
            f"  booktitle = {{{CVPR}}},\n"
            f"  year = {{{r['year']}}},\n"
            f"  pages = {{{r['index'] + 1}--{r['index'] + 10}}},\n"
            f"  url = {{https://openaccess.thecvf.com/paper{r['index']}.html}},\n"
            f"  abstract = {{{tex_escape(r['abstract'])}}}\n"
            "}\n"
        )
    return "% Encoding: UTF-8\n\n" + "\n".join(entries)


# -- RIS, CSV -------------------------------------------------------------------------------------
def ris(records: Sequence[dict[str, Any]], newline: str = "\n") -> str:
    """An .ris file of the records, as Zotero exports them."""
    out = []
    for r in records:
        lines = ["TY  - CONF", f"TI  - {r['title']}"]
        lines += [f"AU  - {last_first(a)}" for a in r["authors"]]
        lines += [
            f"PY  - {r['year']}",
            "T2  - CVPR",
            f"AB  - {r['abstract']}",
            f"UR  - https://example.org/{r['index']}",
        ]
        lines += [f"DO  - 10.1109/CVPR.{r['year']}.{r['index']:05d}", "ER  - ", ""]
        out.append(newline.join(lines))
    return newline.join(out)


def table(
    records: Sequence[dict[str, Any]], delimiter: str = ",", header: Sequence[str] | None = None
) -> str:
    """A CSV/TSV file of the records (authors joined by "; ")."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, delimiter=delimiter, lineterminator="\r\n")
    writer.writerow(header or ["Paper Title", "Authors", "Year", "Venue", "Abstract", "URL"])
    for r in records:
        writer.writerow([r["title"], "; ".join(r["authors"]), r["year"], r["venue"], r["abstract"], ""])
    return buffer.getvalue()


# -- JSON -----------------------------------------------------------------------------------------
def openreview(records: Sequence[dict[str, Any]], version: int = 2) -> str:
    """An OpenReview API answer ({"notes": [...]}); v2 wraps every content value as {"value": ...}."""

    def wrap(value: Any) -> Any:
        return {"value": value} if version == 2 else value

    notes = [
        {
            "id": f"note{r['index']:05d}",
            "forum": f"note{r['index']:05d}",
            "cdate": 1_680_000_000_000,
            "content": {
                "title": wrap(r["title"]),
                "authors": wrap(r["authors"]),
                "abstract": wrap(r["abstract"]),
                "venue": wrap(f"{r['venue']} {r['year']} poster"),
                "keywords": wrap(["vision"]),
            },
        }
        for r in records
    ]
    return json.dumps({"notes": notes, "count": len(notes)}, ensure_ascii=False, indent=1)


def wrap_lines(text: str, width: int = 70, indent: str = "  ") -> str:
    """Text wrapped as the arXiv snapshot's fields are (newlines, indented continuation lines)."""
    words, lines, line = text.split(), [], ""
    for word in words:
        if line and len(line) + len(word) + 1 > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    lines.append(line)
    return ("\n" + indent).join(lines)


def arxiv_line(record: dict[str, Any], number: int) -> str:
    """One arXiv metadata snapshot line for a record."""
    names = record["authors"]
    authors = ", ".join(names[:-1]) + (" and " if len(names) > 1 else "") + names[-1]
    return json.dumps(
        {
            "id": f"23{(number // 99999) % 12 + 1:02d}.{number % 99999 + 1:05d}",
            "submitter": names[0],
            "authors": authors,
            "title": wrap_lines(record["title"]),
            "comments": "CVPR 2023",
            "journal-ref": None,
            "doi": None,
            "categories": "cs.CV",
            "abstract": "  " + wrap_lines(record["abstract"]) + "\n",
            "versions": [{"version": "v1", "created": "Mon, 6 Mar 2023 10:00:00 GMT"}],
            "update_date": "2023-03-07",
            "authors_parsed": [[n.split()[-1], " ".join(n.split()[:-1]), ""] for n in names],
        },
        ensure_ascii=False,
    )


def arxiv_jsonl(records: Sequence[dict[str, Any]], count: int | None = None) -> str:
    """``count`` arXiv snapshot lines (default: one per record), cycling through the records."""
    total = len(records) if count is None else count
    return "\n".join(arxiv_line(records[i % len(records)], i) for i in range(total)) + "\n"
