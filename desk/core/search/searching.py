"""One search over the loaded corpus: acronyms and spellings folded in, ranked, rescored, fused, cut.

The steps, in order: the query's acronyms searched as their long forms and British spellings
as American ones; the ranked matches (ranking.py); each unknown word searched with its
correction, which replaces it when the typed words found too few; the best RESCORE_DEPTH
reordered by exact forms and proximity (rescore.py); the semantic vectors fused in (fusion.py);
snippets for the page asked for.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from desk.core.search.acronyms import Acronyms, query_alternatives
from desk.core.search.compiler import Compiled, TagLookup, compile_query
from desk.core.search.hits import Found, make_hits, ms, stored_fields
from desk.core.search.model import Marks, SearchResult
from desk.core.search.postings import Corpus
from desk.core.search.query import ParsedQuery, parse
from desk.core.search.ranking import phrase_frequency, rank, top
from desk.core.search.rescore import RESCORE_DEPTH, Rescorer
from desk.core.search.schema import STEMMED_FIELDS, analyze
from desk.core.search.snippets import Highlighter
from desk.core.search.spelling import Lexicon, apply, corrections, other_word, spelling_variants
from desk.core.semantic import fusion
from desk.core.semantic.fusion import JOIN_BELOW, fuse, mixed_cosines, nearest

if TYPE_CHECKING:  # the library hands its vectors over; nothing of them is needed to import this
    from desk.core.semantic.encoded import EncodedVectors
    from desk.core.semantic.vectors import SemanticVectors

#: A sort other than relevance: given the ids of the matches best first, their positions in order.
Order = Callable[[np.ndarray], Sequence[int]]
FEW_HITS = 3  # below this many, the typed words count as not found ("corrected")
MAX_PREFIX_TERMS = 64  # expansions of a prefix listed in SearchResult.terms


def run_search(
    corpus: Corpus,
    lexicon: Lexicon,
    acronyms: Acronyms,
    semantic: SemanticVectors | None,
    query: str,
    parsed: ParsedQuery,
    compiled: Compiled,
    limit: int,
    offset: int,
    started: float,
    tags: TagLookup | None = None,
    order: Order | None = None,
    encoded: EncodedVectors | None = None,
    hidden: Mapping[int, int] | None = None,
) -> SearchResult:
    """The SearchResult of a parsed and compiled ``query`` (see SearchIndex.search); a paper of
    ``hidden`` (a near-duplicate copy the lists do not show -> the copy shown for it) is not a
    hit where its shown copy matches too."""
    depth = corpus.n if order is not None else max(offset + limit, RESCORE_DEPTH)
    shown = Collapse.of(corpus, hidden) if hidden else None
    expansions: dict[tuple[int, int], list[tuple[tuple[str, ...], float]]] = {}
    variants: dict[tuple[int, int], list[str]] = {}
    spelled = [*compiled.spell_words, *([compiled.typing_word] if compiled.typing_word else [])]
    if spelled and compiled.ranked:
        lexicon.refresh()
        acronyms.refresh()
        counts = lexicon.counts
        expansions = query_alternatives(
            acronyms, query, compiled.spell_words, lambda w: counts.get(w.lower(), 0)
        )
        # The word being typed too: "Nystrom" finds nyström as it is typed, before any space.
        variants = {
            at: [stems[0] for v in others if len(stems := analyze(v)) == 1]
            for at, others in spelling_variants(lexicon, query, spelled).items()
        }
        if expansions or variants:  # acronyms searched as their long forms too, "colour" as "color"
            compiled = compile_query(parsed, None, tags, expansions, (), variants)
    total, found = _run(corpus, compiled, depth, shown)
    suggestion, corrected = None, False
    if compiled.spell_words and compiled.ranked:
        fixes = corrections(lexicon, query, compiled.spell_words, _stem_known(corpus))
        suggestion = apply(query, fixes)
        unused = {at for at, fix in fixes.items() if other_word(query[at[0] : at[1]], fix, lexicon)}
        merged = compile_query(parsed, fixes, tags, expansions, unused, variants) if fixes else compiled
        if merged.plan != compiled.plan:  # not when the only typos are inside "phrases"
            # Each unknown word is searched together with its correction, however many
            # papers the typed words found; "corrected" when those found too few.
            typed_total = total
            total, found = _run(corpus, merged, depth, shown)
            compiled, corrected = merged, typed_total < FEW_HITS and total > typed_total
        if suggestion is not None and total < FEW_HITS:  # e.g. a typo inside a "phrase"
            alt = compile_query(parse(suggestion), tags=tags)
            alt_total, alt_found = _run(corpus, alt, depth, shown)
            if alt_total > total:
                compiled, total, found, corrected = alt, alt_total, alt_found, True
    terms = _terms(corpus, compiled)
    marks = Marks(terms, tuple(compiled.prefixes), tuple(compiled.phrases), tuple(compiled.loose))
    hl = Highlighter.of(marks)
    stored: dict[int, dict[str, Any]] = {}
    if order is not None:
        positions = order(corpus.ids[[f[0] for f in found]]) if found else []
        found = [found[int(i)] for i in positions]
    elif compiled.ranked and compiled.words:
        found = _rescore(corpus, lexicon, compiled, found, hl, stored)
        if semantic is not None or encoded is not None:
            found, joined = _fuse(semantic, encoded, corpus, compiled, found, total, shown)
            total += joined
    hits = make_hits(corpus, found[offset : offset + limit], hl, stored)
    return SearchResult(
        query,
        total,
        hits,
        ms(started),
        suggestion,
        corrected,
        terms,
        parsed.message,
        parsed.hint,
        marks=marks,
    )


@dataclass(frozen=True)
class Collapse:
    """The near-duplicate copies a search leaves out, as docnums: each hidden copy beside the
    copy shown for it."""

    hidden: np.ndarray  # docnums of the copies not shown
    twins: np.ndarray  # the docnum of the copy shown for each
    mask: np.ndarray  # over docnums: False for every hidden copy (for papers joining by meaning)

    @classmethod
    def of(cls, corpus: Corpus, hidden: Mapping[int, int]) -> Collapse | None:
        """The live documents of ``hidden``'s copies and of their shown copies; None when none is."""
        wanted = np.fromiter((*hidden, *hidden.values()), np.int64, 2 * len(hidden))
        live = np.flatnonzero(np.isin(corpus.ids, wanted) & corpus.alive)
        docnum = {int(corpus.ids[d]): int(d) for d in live}
        pairs = [(docnum[h], docnum[s]) for h, s in hidden.items() if h in docnum and s in docnum]
        if not pairs:
            return None
        hid, twins = (np.asarray(x, np.int64) for x in zip(*pairs, strict=True))
        mask = np.ones(corpus.n, bool)
        mask[hid] = False
        return cls(hid, twins, mask)

    def keep(self, matched: np.ndarray) -> np.ndarray:
        """``matched`` (a mask over docnums) without the hidden copies whose shown copy matched."""
        drop = self.hidden[matched[self.twins]]
        if not len(drop):
            return matched
        kept = matched.copy()
        kept[drop] = False
        return kept


def _run(
    corpus: Corpus, compiled: Compiled, k: int, shown: Collapse | None = None
) -> tuple[int, list[Found]]:
    """(total, [(docnum, parts, relevance)] of the best ``k``) for a compiled query; ``shown``
    leaves out the near-duplicate copies whose shown copy is found too."""
    ranked = rank(corpus, compiled.plan)
    if shown is not None:
        ranked = replace(ranked, mask=shown.keep(ranked.mask))
    total, docs, parts, values = top(corpus, ranked, k, by_id=not compiled.ranked)
    return total, list(zip(docs.tolist(), parts.tolist(), values.tolist(), strict=True))


def _rescore(
    corpus: Corpus,
    lexicon: Lexicon,
    compiled: Compiled,
    found: list[Found],
    hl: Highlighter,
    stored: dict[int, dict[str, Any]],
) -> list[Found]:
    """``found`` with its first RESCORE_DEPTH reordered by the bonus of rescore.py.

    The rest keep their order after them: a bonus is never negative, so every rescored
    candidate still outscores them, and a page never depends on how many were asked for.
    """
    head = found[:RESCORE_DEPTH]
    if len(head) < 2:
        return found
    lexicon.refresh()
    rescorer = Rescorer(
        compiled.words,  # postings decoded by the first stage give the document frequencies
        lambda stem: max(corpus.doc_frequency(f, stem) for f in ("title", "abstract")),
        lexicon.counts,
        max(1, corpus.n),
        lambda first, second: phrase_frequency(corpus, "abstract", (first, second)),
    )
    if not rescorer.active:
        return found
    rescored: list[tuple[float, int, int, int]] = []
    for docnum, parts, relevance in head:
        fields = stored_fields(corpus, docnum, stored)
        texts = [fields.get(f) or "" for f in ("title", "abstract", "note")]
        bonus = rescorer.bonus((t, hl.matches(t)) for t in texts if t)
        rescored.append((-(relevance + bonus), int(corpus.ids[docnum]), docnum, parts))
    rescored.sort()
    return [(docnum, parts, -neg) for neg, _, docnum, parts in rescored] + found[RESCORE_DEPTH:]


def _stem_known(corpus: Corpus) -> Callable[[str], bool]:
    reader = corpus.searcher.reader()
    return lambda stem: any((f, stem) in reader for f in STEMMED_FIELDS)  # a name is no typo


def _terms(corpus: Corpus, compiled: Compiled) -> tuple[str, ...]:
    terms = list(compiled.terms)
    for p in compiled.prefixes:
        terms.extend(corpus.expand("abstract", p)[:MAX_PREFIX_TERMS])
    return tuple(dict.fromkeys(terms))


def _text(compiled: Compiled) -> str:
    """The text the sentence encoder reads of a query: its words as typed (corrected, expanded)."""
    return " ".join(w.surface for w in compiled.words)


def _fuse(
    semantic: SemanticVectors | None,
    encoded: EncodedVectors | None,
    corpus: Corpus,
    compiled: Compiled,
    found: list[Found],
    total: int,
    shown: Collapse | None = None,
) -> tuple[list[Found], int]:
    """``found`` reordered with the query's cosine to each paper (fusion.py), and how many joined.

    The cosine is LSA's alone, or, once the sentence encoder has a vector for any paper, LSA's and
    the encoder's mixed (fusion.mixed_cosines): a paper still waiting for its vector is given one
    estimated from its LSA cosine. While a build is under way the encoder reorders a query's hits
    only when the first fusion.ENCODED_HEAD of LSA's ranking all have their vector (the window
    encodes those on the spot): else papers that have one would climb over the others on the
    noise of their cosines, and the ranking is LSA's.
    Papers holding none of the words may join only a plain ranked query: not one with
    required parts, filters or exclusions, which meaning alone cannot satisfy; and only when
    the words found fewer than JOIN_BELOW papers (``found`` then holds every match, whatever
    the page). Otherwise only the hits' own cosines are read.
    """
    lsa_vec = semantic.query_vector([w.stem for w in compiled.words]) if semantic is not None else None
    enc_vec = None
    if encoded is not None and encoded.count():
        enc_vec = encoded.query_vector(_text(compiled))
    if lsa_vec is None and enc_vec is None:
        return found, 0
    plan = compiled.plan
    docnums = np.fromiter((d for d, _, _ in found), np.int64, len(found))
    joining = total < JOIN_BELOW and not (plan.musts or plan.filters or plan.negatives)
    alive = corpus.alive if shown is None else corpus.alive & shown.mask  # a twin is as near

    def lsa_cosines(ids: np.ndarray, every: bool) -> np.ndarray | None:
        """LSA's cosines of ``ids`` (``every``: the corpus's, the product over the whole store, kept)."""
        if semantic is None or lsa_vec is None:
            return None
        return semantic.cosines(lsa_vec, ids) if every else semantic.cosines_of(lsa_vec, ids)

    def ranked(cosine: np.ndarray | None, weight: float | None) -> tuple[list[Found], int]:
        """``found`` fused with ``cosine`` (one per docnum when joining, else one per hit)."""
        if cosine is None:
            return found, 0
        if not joining:
            return fuse(found, cosine, (), weight), 0
        joiners = nearest(cosine, np.flatnonzero(alive), found)
        return fuse(found, cosine[docnums], joiners, weight), len(joiners)

    ids = corpus.ids if joining else corpus.ids[docnums]
    lsa = lsa_cosines(ids, joining)
    if enc_vec is None or encoded is None:
        return ranked(lsa, None)
    held = encoded.held(ids)
    if not bool(np.all(held[np.flatnonzero(alive)] if joining else held)):
        words_and_lsa = ranked(lsa, None)
        head = corpus.ids[[d for d, _, _ in words_and_lsa[0][: fusion.ENCODED_HEAD]]]
        if not bool(np.all(encoded.held(head))):
            return words_and_lsa
    mixed = mixed_cosines(lsa, encoded.cosines_of(enc_vec, ids), held)
    return ranked(mixed, fusion.ENCODED_WEIGHT)  # read at the call: a benchmark may set it
