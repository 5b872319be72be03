"""The query language: a forgiving tokenizer and parser, compiled to Whoosh queries.

Grammar (loosest first)::

    query  := orexp*                 parts side by side: coordination ranking
    orexp  := andexp ("OR" andexp)*
    andexp := unary ("AND" unary)*
    unary  := ("NOT" | "-") unary | atom
    atom   := "(" query ")" | '"phrase"' | field:word | field:"phrase" | word | prefix*

Nothing here raises on user input: what does not parse is searched as words,
dropped, or both, and a plain-words note is left in ``ParsedQuery.messages``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from whoosh.analysis import StopFilter

from desk.core.search.ranking import All, Any_, Combine, Flag, Negate, PhraseTerms, Plan, Prefixes, Terms
from desk.core.search.rescore import QueryWord
from desk.core.search.schema import BOOSTS, TEXT_FIELDS, cached_stem, plain_analyzer, stem_analyzer

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

_STEM = stem_analyzer()
_PLAIN = plain_analyzer()
_SURFACE = plain_analyzer() | StopFilter()
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


Node = Word | PhraseNode | Filter | NotNode | AndNode | OrNode | Group


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
    m = _FIELD_RE.fullmatch(raw)
    if m:
        name = m.group(1).lower()
        rest = m.group(2)
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
        if tok.kind == "phrase":
            if tok.closed:
                return PhraseNode(tok.text, tok.field, tok.start, tok.end)
            words = _split_words(tok.text, tok.start, tok.field)
            if not words:
                return None
            return words[0] if len(words) == 1 else Group(tuple(words))
        if tok.kind == "word":
            return _word_node(tok)
        return None  # ")" "OR" "AND" are handled by the callers


def _split_words(text: str, offset: int, fieldname: str | None) -> list[Node]:
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


# ---- compiler ---------------------------------------------------------------------------


@dataclass
class Compiled:
    """The evaluation plan of a parsed query, plus what highlighting and spelling need."""

    plan: Combine
    terms: list[str]  # stemmed positive terms (highlighting)
    prefixes: list[str]  # positive prefixes, lowercased
    spell_words: list[Word]  # positive plain words a typo may hide in
    ranked: bool  # False: no positive part, hits are listed by id
    words: list[QueryWord] = field(default_factory=list)  # positive words in query order (rescoring)


def surface_words(text: str) -> list[tuple[str, str]]:
    """(stem, lowercased word) of each indexed word of ``text``, stop words left out."""
    return [(cached_stem(t.text), t.text) for t in _SURFACE(text)]


def analyze(text: str) -> list[str]:
    """Stemmed index terms of ``text``, as the stemmed fields index them."""
    return [t.text for t in _STEM(text)]


def _boosted(fields: tuple[str, ...]) -> tuple[tuple[str, float], ...]:
    return tuple((f, BOOSTS.get(f, 1.0)) for f in fields if f != "short_kw")


def _phrases(fields: tuple[str, ...], toks: list[str]) -> Plan:
    return PhraseTerms(_boosted(fields), tuple(toks))


def _join(kind: type[All] | type[Any_], subs: list[Plan]) -> Plan | None:
    if not subs:
        return None
    return subs[0] if len(subs) == 1 else kind(tuple(subs))


class _Compiler:
    def __init__(self, alternatives: Mapping[tuple[int, int], str] | None = None) -> None:
        self.alternatives = alternatives or {}
        self.terms: list[str] = []
        self.words: list[QueryWord] = []
        self.slot = 0
        self.prefixes: list[str] = []
        self.spell_words: list[Word] = []
        self.ranked = False

    def node(self, node: Node, positive: bool = True) -> Plan | None:
        if isinstance(node, Word):
            return self.word(node, positive)
        if isinstance(node, PhraseNode):
            return self.phrase(node, positive)
        if isinstance(node, Filter):
            return Flag(node.fieldname, node.value)
        if isinstance(node, NotNode):
            child = self.node(node.child, not positive)
            return Negate(child) if child is not None else None
        if isinstance(node, AndNode | OrNode):
            subs = [q for c in node.children if (q := self.node(c, positive)) is not None]
            return _join(All if isinstance(node, AndNode) else Any_, subs)
        return self.combine(list(node.children), top=False)

    def word(self, word: Word, positive: bool) -> Plan | None:
        fields = FIELDS.get(word.field or "", TEXT_FIELDS)
        if word.prefix:
            return self.prefix(word.text.lower(), fields, positive)
        plain = fields == ("collections",)
        toks = [t.text for t in _PLAIN(word.text)] if plain else analyze(word.text)
        if positive and not plain and toks:
            self.terms.extend(toks)
            self.spell_words.append(word)
            self.add_words(word.text)
        subs: list[Plan] = []
        if len(toks) == 1:
            subs.append(Terms(tuple((f, toks[0], b) for f, b in _boosted(fields))))
        elif toks:
            # "multi-agent", "GPT-4o": every part required, adjacency not checked;
            # position checks cost too much on common parts to run per keystroke.
            subs.append(All(tuple(Terms(tuple((f, t, b) for f, b in _boosted(fields))) for t in toks)))
        if toks and (word.field is None or "short_kw" in fields):
            subs.append(Terms((("short_kw", word.text.lower(), BOOSTS["short_kw"]),)))
        fix = self.alternatives.get((word.start, word.end))
        if fix is not None and not plain and analyze(fix) != toks:
            # An unknown typed word is searched together with its correction.
            alt = self.word(Word(fix, word.field, False), positive=False)
            if alt is not None:
                subs.append(alt)
                if positive:
                    self.terms.extend(analyze(fix))
                    self.add_words(fix, self.slot - 1)
        return _join(Any_, subs)

    def prefix(self, text: str, fields: tuple[str, ...], positive: bool) -> Plan | None:
        if len(text) < MIN_PREFIX or len(analyze(text)) > 1:
            return None
        # Stems are mostly prefixes of their words, but stem("policy") is "polici".
        variants = tuple(dict.fromkeys([text, *analyze(text)]))
        if positive:
            self.prefixes.extend(variants)
            self.slot += 1
        return Prefixes(_boosted(fields), variants)

    def phrase(self, node: PhraseNode, positive: bool) -> Plan | None:
        words = _split_words(node.text, node.start, node.field)
        if len(words) <= 1:
            return self.node(words[0], positive) if words else None
        fields = FIELDS.get(node.field or "", ("title", "abstract", "note"))
        plain = fields == ("collections",)
        toks = [t.text for t in _PLAIN(node.text)] if plain else analyze(node.text)
        if positive and not plain:
            self.terms.extend(toks)
            self.spell_words.extend(w for w in words if isinstance(w, Word))
            self.add_words(node.text)
        if not toks:
            return None
        if len(toks) == 1:
            return Terms(tuple((f, toks[0], b) for f, b in _boosted(fields)))
        return _phrases(fields, toks)

    def add_words(self, text: str, slot: int | None = None) -> None:
        """Record the positive words of ``text`` in query order (``slot``: shared with a typed word)."""
        for stem, surface in surface_words(text):
            self.words.append(QueryWord(stem, surface, self.slot if slot is None else slot))
            if slot is None:
                self.slot += 1

    def combine(self, parts: list[Node], top: bool) -> Combine:
        """Filters required, NOT parts excluded, AND parts required, the rest optional."""
        shoulds: list[Plan] = []
        musts: list[Plan] = []
        filters: list[Plan] = []
        negatives: list[Plan] = []
        for part in parts:
            if isinstance(part, Filter):
                filters.append(Flag(part.fieldname, part.value))
            elif isinstance(part, NotNode):
                if (q := self.node(part.child, positive=False)) is not None:
                    negatives.append(q)
            elif isinstance(part, AndNode):
                subs = [q for c in part.children if (q := self.node(c)) is not None]
                if subs:
                    musts.append(All(tuple(subs)))
            elif (q := self.node(part)) is not None:
                shoulds.append(q)
        if top:
            self.ranked = bool(musts or shoulds)
        return Combine(tuple(shoulds), tuple(musts), tuple(filters), tuple(negatives), coordinate=top)


def compile_query(parsed: ParsedQuery, alternatives: Mapping[tuple[int, int], str] | None = None) -> Compiled:
    """Turn parsed parts into an evaluation plan.

    ``alternatives`` maps the (start, end) of a typed word to a correction searched as well.
    """
    c = _Compiler(alternatives)
    plan = c.combine(parsed.parts, top=True)
    terms = list(dict.fromkeys(c.terms))
    return Compiled(plan, terms, list(dict.fromkeys(c.prefixes)), c.spell_words, c.ranked, c.words)
