"""An Obsidian vault of the papers: one note each, desk's part rewritten by a re-export, the user's kept.

Each note is ``DIR/<title>.md``::

    ---
    title: "Attention Is All You Need"
    authors: ["Ashish Vaswani", "Noam Shazeer"]
    year: 2017
    ...
    desk_id: 12
    ---
    (the paper's note in desk, then its abstract as a callout)

    %% desk: write your own notes below this line; a re-export keeps them %%
    (whatever the user writes here)

The front matter is YAML whose values are all JSON (a string in double quotes, a number, true or
false, a flow list): YAML reads JSON as it is, and nothing in a title can break out of it. A
re-export finds a paper's note by ``desk_id``, whatever its file is called now, and rewrites
what stands above the marker line: the front matter (properties the user added there are kept)
and desk's text. Everything below the marker stays byte for byte; a note whose marker was
deleted keeps its whole old text below a new one. A note keeps its file name once written (links
to it keep working when a title is edited); a new note never takes the name of a file that is
there already. A file desk cannot read as UTF-8 is left as it is, and said so.
"""

from __future__ import annotations

import json
import os
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from desk.core.records.detail import PaperDetail
from desk.core.runtime.errors import DeskError
from desk.core.runtime.files import write_text
from desk.core.runtime.paths import shown_path
from desk.core.text import parse_spans, spans_to_markdown
from desk.core.text.control_chars import harmless, json_escaped, one_line

MARKER = "%% desk: write your own notes below this line; a re-export keeps them %%"
ID_KEY = "desk_id"
#: The properties desk writes (and rewrites); any other the user put in the front matter is kept.
KEYS = ("title", "authors", "year", "venue", "url", "tags", "starred", "read", ID_KEY)
#: A file name's stem is cut at this many characters and UTF-8 bytes (most file systems allow
#: 255 bytes; room is left for " (123456)" and ".md").
MAX_NAME_CHARS = 120
MAX_NAME_BYTES = 200
HEAD_BYTES = 65_536  # what is read of a .md file to see whether it is desk's note of a paper
# Characters no file name may hold on some system (/ \ : * ? " < > |), and those that break an
# Obsidian link to the note (# ^ [ ] |).
_UNSAFE = re.compile(r'[/\\:*?"<>|#^\[\]\x00-\x1f\x7f]')
_RESERVED = frozenset(
    ["CON", "PRN", "AUX", "NUL", *(f"COM{i}" for i in range(10)), *(f"LPT{i}" for i in range(10))]
)
_ID_LINE = re.compile(rf"^{ID_KEY}:\s*(\d+)\s*$", re.MULTILINE)
_TOP_KEY = re.compile(r"^([^\s#\-][^:]*):")
_TAG_UNSAFE = re.compile(r"[^\w/\-]+")


@dataclass
class VaultReport:
    """What an export to a vault did: notes written new, rewritten, already as they were, left alone."""

    folder: Path
    added: int = 0
    updated: int = 0
    unchanged: int = 0
    left: list[str] = field(default_factory=list)  # "NAME: why", files desk did not touch

    @property
    def written(self) -> int:
        """Notes written or found current."""
        return self.added + self.updated + self.unchanged


def _yaml(value: object) -> str:
    """A front-matter value as JSON (which YAML reads as it is), with no line break or control
    character raw: YAML 1.1 readers take U+0085, U+2028 and U+2029 for line breaks."""
    text = json_escaped(json.dumps(value, ensure_ascii=False))
    return text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def _tag(name: str) -> str:
    """A desk tag as an Obsidian tag: spaces and other characters Obsidian's tags cannot hold as "-"."""
    return _TAG_UNSAFE.sub("-", one_line(name)).strip("-") or "tag"


def front_matter(paper: PaperDetail) -> list[str]:
    """The lines of the properties desk writes for ``paper`` (between the ``---`` lines)."""
    c = paper.citation
    values: dict[str, object] = {
        "title": one_line(paper.title),
        "authors": [one_line(a) for a in c.authors] if c else [],
        "year": c.year if c else None,
        "venue": one_line(c.venue) if c and c.venue else None,
        "url": one_line(c.link) if c and c.link else None,
        "tags": list(dict.fromkeys(_tag(t) for t in paper.tags)),
        "starred": paper.starred,
        "read": paper.read,
        ID_KEY: paper.id,
    }
    return [f"{key}: {_yaml(values[key])}" for key in KEYS]


def desk_text(paper: PaperDetail) -> str:
    """What desk writes above the marker: the paper's note, then its abstract as a callout. A line
    of the note that reads as the marker is written with a backslash first (the marker is desk's)."""
    note = "\n".join(
        "\\" + line if line.strip() == MARKER else line
        for line in harmless(paper.note).strip("\n").split("\n")
    )
    abstract = spans_to_markdown(parse_spans(paper.abstract_raw))
    callout = "\n".join(["> [!abstract]", *(f"> {line}" if line else ">" for line in abstract.split("\n"))])
    return f"{note}\n\n{callout}" if note.strip() else callout


def file_stem(title: str) -> str:
    """A title as a file name's stem every common system takes: no separator or reserved character,
    no control, no leading dot, no trailing dot or space, not a reserved Windows name, cut short."""
    stem = " ".join(_UNSAFE.sub(" ", unicodedata.normalize("NFC", one_line(title))).split())
    stem = stem.lstrip(". ")
    cut = stem[:MAX_NAME_CHARS]
    while len(cut.encode("utf-8")) > MAX_NAME_BYTES:
        cut = cut[:-1]
    stem = cut.rstrip(". ")
    if stem.split(".")[0].strip().upper() in _RESERVED:
        stem = "_" + stem
    return stem


def _split(text: str) -> tuple[list[str] | None, str]:
    """(front-matter lines, or None when the note has none; the rest of the text)."""
    if not text.startswith("---\n"):
        return None, text
    end = text.find("\n---\n", 3)
    if end < 0:
        if text.endswith("\n---"):
            return text[4:-4].split("\n"), ""
        return None, text
    return text[4:end].split("\n"), text[end + 5 :]


def _foreign(lines: list[str]) -> list[str]:
    """The front-matter lines of properties desk does not write (a key line and the lines under it)."""
    kept: list[str] = []
    keep = False
    for line in lines:
        top = _TOP_KEY.match(line)
        if top:
            keep = top.group(1).strip() not in KEYS
        if keep:
            kept.append(line)
    return kept


def note_text(paper: PaperDetail, old: str | None) -> str:
    """The whole note of ``paper``: desk's front matter and text, the marker, and (from the note's
    ``old`` text, when there is one) the user's properties and everything below the marker."""
    props = front_matter(paper)
    below = ""
    if old is not None:
        lines, rest = _split(old)
        props += _foreign(lines or [])
        below = _below_marker(rest)
    return "---\n" + "\n".join(props) + "\n---\n" + desk_text(paper) + f"\n\n{MARKER}\n" + below


def _below_marker(text: str) -> str:
    """What stands below the marker line in a note's text; all of it when the marker is gone."""
    padded = f"\n{text}\n"
    at = padded.find(f"\n{MARKER}\n")
    if at < 0:
        return text  # the marker was deleted: all of the old text is kept, below a new one
    return padded[at + len(MARKER) + 2 : -1]


def _existing(folder: Path) -> tuple[dict[int, Path], set[str]]:
    """(paper id -> its note, the folder's names casefolded) of the notes desk wrote in ``folder``."""
    notes: dict[int, Path] = {}
    taken: set[str] = set()
    for entry in sorted(os.scandir(folder), key=lambda e: e.name):
        taken.add(unicodedata.normalize("NFC", entry.name).casefold())
        if not entry.name.endswith(".md") or not entry.is_file():
            continue
        try:
            with open(entry.path, "rb") as fh:
                head = fh.read(HEAD_BYTES).decode("utf-8", errors="replace")
        except OSError:
            continue
        lines, _ = _split(head)
        if lines is None:
            continue
        found = _ID_LINE.search("\n".join(lines))
        if found:
            notes.setdefault(int(found.group(1)), Path(entry.path))  # a copy of a note is the user's
    return notes, taken


def _new_name(paper: PaperDetail, taken: set[str]) -> str:
    stem = file_stem(paper.title) or f"paper {paper.id}"
    name = f"{stem}.md"
    n = 0
    while name.casefold() in taken:
        n += 1
        name = f"{stem} ({paper.id}).md" if n == 1 else f"{stem} ({paper.id}-{n}).md"
    taken.add(name.casefold())
    return name


def export_vault(papers: Sequence[PaperDetail], folder: Path) -> VaultReport:
    """Write (or rewrite) one note per paper in ``folder``, made when missing; see the module doc."""
    if folder.exists() and not folder.is_dir():
        raise DeskError(f"{shown_path(folder)} is not a folder; give a folder for the notes (-o DIR)")
    report = VaultReport(folder)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        notes, taken = _existing(folder)
    except OSError as exc:
        raise DeskError(f"{shown_path(folder)} could not be read: {exc.strerror or exc}") from exc
    for paper in papers:
        path = notes.get(paper.id)
        old: str | None = None
        if path is not None:
            try:
                old = path.read_text(encoding="utf-8")
            except UnicodeDecodeError:
                report.left.append(f"{path.name}: not UTF-8 text, left as it was")
                continue
            except OSError as exc:
                report.left.append(f"{path.name}: {exc.strerror or exc}, left as it was")
                continue
        else:
            path = folder / _new_name(paper, taken)
        text = note_text(paper, old)
        if text == old:
            report.unchanged += 1
            continue
        write_text(path, text)
        if old is None:
            report.added += 1
        else:
            report.updated += 1
    return report
