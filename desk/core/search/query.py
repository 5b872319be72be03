"""The query language: a forgiving tokenizer and parser (compiler.py turns its tree into a plan).

Grammar (loosest first)::

    query  := orexp*                 parts side by side: coordination ranking
    orexp  := andexp ("OR" andexp)*
    andexp := unary ("AND" unary)*
    unary  := ("NOT" | "-") unary | atom
    atom   := "(" query ")" | '"phrase"' | field:word | field:"phrase" | word | prefix*
            | tag:name | tag:"two words" | has:tag

Nothing here raises on user input: what does not parse is searched as words,
dropped, or both, and a plain-words note is left in ``ParsedQuery.messages``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

MAX_PARTS = 64  # query parts kept; a pasted essay must not cost seconds
MAX_DEPTH = 16  # parenthesis nesting kept
MIN_PREFIX = 2  # "a*" would expand to half the lexicon

# field name typed -> index fields searched
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
ANY_TAG = ("has:tag", "has:tags")

_FIELD_RE = re.compile(r"([A-Za-z]+):(.*)", re.DOTALL)
_WORD_RE = re.compile(r"\w+(?:\.?\w+)*")
_SPECIAL = frozenset('()"')


# ---- syntax tree ----------------------------------------------------------------


@dataclass(frozen=True)
class Word:
    text: str
    field: str | None = None  # key of FIELDS
    prefix: bool = False
    start: int = 0  # offset of text in the query string
    end: int = 0


@dataclass(frozen=True)
class PhraseNode:
    text: str
    field: str | None = None
    start: int = 0
    end: int = 0


@dataclass(frozen=True)
class Filter:
    fieldname: str
    value: bool


@dataclass(frozen=True)
class TagFilter:
    """Papers carrying the tag ``name`` (None: carrying any tag); resolved from the database."""

    name: str | None


@dataclass(frozen=True)
class NotNode:
    child: Node


@dataclass(frozen=True)
class AndNode:
    children: tuple[Node, ...]


@dataclass(frozen=True)
class OrNode:
    children: tuple[Node, ...]


@dataclass(frozen=True)
class Group:
    children: tuple[Node, ...]


Node = Word | PhraseNode | Filter | TagFilter | NotNode | AndNode | OrNode | Group


@dataclass(frozen=True)
class Token:
    kind: str  # "word" "phrase" "filter" "(" ")" "OR" "AND" "NOT" "-"
    text: str = ""
    field: str | None = None
    start: int = 0
    end: int = 0
    closed: bool = True


@dataclass
class ParsedQuery:
    """A parsed query string: top-level parts plus notes on what did not parse."""

    parts: list[Node]
    messages: list[str] = field(default_factory=list)

    @property
    def message(self) -> str | None:
        return " ".join(dict.fromkeys(self.messages)) or None


# ---- tokenizer --------------------------------------------------------------------


def tokenize(text: str, messages: list[str]) -> list[Token]:
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
            if not closed:
                messages.append("A quote is not closed; its words are searched one by one.")
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
        if j == i:  # a lone "-" or "+" before a space
            i += 1
            continue
        raw = text[i:j]
        tokens.extend(_word_tokens(raw, i, text, j, messages))
        pending_field = tokens[-1].field if tokens and tokens[-1].kind == "field" else None
        if pending_field is not None:
            tokens.pop()
        i = j
    return tokens


def _word_tokens(raw: str, start: int, text: str, end: int, messages: list[str]) -> list[Token]:
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
            messages.append(f"“{raw}” needs a tag's name right after the colon.")
            return []
        if name in FIELDS:
            if rest:
                return [Token("word", rest, name, start + len(m.group(1)) + 1, end)]
            if end < len(text) and text[end] == '"':
                return [Token("field", field=name, start=start, end=end)]
            messages.append(f"“{raw}” needs a word right after the colon.")
            return []
        if name in ("is", "has"):
            messages.append(f"“{raw}” is not a known filter; it is searched as words.")
        # Not a field we know: both sides are searched as plain words.
        split = start + len(m.group(1)) + 1
        words = [Token("word", m.group(1), None, start, split - 1)]
        if rest:
            words.append(Token("word", rest, None, split, end))
        return words
    return [Token("word", raw, None, start, end)]


# ---- parser --------------------------------------------------------------------------


class _Parser:
    def __init__(self, tokens: list[Token], messages: list[str]) -> None:
        self.tokens = tokens
        self.pos = 0
        self.messages = messages
        self.depth = 0

    def peek(self) -> Token | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def sequence(self, inner: bool) -> list[Node]:
        parts: list[Node] = []
        while (tok := self.peek()) is not None:
            if tok.kind == ")":
                if inner:
                    return parts
                self.messages.append("A closing parenthesis has no opening one.")
                self.pos += 1
                continue
            if tok.kind in ("OR", "AND"):
                self.messages.append(f"“{tok.kind}” needs words on both sides.")
                self.pos += 1
                continue
            node = self.or_expr()
            if node is not None:
                parts.append(node)
        return parts

    def or_expr(self) -> Node | None:
        return self._binary("OR", self.and_expr, OrNode)

    def and_expr(self) -> Node | None:
        return self._binary("AND", self.unary, AndNode)

    def _binary(self, op: str, operand: object, make: type[OrNode] | type[AndNode]) -> Node | None:
        left = operand()  # type: ignore[operator]
        children = [left] if left is not None else []
        while (tok := self.peek()) is not None and tok.kind == op:
            self.pos += 1
            nxt = self.peek()
            if nxt is None or nxt.kind in (")", "OR", "AND"):
                self.messages.append(f"“{op}” needs words on both sides.")
                break
            right = operand()  # type: ignore[operator]
            if right is not None:
                children.append(right)
        if not children:
            return None
        return children[0] if len(children) == 1 else make(tuple(children))

    def unary(self) -> Node | None:
        tok = self.peek()
        if tok is not None and tok.kind in ("NOT", "-"):
            self.pos += 1
            nxt = self.peek()
            if nxt is None or nxt.kind in (")", "OR", "AND"):
                if tok.kind == "NOT":
                    self.messages.append("“NOT” needs a word after it.")
                return None
            child = self.unary()
            if child is None:
                return None
            return child.child if isinstance(child, NotNode) else NotNode(child)
        return self.atom()

    def atom(self) -> Node | None:
        tok = self.peek()
        if tok is None:
            return None
        self.pos += 1
        if tok.kind == "(":
            if self.depth >= MAX_DEPTH:
                return None
            self.depth += 1
            parts = self.sequence(inner=True)
            self.depth -= 1
            closing = self.peek()
            if closing is not None and closing.kind == ")":
                self.pos += 1
            else:
                self.messages.append("A parenthesis is not closed.")
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
            return TagFilter(name) if name else None
        if tok.kind == "phrase":
            if tok.closed:
                return PhraseNode(tok.text, tok.field, tok.start, tok.end)
            words = split_words(tok.text, tok.start, tok.field)
            if not words:
                return None
            return words[0] if len(words) == 1 else Group(tuple(words))
        if tok.kind == "word":
            return _word_node(tok)
        return None  # ")" "OR" "AND" are handled by the callers


def split_words(text: str, offset: int, fieldname: str | None) -> list[Node]:
    return [
        Word(m.group(), fieldname, False, offset + m.start(), offset + m.end())
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
    return Word(stripped, tok.field, prefix, tok.start, tok.start + len(stripped))


def parse(text: str) -> ParsedQuery:
    """Parse a query string; never raises."""
    messages: list[str] = []
    tokens = tokenize(text, messages)
    parser = _Parser(tokens, messages)
    parts = parser.sequence(inner=False)
    if len(parts) > MAX_PARTS:
        messages.append(f"Only the first {MAX_PARTS} parts of a long query are searched.")
        parts = parts[:MAX_PARTS]
    return ParsedQuery(parts, messages)
