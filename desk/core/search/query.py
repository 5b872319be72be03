"""The query language: a forgiving tokenizer and parser (compiler.py turns its tree into a plan).

Grammar (loosest first)::

    query  := orexp*                 parts side by side: coordination ranking
    orexp  := andexp ("OR" andexp)*
    andexp := unary ("AND" unary)*
    unary  := ("NOT" | "-") unary | atom
    atom   := "(" query ")" | '"phrase"' | field:word | field:"phrase" | word | prefix*
            | tag:name | tag:"two words" | has:tag
            | in:"a collection" | saved:"a saved search" | cluster:3 | cluster:"its label"
            | near:ID

Nothing here raises on user input: what does not parse is searched as words,
dropped, or both, and a plain-words note is left in ``ParsedQuery.messages``.

A query being typed is not a broken one. Its unfinished end -- an open quote, a
trailing ``field:``, ``is:sta``, ``AND``/``OR``/``NOT`` or ``-``, an open
parenthesis -- is described by one short ``ParsedQuery.hint`` instead: what is
complete is searched, an open quote's words as the start of a phrase (its last
word a prefix), and the rest waits for more typing.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace

MAX_PARTS = 64  # query parts kept; a pasted essay must not cost seconds
MAX_DEPTH = 16  # parenthesis nesting kept
MIN_PREFIX = 2  # "a*" would expand to half the lexicon
MIN_COMPLETION = 3  # a word being typed completes to longer words from its third letter

# Field name typed -> index fields searched. A new field is one line here (and, for a
# field searched otherwise than as text, a branch in compiler.py).
FIELDS: dict[str, tuple[str, ...]] = {
    "title": ("title",),
    "abstract": ("abstract",),
    "note": ("note",),
    "notes": ("note",),
    "short": ("short_name", "short_kw"),
    "name": ("short_name", "short_kw"),
    "collection": ("collections",),
    "collections": ("collections",),
}
# Filter typed -> (flag field of the index, value required).
FILTERS: dict[str, tuple[str, bool]] = {
    "is:starred": ("starred", True),
    "is:unstarred": ("starred", False),
    "is:read": ("read", True),
    "is:unread": ("read", False),
    "has:note": ("has_note", True),
    "has:notes": ("has_note", True),
}
OPERATORS = ("OR", "AND", "NOT")
TAG_FIELDS = ("tag", "tags")  # tag:name, tag:"two words"
# in:"ICML 2026 Papers" (exactly that collection), saved:"name" (a saved search's matches): both
# answered by the database at query time, like tag: (the sidebar's entries are these filters).
# author:name, year:2023 / year:>2021, venue:icml: a rich list's metadata, in the database too.
CITATION_FIELDS = ("author", "authors", "year", "venue")
# cluster:3 or cluster:"point cloud, LiDAR": the papers of a cluster of the library's map;
# near:42: the papers nearest paper 42 on the map.
SCOPE_FIELDS = ("in", "saved", "cluster", "near", *CITATION_FIELDS)
ANY_TAG = ("has:tag", "has:tags")
FILTER_FIELDS = frozenset(f.partition(":")[0] for f in FILTERS)  # "is", "has"

_SCOPE_WHAT = {
    "in": "a collection's name", "author": "an author's name", "authors": "an author's name",
    "year": "a year (2023, >2021)", "venue": "a venue's name", "cluster": "a cluster's number or label",
    "near": "a paper's id",
}  # fmt: skip
_FIELD_RE = re.compile(r"([A-Za-z]+):(.*)", re.DOTALL)
_WORD_RE = re.compile(r"\w+(?:\.?\w+)*")
_SPECIAL = frozenset('()"')
_SURROGATE_RE = re.compile("[\ud800-\udfff]")


# ---- syntax tree ----------------------------------------------------------------


@dataclass(frozen=True)
class Word:
    """A word of the query (in a field, a prefix, the word being typed)."""

    text: str
    field: str | None = None  # key of FIELDS
    prefix: bool = False
    start: int = 0  # offset of text in the query string
    end: int = 0
    spell: bool = True  # False: never spell-corrected (a field name, the word being typed)
    completes: bool = False  # the word being typed: also the start of longer words ("title:gra")


@dataclass(frozen=True)
class PhraseNode:
    """A quoted phrase (in a field; an open quote being typed ends in a prefix)."""

    text: str
    field: str | None = None
    start: int = 0
    end: int = 0
    prefix: bool = False  # an open quote being typed: its last word is the start of a word


@dataclass(frozen=True)
class Filter:
    """is:starred, is:unread, has:note (FILTERS): a flag of the paper's, true or false."""

    fieldname: str
    value: bool


@dataclass(frozen=True)
class TagFilter:
    """Papers carrying the tag ``name`` (None: carrying any tag); resolved from the database."""

    name: str | None


@dataclass(frozen=True)
class ScopeFilter:
    """Papers of the collection ``name`` (``kind`` "in") or matching the saved search ``name``
    (``kind`` "saved"); resolved from the database when the query is compiled."""

    kind: str
    name: str


@dataclass(frozen=True)
class NotNode:
    """What the paper must not match."""

    child: Node


@dataclass(frozen=True)
class AndNode:
    """Parts every match holds."""

    children: tuple[Node, ...]


@dataclass(frozen=True)
class OrNode:
    """Parts any of which a match holds."""

    children: tuple[Node, ...]


@dataclass(frozen=True)
class Group:
    """A parenthesised query."""

    children: tuple[Node, ...]


Node = Word | PhraseNode | Filter | TagFilter | ScopeFilter | NotNode | AndNode | OrNode | Group


@dataclass(frozen=True)
class Token:
    """A piece of the query string as the tokenizer cuts it, with where it stands."""

    kind: str  # "word" "phrase" "filter" "(" ")" "OR" "AND" "NOT" "-"
    text: str = ""
    field: str | None = None
    start: int = 0
    end: int = 0
    closed: bool = True
    spell: bool = True
    completes: bool = False


@dataclass
class ParsedQuery:
    """A parsed query string: top-level parts, notes on what did not parse, and the unfinished end."""

    parts: list[Node]
    messages: list[str] = field(default_factory=list)
    hint: str | None = None  # one short note on what is still being typed ("title:" alone, an open quote)

    @property
    def message(self) -> str | None:
        """The notes on what did not parse, as one text (None when all of it did)."""
        return " ".join(dict.fromkeys(self.messages)) or None


@dataclass
class _Notes:
    """What parsing found wrong (``problems``) and what is unfinished (``unfinished``, in order found)."""

    problems: list[str] = field(default_factory=list)
    unfinished: list[str] = field(default_factory=list)

    def hint(self) -> str | None:
        # The end of the string is what is being typed; an open parenthesis only when nothing else is.
        trailing = [h for h in self.unfinished if h != OPEN_PARENTHESIS]
        return trailing[-1] if trailing else (self.unfinished[0] if self.unfinished else None)


OPEN_PARENTHESIS = "A parenthesis is open; what is in it is searched."
NESTED_TOO_DEEP = f"Parentheses nest more than {MAX_DEPTH} deep; those deeper are read as if absent."


def _quoted(text: str) -> str:
    return f"“{text}”"


# ---- tokenizer --------------------------------------------------------------------


def _rest_blank(text: str, end: int) -> bool:
    """Nothing but white space after ``end``: the token there ends what was typed."""
    return not text[end:].strip()


def tokenize(text: str, notes: _Notes) -> list[Token]:
    """Split a query string into tokens; never raises."""
    tokens: list[Token] = []
    i, n = 0, len(text)
    pending_field: str | None = None
    while i < n:
        c = text[i]
        if c.isspace() or not c.isprintable():
            i += 1
            continue
        if c in "()":
            tokens.append(Token(c, start=i, end=i + 1))
            i += 1
            continue
        if c == '"':
            j = text.find('"', i + 1)
            closed = j >= 0
            end = j if closed else n
            tokens.append(Token("phrase", text[i + 1 : end], pending_field, i + 1, end, closed))
            pending_field = None
            i = end + 1
            continue
        if c in "-+" and i + 1 < n and not text[i + 1].isspace() and text[i + 1] not in "-+)":
            if c == "-":
                tokens.append(Token("-", start=i, end=i + 1))
            i += 1
            continue
        j = i
        while j < n and not text[j].isspace() and text[j] not in _SPECIAL:
            j += 1
        if j == i or text[i:j] in ("-", "+"):  # a lone "-" or "+"
            if c == "-" and _rest_blank(text, j):
                notes.unfinished.append("“-” needs a word after it.")
            i = max(j, i + 1)
            continue
        raw = text[i:j]
        tokens.extend(_word_tokens(raw, i, text, j, notes))
        pending_field = tokens[-1].field if tokens and tokens[-1].kind == "field" else None
        if pending_field is not None:
            tokens.pop()
        i = j
    return tokens


def _filters_starting(text: str) -> list[str]:
    """The filters ``text`` begins, one name per meaning ("has:notes" is "has:note")."""
    meanings: dict[tuple[str, bool], str] = {}
    for name, meaning in FILTERS.items():
        meanings.setdefault(meaning, name)
    return [name for name in [*meanings.values(), ANY_TAG[0]] if name.startswith(text)]


def _word_tokens(raw: str, start: int, text: str, end: int, notes: _Notes) -> list[Token]:
    if raw in OPERATORS:
        return [Token(raw, start=start, end=end)]
    lowered = raw.lower()
    if lowered in FILTERS:
        return [Token("filter", lowered, start=start, end=end)]
    if lowered in ANY_TAG:
        return [Token("tag", start=start, end=end)]
    m = _FIELD_RE.fullmatch(raw)
    if m:
        name = m.group(1).lower()
        rest = m.group(2)
        if name in TAG_FIELDS:
            if rest:
                return [Token("tag", rest, "tag", start, end)]
            if end < len(text) and text[end] == '"':
                return [Token("field", field="tag", start=start, end=end)]
            if _rest_blank(text, end):
                notes.unfinished.append(f"{_quoted(raw)} needs a tag's name after it.")
            else:
                notes.problems.append(f"{_quoted(raw)} needs a tag's name right after the colon.")
            return []
        if name in SCOPE_FIELDS:
            what = _SCOPE_WHAT.get(name, "a saved search's name")
            if rest:
                return [Token("scope", rest, name, start, end)]
            if end < len(text) and text[end] == '"':
                return [Token("field", field=name, start=start, end=end)]
            if _rest_blank(text, end):
                notes.unfinished.append(f"{_quoted(raw)} needs {what} after it.")
            else:
                notes.problems.append(f"{_quoted(raw)} needs {what} right after the colon.")
            return []
        if name in FIELDS:
            if rest:
                return [Token("word", rest, name, start + len(m.group(1)) + 1, end)]
            if end < len(text) and text[end] == '"':
                return [Token("field", field=name, start=start, end=end)]
            if _rest_blank(text, end):
                notes.unfinished.append(f"{_quoted(raw)} needs a word after it.")
            else:
                notes.problems.append(f"{_quoted(raw)} needs a word right after the colon.")
            return []
        if name in FILTER_FIELDS and (end == len(text) or (not rest and _rest_blank(text, end))):
            begun = _filters_starting(lowered)
            if begun:  # "is:sta" being typed
                notes.unfinished.append(f"Finish the filter: {', '.join(begun)}.")
                return []
        if name in FILTER_FIELDS:
            notes.problems.append(f"{_quoted(raw)} is not a known filter; it is searched as words.")
        # Not a field we know: both sides are searched as plain words (a field name is not corrected).
        split = start + len(m.group(1)) + 1
        words = [Token("word", m.group(1), None, start, split - 1, spell=False)]
        if rest:
            words.append(Token("word", rest, None, split, end))
        return words
    return [Token("word", raw, None, start, end)]


# ---- parser --------------------------------------------------------------------------


class _Parser:
    def __init__(self, tokens: list[Token], notes: _Notes) -> None:
        self.tokens = tokens
        self.pos = 0
        self.notes = notes
        self.depth = 0
        self.flattened = 0  # parentheses opened past MAX_DEPTH, read as if absent (with their closers)

    def peek(self) -> Token | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def sequence(self, inner: bool) -> list[Node]:
        parts: list[Node] = []
        while (tok := self.peek()) is not None:
            if tok.kind == ")":
                if inner and self.flattened:  # closes a parenthesis opened too deep: no group
                    self.flattened -= 1
                    self.pos += 1
                    continue
                if inner:
                    return parts
                self.notes.problems.append("A closing parenthesis has no opening one.")
                self.pos += 1
                continue
            if tok.kind in ("OR", "AND"):
                self.pos += 1
                self._dangling(tok.kind, "needs words on both sides.")
                continue
            node = self.or_expr()
            if node is not None:
                parts.append(node)
        return parts

    def _dangling(self, op: str, problem: str) -> None:
        """An operator with nothing usable after it: unfinished at the end of the query, else a problem."""
        if self.peek() is None:
            self.notes.unfinished.append(f"“{op}” needs a word after it.")
        else:
            self.notes.problems.append(f"“{op}” {problem}")

    def or_expr(self) -> Node | None:
        return self._binary("OR", self.and_expr, OrNode)

    def and_expr(self) -> Node | None:
        return self._binary("AND", self.unary, AndNode)

    def _binary(
        self, op: str, operand: Callable[[], Node | None], make: type[OrNode] | type[AndNode]
    ) -> Node | None:
        left = operand()
        children = [left] if left is not None else []
        while (tok := self.peek()) is not None and tok.kind == op:
            self.pos += 1
            nxt = self.peek()
            if nxt is None or nxt.kind in (")", "OR", "AND"):
                self._dangling(op, "needs words on both sides.")
                break
            right = operand()
            if right is not None:
                children.append(right)
        if not children:
            return None
        return children[0] if len(children) == 1 else make(tuple(children))

    def unary(self) -> Node | None:
        # A loop, not recursion: "NOT " typed a thousand times is one negation or none.
        negated = False
        while (tok := self.peek()) is not None and tok.kind in ("NOT", "-"):
            self.pos += 1
            nxt = self.peek()
            if nxt is None or nxt.kind in (")", "OR", "AND"):
                if tok.kind == "NOT":
                    self._dangling("NOT", "needs a word after it.")
                return None
            negated = not negated
        child = self.atom()
        if child is None or not negated:
            return child
        return child.child if isinstance(child, NotNode) else NotNode(child)

    def atom(self) -> Node | None:
        tok = self.peek()
        if tok is None:
            return None
        self.pos += 1
        if tok.kind == "(":
            if self.depth >= MAX_DEPTH:
                # Its words are searched in the enclosing group (a loop, not one more recursion),
                # and its closing parenthesis is taken as its own, not as one with no opening.
                self.flattened += 1
                if NESTED_TOO_DEEP not in self.notes.problems:
                    self.notes.problems.append(NESTED_TOO_DEEP)
                return None
            self.depth += 1
            parts = self.sequence(inner=True)
            self.depth -= 1
            closing = self.peek()
            if closing is not None and closing.kind == ")":
                self.pos += 1
            else:
                self.notes.unfinished.append(OPEN_PARENTHESIS)
            if not parts:
                return None
            return parts[0] if len(parts) == 1 else Group(tuple(parts))
        if tok.kind == "filter":
            fieldname, value = FILTERS[tok.text]
            return Filter(fieldname, value)
        if tok.kind == "tag" or (tok.kind == "phrase" and tok.field == "tag"):
            if tok.field is None:  # has:tag
                return TagFilter(None)
            name = " ".join(tok.text.split())
            if tok.kind == "phrase" and not tok.closed:  # a tag's name being typed: wait for the quote
                self.notes.unfinished.append(f"Quote open: the tag “{name}…” counts once it is closed.")
                return None
            return TagFilter(name) if name else None
        if tok.kind == "scope" or (tok.kind == "phrase" and tok.field in SCOPE_FIELDS):
            name = " ".join(tok.text.split())
            if tok.kind == "phrase" and not tok.closed:  # a name being typed: wait for the quote
                self.notes.unfinished.append(f"Quote open: {tok.field}:“{name}…” counts once it is closed.")
                return None
            return ScopeFilter(tok.field or "", name) if name else None
        if tok.kind == "phrase":
            return self.phrase(tok)
        if tok.kind == "word":
            return _word_node(tok)
        return None  # ")" "OR" "AND" are handled by the callers

    def phrase(self, tok: Token) -> Node | None:
        if tok.closed:
            return PhraseNode(tok.text, tok.field, tok.start, tok.end)
        # An open quote is a phrase being typed: its last word is the start of a word.
        typed = " ".join(tok.text.split())
        prefix = bool(typed) and not tok.text[-1].isspace()
        field_name = f"{tok.field}:" if tok.field else ""
        words = _WORD_RE.findall(tok.text)
        if not words or (prefix and len(words) == 1 and len(words[0]) < MIN_PREFIX):
            self.notes.unfinished.append("A quote is open: type the phrase.")
            return None
        if prefix:
            self.notes.unfinished.append(f"Quote open: {field_name}“{typed}…” is searched as a phrase start.")
        else:
            self.notes.unfinished.append(f"Quote open: {field_name}“{typed}” is searched as a phrase.")
        return PhraseNode(tok.text, tok.field, tok.start, tok.end, prefix=prefix)


def split_words(text: str, offset: int, fieldname: str | None) -> list[Word]:
    """The words of a phrase's text, each with its offsets in the query string (before ":", not corrected)."""
    return [
        Word(
            m.group(),
            fieldname,
            False,
            offset + m.start(),
            offset + m.end(),
            text[m.end() : m.end() + 1] != ":",
        )
        for m in _WORD_RE.finditer(text)
    ]


def _word_node(tok: Token) -> Node | None:
    text = tok.text
    prefix = text.endswith("*")
    stripped = text.rstrip("*")
    if "*" in stripped:  # an inner "*" is punctuation, not a wildcard
        stripped = stripped.replace("*", " ")
    if not stripped.strip():
        return None
    completes = tok.completes and not prefix and len(stripped) >= MIN_COMPLETION
    return Word(stripped, tok.field, prefix, tok.start, tok.start + len(stripped), tok.spell, completes)


def clean_query(text: str) -> str:
    """``text`` without what no query can mean: lone surrogates (undecodable bytes of a command line)."""
    if text.isascii():
        return text
    return _SURROGATE_RE.sub("", text)


def parse(text: str, typing: bool = False) -> ParsedQuery:
    """Parse a query string; never raises.

    ``typing``: the query is being typed (search as you type), so its last word, when nothing
    follows it, is unfinished: never spell-corrected, and searched as the start of longer words
    too ("title:gra" finds "graph"), as a prefix would.
    """
    notes = _Notes()
    tokens = tokenize(text, notes)
    if typing and tokens and tokens[-1].kind == "word" and tokens[-1].end == len(text):
        tokens[-1] = replace(tokens[-1], spell=False, completes=True)
    parser = _Parser(tokens, notes)
    parts = parser.sequence(inner=False)
    if len(parts) > MAX_PARTS:
        notes.problems.append(f"Only the first {MAX_PARTS} parts of a long query are searched.")
        parts = parts[:MAX_PARTS]
    return ParsedQuery(parts, notes.problems, notes.hint())
