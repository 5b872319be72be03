"""Acronyms the library defines ("neural architecture search (NAS)"), learned from its abstracts.

What one abstract defines is found in acronym_definitions.py (Schwartz and Hearst's method).
The store maps each short form to its long forms with the number of documents defining it.
It is derived data kept beside the index (``acronyms.json``: a format number, the entries and
their SHA-256); an unreadable or altered file reads as CORRUPT and the index is rebuilt.
Format 2 starts with what a search needs: the definitions, how many documents define each, and
the order they first appear in; then the rows as three flat lists of numbers (each row's doc id,
how many definitions it has, every row's definition indexes in turn). A search parses only the
first three (``JSONDecoder.raw_decode`` member by member, the whole text checksummed); the rows
are parsed when an edit needs them and must agree with the counts and the order. Format 1 (a
list per document: at 100k papers ~75 ms to parse and check in every `desk search`) is still
read, and the next save writes format 2.
Counts grow as papers are indexed and are recomputed by a rebuild (a deleted paper's
definitions stay until then, as the lexicon's words do).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from array import array
from bisect import bisect_left
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import accumulate, chain
from pathlib import Path
from typing import TYPE_CHECKING, Any

from desk.core.search.acronym_definitions import Definition, normal_short, stems
from desk.core.search.names import ACRONYMS_NAME  # noqa: F401 (its home before names.py)

if TYPE_CHECKING:  # index workers load this module: the query parser stays out of them
    from desk.core.search.query import Word

FORMAT = 2
FORMATS_READ = (1, 2)  # 1: a list per document ([doc id, index, ...]), as desk wrote it before
MAX_LONG_FORMS = 3  # long forms kept per short form (the most defined first)
MIN_SHARE = 0.2  # a long form defined by less than this share of the short form's definitions is noise


# short form (lowercased) -> its definitions' counts; a long form's stems -> its short forms' counts
_Tables = tuple[dict[str, dict[Definition, int]], dict[tuple[str, ...], dict[str, int]]]


@dataclass(frozen=True)
class Expansion:
    """One long form of a short form: its stemmed words and how many documents define it."""

    short: str
    long: str
    stems: tuple[str, ...]
    documents: int


class Acronyms:
    """The acronym definitions of each indexed document, and what they add up to (see the module doc)."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path
        self._by_doc: dict[int, frozenset[Definition]] = {}
        # The file as read, until by_doc is wanted: its definitions and its rows (doc ids
        # ascending, each with its definitions' indexes; _Rows: flat arrays, not a list per
        # document: 481k rows held ~110 MB at a million papers as lists, ~12 MB as arrays). A
        # search counts definitions from the rows; an edit of a paper whose definitions stay the
        # same finds them by bisection: neither builds a frozenset per document (48k at 100k).
        self._file: _Stored | None = None
        self._stamp: tuple[int, int] | None = None
        self._tables: (
            tuple[dict[str, dict[Definition, int]], dict[tuple[str, ...], dict[str, int]]] | None
        ) = None
        self._memo: dict[str, list[Expansion]] = {}

    @property
    def by_doc(self) -> dict[int, frozenset[Definition]]:
        """Document id -> the definitions its abstract holds (documents with none left out)."""
        if self._file is not None:
            defs, rows = self._file.defs, self._file.rows()
            if rows is None:  # rows that disagree with the file's counts: read() decides
                self._by_doc = (read(self.path) if self.path is not None else None) or {}
            else:
                self._by_doc = {doc: frozenset(defs[k] for k in rows.of(i)) for i, doc in enumerate(rows.ids)}
            self._file, self._tables = None, None
        return self._by_doc

    @by_doc.setter
    def by_doc(self, value: dict[int, frozenset[Definition]]) -> None:
        self._by_doc, self._file = value, None

    def __len__(self) -> int:
        return len(self.by_doc)

    def __bool__(self) -> bool:
        return bool(self._file.defs) if self._file is not None else bool(self._by_doc)  # a row each

    def _defs_of(self, doc_id: int) -> frozenset[Definition]:
        """One document's definitions (by_doc.get), without building the others'."""
        if self._file is None:
            return self._by_doc.get(doc_id, frozenset())
        defs, rows = self._file.defs, self._file.rows()
        if rows is None:
            return self.by_doc.get(doc_id, frozenset())
        ids = rows.ids
        at = bisect_left(ids, doc_id)
        if at < len(ids) and ids[at] == doc_id:
            return frozenset(defs[k] for k in rows.of(at))
        return frozenset()

    def counts(self) -> Counter[Definition]:
        """Documents defining each (short form, long form)."""
        total: Counter[Definition] = Counter()
        for found in self.by_doc.values():
            total.update(found)
        return total

    def set_docs(self, found: Mapping[int, Iterable[Definition]]) -> bool:
        """Record the definitions of these documents (replacing what they had); True when that changed."""
        changed = False
        for doc_id, defs in found.items():
            new = frozenset(defs)
            if self._defs_of(doc_id) != new:
                changed = True
                if new:
                    self.by_doc[doc_id] = new
                else:
                    del self.by_doc[doc_id]
        if changed:
            self._tables = None
        return changed

    def drop(self, ids: Iterable[int]) -> bool:
        """Forget removed documents; True when one had definitions."""
        return self.set_docs({i: () for i in ids})

    # ---- the file ---------------------------------------------------------------------

    def save(self, path: Path | None = None) -> None:
        """Write atomically (temp file + replace), with the payload's checksum."""
        target = path or self.path
        if target is None:
            return
        defs = sorted({d for found in self.by_doc.values() for d in found})
        number = {d: k for k, d in enumerate(defs)}
        ids = sorted(self.by_doc)
        rows = [sorted(number[d] for d in self.by_doc[doc_id]) for doc_id in ids]
        flat = list(chain.from_iterable(rows))
        counts, order = _summed(len(defs), flat)
        sizes = [len(row) for row in rows]
        summary = {"defs": defs, "counts": counts, "order": order}
        body = _dump({**summary, "ids": ids, "sizes": sizes, "flat": flat})
        digest = hashlib.sha256(body.encode("utf-8")).hexdigest()
        data = f'{{"format":{FORMAT},"sha256":"{digest}","payload":{body}}}'
        tmp = target.with_name(target.name + ".tmp")
        tmp.write_text(data, encoding="utf-8")
        os.replace(tmp, target)
        if target == self.path:
            st = target.stat()
            self._stamp = (st.st_mtime_ns, st.st_size)

    def rows_unread(self) -> bool:
        """Whether the rows (each document's definitions; ~25 ms to parse at 100k) are unparsed."""
        return self._file is not None and self._file.parsed is False

    def needs_read(self) -> bool:
        """Whether refresh() would read the file (it changed since it was read, or never was)."""
        if self.path is None:
            return False
        try:
            st = self.path.stat()
        except OSError:
            return False
        return (st.st_mtime_ns, st.st_size) != self._stamp

    def refresh(self) -> None:
        """Reload when another writer changed the file; a missing or bad file reads as empty."""
        if self.path is None:
            return
        try:
            st = self.path.stat()
        except OSError:
            self.by_doc, self._stamp, self._tables = {}, None, None
            return
        stamp = (st.st_mtime_ns, st.st_size)
        if stamp == self._stamp:
            return
        stored = _read_stored(self.path)
        if stored is not None:
            self._by_doc, self._file = {}, stored
        else:
            self.by_doc = read(self.path) or {}
        self._stamp, self._tables = stamp, None

    # ---- looking up -------------------------------------------------------------------

    def _lookup(self) -> _Tables:
        """short form (lowercased) -> its definitions' counts; long form's stems -> short forms' counts."""
        if self._tables is None:
            by_short: dict[str, dict[Definition, int]] = {}
            by_stems: dict[tuple[str, ...], dict[str, int]] = {}
            if self._file is not None:
                # Each definition once, with the documents holding it, in the order the documents
                # first hold them: the walk below's order (ties between long forms rank alike).
                defs, counts = self._file.defs, self._file.counts
                counted = [(defs[k], counts[k]) for k in self._file.order]
            else:
                # A document's own definitions in sorted order (the file's), not its set's: a set
                # of strings iterates in an order of their hashes, which differ process to process.
                counted = [(d, 1) for found in self._by_doc.values() for d in sorted(found)]
            for d, n in counted:
                key = d[0].lower()
                forms = by_short.setdefault(key, {})
                forms[d] = forms.get(d, 0) + n
                shorts = by_stems.setdefault(tuple(d[2].split()), {})
                shorts[key] = shorts.get(key, 0) + n
            self._tables = (by_short, by_stems)
            self._memo.clear()
        return self._tables

    def expansions(self, short: str) -> list[Expansion]:
        """The long forms of ``short`` (any case), most defined first."""
        key = normal_short(short).lower()
        by_short = self._lookup()[0]
        kept = self._memo.get(key)
        if kept is None:
            grouped: Counter[tuple[str, ...]] = Counter()
            surface: dict[tuple[str, ...], Counter[str]] = {}
            for (_, long, stemmed), n in by_short.get(key, {}).items():
                found = tuple(stemmed.split())
                grouped[found] += n
                surface.setdefault(found, Counter())[long] += n
            total = sum(grouped.values())
            kept = self._memo[key] = [
                Expansion(key, surface[found].most_common(1)[0][0], found, n)
                for found, n in grouped.most_common(MAX_LONG_FORMS)
                if n >= MIN_SHARE * total and len(found) >= 2
            ]
        return kept

    def short_form(self, stems: Iterable[str]) -> Expansion | None:
        """The definition whose long form has exactly these stemmed words, or None."""
        found = tuple(stems)
        shorts = self._lookup()[1].get(found)
        if not shorts:
            return None
        best = max(sorted(shorts), key=shorts.__getitem__)
        return next((e for e in self.expansions(best) if e.stems == found), None)

    @property
    def longest(self) -> int:
        """The most words a known long form has (how far a query is scanned for one)."""
        return max(map(len, self._lookup()[1]), default=0)


def _dump(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


class _Rows:
    """Rows of an acronyms file as flat arrays: doc ids (ascending), where each row's definition
    indexes start in ``flat``, and those indexes, row after row."""

    def __init__(self, ids: Sequence[int], sizes: Iterable[int], flat: Iterable[int]) -> None:
        self.ids = array("q", ids)
        self.starts = array("q", accumulate(sizes, initial=0))
        self.flat = array("i", flat)  # < len(defs)

    def of(self, i: int) -> array[int]:
        """The definition indexes of row ``i``."""
        return self.flat[self.starts[i] : self.starts[i + 1]]


def _summed(count: int, flat: Sequence[int]) -> tuple[list[int], list[int]]:
    """(documents defining each of ``count`` definitions, the definitions in the order rows first
    hold them) of every row's definition indexes."""
    held = Counter(flat)
    return [held[k] for k in range(count)], list(dict.fromkeys(flat))


class _Stored:
    """An acronyms file as save() writes it: its definitions, how many documents define each and
    the order rows first hold them (a search's part), and its rows, parsed when first wanted
    (``rows``: None when they are not as save() writes them or disagree with the counts)."""

    def __init__(
        self, defs: list[Definition], counts: list[int], order: list[int], rows: Callable[[], _Rows | None]
    ) -> None:
        self.defs, self.counts, self.order = defs, counts, order
        self._rows: _Rows | None = None
        self._parse: Callable[[], _Rows | None] | None = rows

    @property
    def parsed(self) -> bool:
        """Whether rows() has parsed the rows."""
        return self._parse is None

    def rows(self) -> _Rows | None:
        """The rows, parsed the first time (None: not as save() writes them)."""
        if self._parse is not None:
            self._rows, self._parse = self._parse(), None
        return self._rows


_DECODER = json.JSONDecoder()
SUMMARY = ("defs", "counts", "order")  # format 2's first members: what a search reads


def _checked_body(text: str) -> tuple[int, str] | None:
    """(format, payload text) of an acronyms file's text as save() writes it (the payload's very
    text checksummed: nothing dumped again), None for any other text (read() then decides)."""
    for number in FORMATS_READ:
        head = f'{{"format":{number},"sha256":"'
        if text.startswith(head):
            break
    else:
        return None
    at = len(head) + 64
    if not text.startswith('","payload":', at) or not text.endswith("}"):
        return None
    body = text[at + len('","payload":') : -1]
    if hashlib.sha256(body.encode("utf-8")).hexdigest() != text[len(head) : at]:
        return None
    return number, body


def _summary(body: str) -> tuple[list[Definition], list[int], list[int]] | None:
    """Format 2's definitions, counts and order, parsed member by member from the payload's start
    (the rows after them are not parsed); None unless the three are as save() writes them."""
    values: list[Any] = []
    at = 0
    for k, name in enumerate(SUMMARY):
        key = ('{"' if k == 0 else ',"') + name + '":'
        if not body.startswith(key, at):
            return None
        value, at = _DECODER.raw_decode(body, at + len(key))
        values.append(value)
    defs = [(str(short), str(long), str(stemmed)) for short, long, stemmed in values[0]]
    counts, order = values[1], values[2]
    if not (
        isinstance(counts, list)
        and isinstance(order, list)
        and set(map(type, counts)) <= {int}
        and len(counts) == len(defs) == len(order) == len(set(defs))
        and (not counts or min(counts) >= 1)
        and set(order) == set(range(len(defs)))
    ):
        return None
    return defs, counts, order


def _flat_rows(number: int, payload: dict[str, Any]) -> tuple[list[int], list[int], list[int]]:
    """(doc ids, definitions per row, every row's definition indexes) of a payload of format ``number``."""
    if number == 1:
        rows = payload["docs"]
        flat = list(chain.from_iterable(row[1:] for row in rows))
        return [row[0] for row in rows], [len(row) - 1 for row in rows], flat
    ids, sizes, flat = payload["ids"], payload["sizes"], payload["flat"]
    if not (isinstance(ids, list) and isinstance(sizes, list) and isinstance(flat, list)):
        raise TypeError("the rows are not lists")
    return ids, sizes, flat


def _rows_of(number: int, body: str, count: int) -> _Rows | None:
    """The rows of a payload holding ``count`` definitions: doc ids and indexes whole numbers in
    range, doc ids ascending, every row holding a definition; None for anything else."""
    try:
        payload = json.loads(body)
        ids, sizes, flat = _flat_rows(number, payload)
        if not (  # C-speed checks: rows of whole numbers, defs in range, doc ids ascending
            set(map(type, ids)) <= {int}
            and set(map(type, sizes)) <= {int}
            and set(map(type, flat)) <= {int}
            and len(sizes) == len(ids)
            and (not sizes or min(sizes) >= 1)
            and sum(sizes) == len(flat)
            and (not flat or (min(flat) >= 0 and max(flat) < count))
            and ids == sorted(set(ids))
        ):
            return None
        return _Rows(ids, sizes, flat)
    except (ValueError, KeyError, TypeError, IndexError, AttributeError, OverflowError):
        return None


def _read_stored(path: Path) -> _Stored | None:
    """An acronyms file as save() writes it (see _Stored), None for anything else (read() decides).

    Format 2: the summary now, the rows when wanted, checked then against the counts and order.
    Format 1: the rows now, and the counts and order summed from them."""
    try:
        checked = _checked_body(path.read_text(encoding="utf-8"))
        if checked is None:
            return None
        number, body = checked
        if number == 1:
            defs = [(str(a), str(b), str(c)) for a, b, c in json.loads(body)["defs"]]
            rows = _rows_of(1, body, len(defs))
            if rows is None or len(set(defs)) != len(defs):
                return None
            counts, order = _summed(len(defs), rows.flat)
            return _Stored(defs, counts, order, lambda: rows)
        summary = _summary(body)
        if summary is None:
            return None
        defs, counts, order = summary

        def agreeing_rows() -> _Rows | None:
            rows = _rows_of(2, body, len(defs))
            return rows if rows is not None and _summed(len(defs), rows.flat) == (counts, order) else None

        return _Stored(defs, counts, order, agreeing_rows)
    except (OSError, ValueError, KeyError, TypeError, IndexError, AttributeError, OverflowError):
        return None


def read(path: Path) -> dict[int, frozenset[Definition]] | None:
    """The definitions in an acronyms file; None when absent, unreadable, of another format or altered."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        payload = data["payload"]
        digest = hashlib.sha256(_dump(payload).encode("utf-8")).hexdigest()
        number = data.get("format")
        if number not in FORMATS_READ or data.get("sha256") != digest:
            return None
        defs = [(str(short), str(long), str(stemmed)) for short, long, stemmed in payload["defs"]]
        ids, sizes, flat = _flat_rows(number, payload)
        if len(sizes) != len(ids) or sum(sizes) != len(flat):
            return None
        if number != 1 and _summed(len(defs), flat) != (payload["counts"], payload["order"]):
            return None
        starts = list(accumulate(sizes, initial=0))
        return {
            int(doc): frozenset(defs[k] for k in flat[starts[i] : starts[i + 1]]) for i, doc in enumerate(ids)
        }
    except (OSError, ValueError, KeyError, TypeError, IndexError):
        return None


# ---- a query's acronyms and long forms ------------------------------------------------------

#: The score of an acronym's long form (or a long form's acronym) searched for a typed word, as a
#: share of the typed word's: found papers join the results, below those holding the typed word.
WEIGHT = 0.5
#: A lowercase word ("nerf", "cat") is taken for the acronym only when at least this share of
#: the papers holding it define the acronym, and two papers do.
LOWERCASE_SHARE = 0.25
_GAP = re.compile(r"[\s\-]*")


def query_alternatives(
    acronyms: Acronyms,
    query: str,
    words: Sequence[Word],
    word_documents: Callable[[str], int],
) -> dict[tuple[int, int], list[tuple[tuple[str, ...], float]]]:
    """(start, end) of typed words -> (stems, factor) to search as well, for compile_query.

    A typed acronym ("NAS") is also searched as its long forms' phrases, each at WEIGHT over
    its length in words (a phrase scores about one of its words a word); typed long-form words
    ("neural architecture search") are also searched as the acronym, WEIGHT shared between them.
    ``word_documents``: papers holding a lowercased word (the lexicon).
    """
    plain = [w for w in words if w.field is None and not w.prefix and query[w.start : w.end] == w.text]
    if not plain or not acronyms:
        return {}
    out: dict[tuple[int, int], list[tuple[tuple[str, ...], float]]] = {}
    typed = {s for w in plain for s in stems(w.text)}
    for w in plain:
        found = acronyms.expansions(w.text)
        if not found or (w.text.islower() and not _lowercase_means_acronym(w.text, found, word_documents)):
            continue
        for e in found:
            if not set(e.stems) <= typed:
                out.setdefault((w.start, w.end), []).append((e.stems, WEIGHT / len(e.stems)))
    longest = acronyms.longest
    word_stems = [stems(w.text) for w in plain]
    for i in range(len(plain)):
        run: list[str] = []
        for j in range(i, len(plain)):
            if j > i and not _GAP.fullmatch(query, plain[j - 1].end, plain[j].start):
                break
            run.extend(word_stems[j])
            if len(run) > longest:
                break
            named = acronyms.short_form(run) if len(run) >= 2 else None
            short = stems(named.short) if named is not None else ()
            if len(short) == 1 and short[0] not in typed:
                for w in plain[i : j + 1]:
                    out.setdefault((w.start, w.end), []).append((tuple(short), WEIGHT / (j + 1 - i)))
    return out


def _lowercase_means_acronym(word: str, found: list[Expansion], word_documents: Callable[[str], int]) -> bool:
    defined = sum(e.documents for e in found)
    return defined >= 2 and defined >= LOWERCASE_SHARE * max(1, word_documents(word))
