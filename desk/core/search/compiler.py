"""Compiling a parsed query into an evaluation plan for ranking.py.

Besides the plan, the compiler records what the later stages need: the stemmed
terms and prefixes to highlight, the words a typo may hide in, and the
positive words in query order with the form typed (for exact forms and word
proximity in rescore.py). A typed word that the index does not know can be
searched together with its correction (``alternatives``).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import islice
from typing import Protocol

from desk.core.search.query import (
    CITATION_FIELDS,
    FIELDS,
    MIN_PREFIX,
    AndNode,
    Filter,
    Node,
    NotNode,
    OrNode,
    ParsedQuery,
    PhraseNode,
    ScopeFilter,
    TagFilter,
    Word,
    clean_query,
    parse,
    split_words,
)
from desk.core.search.ranking import (
    AllOf,
    AnyOf,
    Combine,
    Flag,
    IdSet,
    Negate,
    PhraseTerms,
    Plan,
    Prefixes,
    Scaled,
    Terms,
)
from desk.core.search.schema import AUTHOR_FIELD, BOOSTS, TEXT_FIELDS, analyze, plain_analyzer, surface_words

PHRASE_FIELDS = ("title", "abstract", "note")
MAX_WORDS = 64  # query words kept for rescoring (a pasted essay must not cost seconds)
MAX_HIGHLIGHT = 100  # longer terms are not highlighted: a 15,000-letter "word" is no word

_PLAIN = plain_analyzer()

#: Other words a typed word is also searched as (an acronym's long form, a long form's acronym):
#: their stemmed terms, searched as a phrase, and the factor on their score.
Alternative = tuple[tuple[str, ...], float]


#: The ids of the papers carrying a tag (None: any tag), asked of the database at query time.
class TagLookup(Protocol):
    """The database's answers to the filters it holds: ``tag:`` (tags live only there) and the
    star and reading state (``is:starred``, ``is:unread``…), so a change is searchable once
    committed, with no re-indexing (the index's own starred/read fields are not read then)."""

    def __call__(self, name: str | None) -> Sequence[int]:
        """Ids of the papers carrying the tag ``name`` (None: any tag)."""
        ...

    def flagged(self, fieldname: str) -> Sequence[int]:
        """Ids of the papers whose ``fieldname`` (starred, read) is true."""
        ...

    def collection(self, name: str) -> Sequence[int]:
        """Ids of the papers with a source in the collection ``name`` (``in:``; any case)."""
        ...

    def saved(self, name: str) -> str | None:
        """The query saved under ``name`` (``saved:``; any case), or None when there is none."""
        ...

    def cited(self, kind: str, value: str) -> Sequence[int]:
        """Ids of the papers whose metadata matches ``author:``, ``year:`` or ``venue:`` ``value``
        (desk.core.store.citations)."""
        ...

    def cluster(self, name: str) -> Sequence[int]:
        """Ids of the papers in the map's cluster ``name`` (``cluster:``: its number or its
        label, any case); none when the library has no map yet."""
        ...

    def near(self, name: str) -> Sequence[int]:
        """Ids of the papers nearest the paper whose id ``name`` is, on the map (``near:``), that
        paper first; none when the library has no map yet or no such paper is on it."""
        ...


LIVE_FLAGS = ("starred", "read")  # Filter fields a TagLookup answers
# A word being typed matches longer words (its completions) at this share of the word's own
# score: "graph" typed as "gra" ranks papers on graphs, and a paper saying "gra" itself first.
COMPLETION_FACTOR = 0.5
MAX_SAVED_DEPTH = 4  # saved:"a" inside saved search a (or a longer loop) stops here, matching nothing


@dataclass(frozen=True)
class QueryWord:
    """One positive query word: its stem (the index term) and the lowercased form typed."""

    stem: str
    surface: str
    slot: int  # place in the query; a correction shares the slot of the word it corrects
    joined: bool = False  # a later part of one typed word ("tuning" of "fine-tuning")


@dataclass
class Compiled:
    """The evaluation plan of a parsed query, plus what highlighting, spelling and rescoring need."""

    plan: Combine
    terms: list[str]  # stemmed positive terms (highlighting)
    prefixes: list[str]  # positive prefixes, lowercased
    spell_words: list[Word]  # positive plain words a typo may hide in
    ranked: bool  # False: no positive part, hits are listed by id
    words: list[QueryWord] = field(default_factory=list)  # positive unfielded words, in query order
    # Positive phrases of two words or more (stems in a row, prefix variants of a last word
    # being typed), and the terms and prefixes searched outside them: highlighting marks a
    # word found only in a phrase where the phrase stands, not everywhere.
    phrases: list[tuple[tuple[str, ...], tuple[str, ...]]] = field(default_factory=list)
    loose: list[str] = field(default_factory=list)
    typing_word: Word | None = None  # the word being typed (not corrected; its other spellings count)

    @property
    def empty(self) -> bool:
        """Nothing to search: no word, phrase, prefix or filter survived parsing."""
        p = self.plan
        return not (p.shoulds or p.musts or p.filters or p.negatives)


def _boosted(fields: tuple[str, ...]) -> tuple[tuple[str, float], ...]:
    return tuple((f, BOOSTS.get(f, 1.0)) for f in fields if f != "short_kw")


def _terms(toks: list[str], fields: tuple[str, ...]) -> Plan | None:
    """Documents holding the stemmed tokens of one typed word."""
    if len(toks) == 1:
        return Terms(tuple((f, toks[0], b) for f, b in _boosted(fields)))
    if toks:
        # "multi-agent", "GPT-4o": every part required here; their adjacency
        # earns a proximity bonus in rescore.py, on the best candidates only.
        return AllOf(tuple(Terms(tuple((f, t, b) for f, b in _boosted(fields))) for t in toks))
    return None


def _among_authors(part: Node) -> Plan | None:
    """A bare word or phrase of the query searched among the authors' names (a low-weight part:
    ``vaswani attention``, ``"ashish vaswani"``); None for anything else."""
    if not isinstance(part, Word | PhraseNode) or part.field is not None or part.prefix:
        return None
    toks = analyze(part.text)
    if len(toks) == 1:
        return Terms(((AUTHOR_FIELD, toks[0], BOOSTS[AUTHOR_FIELD]),))
    return PhraseTerms(((AUTHOR_FIELD, BOOSTS[AUTHOR_FIELD]),), tuple(toks)) if toks else None  # Martín-Isla


def _prefix_variants(text: str) -> tuple[str, ...]:
    """The lowercased prefix and its stem ("policy" is stemmed "polici"); () when too short."""
    if len(text) < MIN_PREFIX or len(analyze(text)) > 1:
        return ()
    return tuple(dict.fromkeys([text, *analyze(text)]))


def _join(kind: type[AllOf] | type[AnyOf], subs: list[Plan]) -> Plan | None:
    if not subs:
        return None
    return subs[0] if len(subs) == 1 else kind(tuple(subs))


class _Compiler:
    def __init__(
        self,
        alternatives: Mapping[tuple[int, int], str] | None = None,
        tags: TagLookup | None = None,
        expansions: Mapping[tuple[int, int], Sequence[Alternative]] | None = None,
        replaced: Collection[tuple[int, int]] = (),
        variants: Mapping[tuple[int, int], Sequence[str]] | None = None,
        depth: int = 0,
    ) -> None:
        self.depth = depth  # saved searches being compiled inside one another
        self.alternatives = alternatives or {}
        self.variants = variants or {}
        self.replaced = replaced
        self.tags = tags
        self.tag_sets: dict[str | None, IdSet] = {}
        self.flag_sets: dict[str, IdSet] = {}
        self.expansions = expansions or {}
        self.terms: list[str] = []
        self.prefixes: list[str] = []
        self.spell_words: list[Word] = []
        self.typing_word: Word | None = None
        self.words: list[QueryWord] = []
        self.phrases: list[tuple[tuple[str, ...], tuple[str, ...]]] = []
        self.loose: list[str] = []
        self.slot = 0
        self.ranked = False

    def node(self, node: Node, positive: bool = True) -> Plan | None:
        if isinstance(node, Word):
            return self.word(node, positive)
        if isinstance(node, PhraseNode):
            return self.phrase(node, positive)
        if isinstance(node, Filter):
            return self.flag(node)
        if isinstance(node, TagFilter):
            return self.tag(node.name)
        if isinstance(node, ScopeFilter):
            return self.scope(node)
        if isinstance(node, NotNode):
            child = self.node(node.child, not positive)
            return Negate(child) if child is not None else None
        if isinstance(node, AndNode | OrNode):
            subs = [q for c in node.children if (q := self.node(c, positive)) is not None]
            return _join(AllOf if isinstance(node, AndNode) else AnyOf, subs)
        return self.combine(list(node.children), top=False)

    def word(self, word: Word, positive: bool) -> Plan | None:
        fields = FIELDS.get(word.field or "", TEXT_FIELDS)
        if word.prefix:
            return self.prefix(word.text.lower(), fields, positive)
        plain = fields == ("collections",)
        toks = [t.text for t in _PLAIN(word.text)] if plain else analyze(word.text)
        fix = self.alternatives.get((word.start, word.end))
        fixed = analyze(fix) if fix is not None and not plain else []
        # A form no paper uses ("shapely") whose stem is a paper's word ("shape") is searched
        # as its correction only ("shapley"); its stem would match by accident.
        replaced = bool(fixed) and fixed != toks and (word.start, word.end) in self.replaced
        if positive and not plain and toks:
            if not replaced:
                self.terms.extend(toks)
                self.loose.extend(toks)
            if word.spell:
                self.spell_words.append(word)
            if word.field is not None:
                self.slot += 1  # breaks word adjacency
            elif not replaced:
                self.add_words(word.text)
        spellings = self.variants.get((word.start, word.end), ()) if len(toks) == 1 else ()
        if spellings and not replaced:  # "colour" and "color": one word, however spelled
            items = tuple((f, t, b) for t in (toks[0], *spellings) for f, b in _boosted(fields))
            subs: list[Plan] = [Terms(items, one_term=True)]
            if positive:
                self.terms.extend(spellings)
        else:
            subs = [p] if not replaced and (p := _terms(toks, fields)) is not None else []
        if toks and not replaced and (word.field is None or "short_kw" in fields):
            subs.append(Terms((("short_kw", word.text.lower(), BOOSTS["short_kw"]),)))
        if fixed and fixed != toks and (alt := _terms(fixed, fields)) is not None:
            # A word the index does not know is searched together with its correction.
            subs.append(alt)
            if positive:
                self.terms.extend(fixed)
                self.loose.extend(fixed)
                if word.field is None:
                    self.add_words(fix or "", slot=None if replaced else self.slot - 1)
        if word.completes and positive and toks and not plain:
            self.typing_word = word
        if word.completes and not plain and _prefix_variants(word.text.lower()):
            # The word being typed is the start of the words it may become, below the word itself;
            # as typed, not stemmed: a finished "learning" does not also complete to "learned".
            started = (word.text.lower(),)
            subs.append(Scaled(Prefixes(_boosted(fields), started), COMPLETION_FACTOR))
            if positive:
                self.prefixes.extend(started)
                self.loose.extend(started)
        for stems, factor in self.expansions.get((word.start, word.end), ()) if toks and not plain else ():
            boosted = _boosted(PHRASE_FIELDS if word.field is None else fields)
            other = (
                Terms(tuple((f, stems[0], b) for f, b in boosted))
                if len(stems) == 1
                else PhraseTerms(boosted, stems)
            )
            subs.append(Scaled(other, factor))
            if positive:
                self.terms.extend(stems)
        return _join(AnyOf, subs)

    def tag(self, name: str | None) -> IdSet:
        """The papers carrying a tag, as the lookup answers (none without a lookup)."""
        found = self.tag_sets.get(name)
        if found is None:
            ids = self.tags(name) if self.tags is not None else ()
            found = self.tag_sets[name] = IdSet(tuple(ids))
        return found

    def scope(self, node: ScopeFilter) -> Plan:
        """``in:`` the papers of a collection; ``saved:`` the matches of a saved search's query
        (its words as a filter: they do not rank nor highlight what is found inside it)."""
        if self.tags is None:
            return IdSet(())
        if node.kind == "in":
            return IdSet(tuple(self.tags.collection(node.name)))
        if node.kind in CITATION_FIELDS:
            return IdSet(tuple(self.tags.cited(node.kind, node.name)))
        if node.kind == "cluster":
            return IdSet(tuple(self.tags.cluster(node.name)))
        if node.kind == "near":
            return IdSet(tuple(self.tags.near(node.name)))
        query = self.tags.saved(node.name) if self.depth < MAX_SAVED_DEPTH else None
        if query is None:
            return IdSet(())
        inner = _Compiler(tags=self.tags, depth=self.depth + 1)
        return inner.combine(parse(query).parts, top=False)

    def flag(self, node: Filter) -> Plan:
        """A star/reading-state filter: from the database when it is given, else the index's field."""
        if self.tags is None or node.fieldname not in LIVE_FLAGS:
            return Flag(node.fieldname, node.value)
        found = self.flag_sets.get(node.fieldname)
        if found is None:
            found = self.flag_sets[node.fieldname] = IdSet(tuple(self.tags.flagged(node.fieldname)))
        return found if node.value else Negate(found)

    def prefix(self, text: str, fields: tuple[str, ...], positive: bool) -> Plan | None:
        variants = _prefix_variants(text)
        if not variants:
            return None
        if positive:
            self.prefixes.extend(variants)
            self.loose.extend(variants)
            self.slot += 1  # breaks word adjacency
        return Prefixes(_boosted(fields), variants)

    def phrase(self, node: PhraseNode, positive: bool) -> Plan | None:
        words = split_words(node.text, node.start, node.field)
        fields = FIELDS.get(node.field or "", PHRASE_FIELDS)
        plain = fields == ("collections",)
        if node.prefix and words and not plain:
            return self.phrase_start(node, words, fields, positive)
        if len(words) <= 1:
            return self.node(words[0], positive) if words else None
        toks = [t.text for t in _PLAIN(node.text)] if plain else analyze(node.text)
        if positive and not plain:
            self.terms.extend(toks)
            self.mark_phrase(toks, ())
            self.spell_words.extend(w for w in words if w.spell)
            if node.field is None:
                self.add_words(node.text)
            else:
                self.slot += 1
        if not toks:
            return None
        if len(toks) == 1:
            return Terms(tuple((f, toks[0], b) for f, b in _boosted(fields)))
        return PhraseTerms(_boosted(fields), tuple(toks))

    def phrase_start(
        self, node: PhraseNode, words: list[Word], fields: tuple[str, ...], positive: bool
    ) -> Plan | None:
        """A phrase being typed: its complete words in a row, then a word starting with the last one."""
        last = words[-1]
        head = node.text[: last.start - node.start]
        variants = _prefix_variants(last.text.lower())
        if not variants:  # one letter typed: the phrase of the words before it
            if not head.strip():
                return None
            return self.phrase(PhraseNode(head, node.field, node.start, last.start), positive)
        toks = analyze(head)
        if positive:
            self.terms.extend(toks)
            # An open quote is a phrase being typed, word for word: none is corrected.
            if node.field is None:
                self.add_words(head)
            self.slot += 1  # the prefix breaks word adjacency
            self.prefixes.extend(variants)
            self.mark_phrase(toks, variants)
        if not toks:
            return Prefixes(_boosted(fields), variants)
        return PhraseTerms(_boosted(fields), tuple(toks), variants)

    def mark_phrase(self, toks: list[str], variants: tuple[str, ...]) -> None:
        """Remember a positive phrase for highlighting (one word alone is marked anywhere)."""
        if len(toks) + bool(variants) > 1:
            self.phrases.append((tuple(toks), variants))
        else:
            self.loose.extend([*toks, *variants])

    def add_words(self, text: str, slot: int | None = None) -> None:
        """Record the words of ``text`` in query order; ``slot`` is given for a correction."""
        for k, (stem, surface) in enumerate(islice(surface_words(text), max(0, MAX_WORDS - len(self.words)))):
            self.words.append(QueryWord(stem, surface, self.slot if slot is None else slot, k > 0))
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
                filters.append(self.flag(part))
            elif isinstance(part, TagFilter):
                filters.append(self.tag(part.name))
            elif isinstance(part, ScopeFilter):
                filters.append(self.scope(part))
            elif isinstance(part, NotNode):
                if (q := self.node(part.child, positive=False)) is not None:
                    negatives.append(q)
            elif isinstance(part, AndNode):
                subs = [q for c in part.children if (q := self.node(c)) is not None]
                if subs:
                    musts.append(AllOf(tuple(subs)))
            elif (q := self.node(part)) is not None:
                shoulds.append(q)
        if top:
            self.ranked = bool(musts or shoulds)
        weak = tuple(p for part in parts if (p := _among_authors(part)) is not None) if top else ()
        return Combine(
            tuple(shoulds), tuple(musts), tuple(filters), tuple(negatives), coordinate=top, weak=weak
        )


def compile_query(
    parsed: ParsedQuery,
    alternatives: Mapping[tuple[int, int], str] | None = None,
    tags: TagLookup | None = None,
    expansions: Mapping[tuple[int, int], Sequence[Alternative]] | None = None,
    replaced: Collection[tuple[int, int]] = (),
    variants: Mapping[tuple[int, int], Sequence[str]] | None = None,
) -> Compiled:
    """Turn parsed parts into an evaluation plan.

    ``alternatives`` maps the (start, end) of a typed word in the query string to a correction
    that is searched as well: the word's part then matches papers holding either. ``tags``
    answers ``tag:`` filters (without it they match nothing). ``expansions`` maps a typed word
    to other words searched too, their score scaled (see Alternative). A word of ``replaced``
    that has an alternative of another stem is searched as that alternative only. ``variants``
    gives a typed word's other spellings (stems), scored with it as one term.
    """
    c = _Compiler(alternatives, tags, expansions, replaced, variants)
    plan = c.combine(parsed.parts, top=True)
    terms = [t for t in dict.fromkeys(c.terms) if len(t) <= MAX_HIGHLIGHT]
    return Compiled(
        plan,
        terms,
        list(dict.fromkeys(c.prefixes)),
        c.spell_words,
        c.ranked,
        c.words,
        list(dict.fromkeys(c.phrases)),
        list(dict.fromkeys(c.loose)),
        c.typing_word,
    )


REPLACEMENT_CHARACTER = "\ufffd"


def nothing_to_search(query: str) -> str | None:
    """Why ``query`` holds nothing a search can use, in plain words, or None when it holds something.

    A query with no word, phrase, prefix or filter left once parsed (blank, punctuation, only
    words the index leaves out, undecodable bytes of a command line) would list every paper as
    its hits: a command says this instead. A query still being typed (an open quote or
    parenthesis) is not such a query; its hint says what is missing.
    """
    cleaned = clean_query(query)
    parsed = parse(cleaned)
    if parsed.hint is not None or not compile_query(parsed).empty:
        return None
    if not cleaned.replace(REPLACEMENT_CHARACTER, "").strip():
        # Only bytes that are not UTF-8: lone surrogates, or the U+FFFD a command line made of them.
        if query.strip():
            return "the query is not readable text (its bytes are not UTF-8), so it has nothing to search"
        return "the query is empty (desk list lists every paper)"
    return (
        "the query has no word to search (punctuation, single letters and common words "
        "such as “the” are not indexed)"
    )
