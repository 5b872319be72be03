"""A paper has no title in the input: derive a scannable one from its abstract.

The short name (short_names.py) leads the title when the abstract names its method:
"RACER: A router for …"; otherwise the sentence that says what the paper does is cut down.
"""

from __future__ import annotations

import logging
import re
from functools import lru_cache

from desk.core.text.cues import ADVERBS as _ADVERBS
from desk.core.text.cues import CASE_TWINS
from desk.core.text.cues import SUBJECT as _SUBJECT
from desk.core.text.markup import one_space
from desk.core.text.sentences import name_spots, split_sentences, strip_urls

log = logging.getLogger(__name__)

TITLE_MAX = 120

_CONNECTORS = frozenset(("of", "for", "with", "and", "to", "in", "on", "via", "from", "by", "the", "a", "an"))
_DANGLING = frozenset(
    ("that", "which", "through", "as", "or", "comprising", "including", "such", "using", "while")
)
_ARTICLE = r"(?:an?|the)"
_LONG_FORM_NOUNS = r"(?:framework|method|approach|algorithm|model|module|layer|strategy|system|pipeline)"
# "we propose / this paper introduces …": the sentence that says what the paper does.
_WE_PROPOSE_RE = re.compile(
    rf"(?:{_SUBJECT}|\band)\s+{_ADVERBS}"
    r"(?:propose|introduce|present|develop|design|describe|unveil)(?:s|d|ed)?\s+",
    re.IGNORECASE,
)
_BY_RE = re.compile(
    _SUBJECT + r"\s+" + _ADVERBS + r"(?:address|tackle|solve|overcome|resolve)(?:s|es)?\s+"
    r"[^,]{0,40}?\bby\s+(?=\w+ing\b)",
    re.IGNORECASE,
)
_STUDY_RE = re.compile(
    _SUBJECT + r"\s+" + _ADVERBS + r"(?:stud(?:y|ies)|investigate|examine|explore|consider)(?:s|d)?\s+",
    re.IGNORECASE,
)
_OFFER_RE = re.compile(
    rf"{_SUBJECT}\s+{_ADVERBS}(?:derive|establish|give|provide|offer|build|construct|release|curate)(?:s|d)?\s+",
    re.IGNORECASE,
)
_SECONDARY_RE = re.compile(r"\b(?:further|also|additionally|moreover|finally|then|besides)\b", re.I)
_PARTS_RE = re.compile(r"^(?:two|three|four|several|multiple|some|tools)\b", re.I)
_NAMED_LEAD_RE = re.compile(
    r"^([A-Z][\w-]*(?: (?:[A-Z][\w-]*|and|of|for|to|with|via|in|on))*)"  # "Learning to Reconfigure"
    r"(?: \([^()]*\))?, (?:which (\w+) (.*)|(an? .*))"
)
# Short verbs whose last consonant doubles before -ing.
_DOUBLED = frozenset(
    {"admit", "put", "set", "run", "get", "cut", "plan", "map", "scan", "stop", "transfer", "refer", "prefer"}
    | {"occur", "omit", "submit", "permit", "commit", "control", "compel", "propel", "confer", "incur"}
    | {"begin"}
)
# Words after "which"/"NAME," that are not a verb to turn into "-ing": "which our method …".
_NOT_VERBS = frozenset(
    {"a", "an", "the", "our", "its", "their", "this", "these", "those", "it", "we", "they", "also", "not"}
    | {"can", "could", "may", "might", "will", "would", "is", "are"}
)
_GERUND_VERBS = (
    r"reformulate|reframe|formali[sz]e|cast|relate|compare|revisit|analy[sz]e|formulate|quantify|characteri[sz]e|"
    r"rethink|unify|extend|identify|tackle|advocate|bridge|connect|evaluate|benchmark|measure|interpret|explain"
)
_GERUND_RE = re.compile(
    _SUBJECT + r"\s+(?:(?:also|further|first|then|now|here)\s+)*(?:(?P<adverb>\w+ly)\s+)?"
    rf"(?P<verb>{_GERUND_VERBS})(?:s|es|d)?\s+(?P<rest>.*)",
    re.IGNORECASE,
)
_CLAUSE_RE = re.compile(
    r", (?:where|which|while|whereas|thereby|thus|showing|enabling|making|allowing|leading|yielding|"
    r"resulting|achieving|establishing|demonstrating|highlighting|measuring|outperforming|supporting|"
    r"comprising|including|using|that is|and then|but)\b|: | – | — |; | and, "
)
_THAT_RE = re.compile(
    _SUBJECT + r"\s+" + _ADVERBS + r"(?:show|find|argue|demonstrate|prove|observe|reveal|establish)s?\s+"
    r"(?P<how>how\s+)?(?:that,?\s+)?(?P<rest>.*)",
    re.IGNORECASE,
)


def gerund(verb: str) -> str:
    """`reframes` → `Reframing`: the base verb as a capitalised -ing form."""
    v = verb.lower()
    if v.endswith("ing") and len(v) > 5:
        return v.capitalize()
    if v.endswith("ies") and len(v) > 4:
        v = v[:-3] + "y"
    elif v.endswith(("ches", "shes", "sses", "xes")):
        v = v[:-2]
    elif v.endswith("s") and not v.endswith("ss"):
        v = v[:-1]
    if v in _DOUBLED:
        return (v + v[-1] + "ing").capitalize()
    if v.endswith("ie"):
        v = v[:-2] + "y"
    elif v.endswith("e") and not v.endswith(("ee", "ye", "oe")):
        v = v[:-1]
    return (v + "ing").capitalize()


def verb_phrase(verb: str, rest: str) -> str | None:
    """ "couples X" → "Coupling X"; "deeply couples X" → "Deeply coupling X"; None when ``verb`` is
    no verb ("which our method …"), so the caller words the title another way."""
    if verb.lower() in _NOT_VERBS:
        return None
    if verb.lower().endswith("ly"):
        nxt = re.match(r"([a-z]+)\s+(.*)", rest)
        if nxt is None or nxt.group(1) in _NOT_VERBS or nxt.group(1).endswith("ly"):
            return None
        return f"{verb.capitalize()} {gerund(nxt.group(1)).lower()} {_tidy(nxt.group(2), article=False)}"
    return f"{gerund(verb)} {_tidy(rest, article=False)}"


_ASIDE_RE = re.compile(r" \(([^()]*)\)")
_LATIN_RE = re.compile(r"[A-Za-z]")  # "(e.g., 20)", "(i)": words; "(0,1)", "(ε, δ)": math
_RELATION_END = tuple("=<>≤≥≠≈∈∉⊂⊆⊃⊇∼≃≅≡∝→↦")


def _aside(m: re.Match[str]) -> str:
    """'' for an aside in parentheses; the text itself when it is math ("α ∈ (0,1)", "(ε, δ)-DP")."""
    inner = m.group(1)
    before = m.string[: m.start()]
    if before.endswith(_RELATION_END) or (
        not _LATIN_RE.search(inner) and any(c in inner for c in ",;+−-/×·:|")
    ):
        return m.group(0)
    return ""


def _tidy(phrase: str, *, article: bool = True) -> str:
    """Title-shaped phrase: no asides in parentheses, no trailing clause when long."""
    phrase = _ASIDE_RE.sub(_aside, phrase)  # acronyms, citations, asides; not math
    phrase = one_space(phrase).strip(" ,;:.–—-")
    if article:
        phrase = re.sub(r"^(?:the|some)\s+", "", phrase, flags=re.IGNORECASE)
    if len(phrase) > 90:
        for m in _CLAUSE_RE.finditer(phrase):
            if m.start() >= 40:
                phrase = phrase[: m.start()]
                break
    words = phrase.strip(" ,;:.–—-").split(" ")
    while len(words) > 2 and words[-1].lower() in _CONNECTORS | _DANGLING:
        words.pop()
    return " ".join(words).strip(" ,;:.–—-。")


def _object_title(rest: str) -> str:
    """Title from what follows "we propose": "Name, a thing that …" reads as "Name: A thing that …"."""
    lead = _NAMED_LEAD_RE.match(rest)
    if lead and len(lead.group(1)) <= 60:
        if lead.group(4):
            return f"{lead.group(1)}: {_capitalize(_tidy(lead.group(4)))}"
        phrase = verb_phrase(lead.group(2), lead.group(3)) if re.fullmatch(r"[a-z]+", lead.group(2)) else None
        if phrase is not None:
            return f"{lead.group(1)}: {phrase}"
    to = re.match(r"to\s+(\w+)\s+(.*)", rest)
    if to and (phrase := verb_phrase(to.group(1), to.group(2))) is not None:
        return phrase
    return _capitalize(_tidy(rest))


def _capitalize(phrase: str) -> str:
    first = phrase.split(" ", 1)[0]
    if first and first.islower() and first[0].isalpha():
        return phrase[0].upper() + phrase[1:]
    return phrase


def fit_title(text: str, limit: int = TITLE_MAX) -> str:
    """Cut to `limit` characters at a word boundary, ending in "…" when cut."""
    text = one_space(text).strip()
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    if " " in cut:
        cut = cut[: cut.rfind(" ")]
    words = cut.split(" ")
    while len(words) > 1 and words[-1].lower() in _CONNECTORS | _DANGLING:
        words.pop()
    return " ".join(words).rstrip(" ,;:.–—-") + "…"


def _long_form_before(before: str, acronym: str) -> str:
    words = before.rstrip(" (").split(" ")
    run: list[str] = []
    for word in reversed(words):
        if word and (word[0].isupper() or (run and word.lower() in _CONNECTORS - {"the", "a", "an"})):
            run.insert(0, word)
        else:
            break
    while run and run[0].lower() in _CONNECTORS:
        run.pop(0)
    if len(run) >= 2:
        return " ".join(run)
    letters = sum(1 for c in acronym if c.isupper()) or len(acronym)
    parts = 0
    run = []
    for word in reversed(words):
        if not word or not re.fullmatch(r"[a-z][\w-]*", word) or word in _CONNECTORS:
            break
        run.insert(0, word)
        parts += word.count("-") + 1
        if parts >= letters:
            return " ".join(run)
    return ""


def _name_title(text: str, name: str) -> str | None:
    fallback: str | None = None
    for sentence in split_sentences(text):
        spots = [end for end, prefix in name_spots(name, sentence) if not prefix]
        if not spots:
            continue
        before, after = sentence[: spots[0] - len(name)], sentence[spots[0] :]
        long_form = ""
        paren = re.match(r"\s*\(([^()]{4,})\)", after)
        if paren and (" " in paren.group(1).strip() or "-" in paren.group(1)):
            long_form, after = paren.group(1).strip(), after[paren.end() :]
        elif before.endswith("(") and after.startswith(")"):
            long_form, after = _long_form_before(before, name), after[1:]
        apposition = re.match(rf"(?: {_LONG_FORM_NOUNS}| [a-z][\w-]*){{0,2}},\s+({_ARTICLE}\s.*)", after) or (
            re.match(r"\s+is\s+((?:an?|the)\s.*)", after) if not before.strip() else None
        )
        if apposition:
            return f"{name}: {_capitalize(_tidy(apposition.group(1), article=False))}"
        named = re.search(r"\b(an?\s[^,]{5,80}?)\s+(?:named|called|dubbed|termed)\s+[“\"‘']?$", before)
        if named:  # "a frugal alternative termed “Move4D” that …"
            that = re.match(r"[”\"’']?\s*(?:\([^()]*\))?\s*((?:that|which)\s.*)", after)
            what = _tidy(named.group(1) + (" " + that.group(1) if that else ""))
            if len(what.split(" ")) > 3:
                return f"{name}: {_capitalize(what)}"
            continue  # "A hybrid architecture" says little: the sentence that says what it does, below
        if long_form:
            purpose = re.match(r"\s+for\s+(.*)", after)
            tail = f" for {_tidy(purpose.group(1))}" if purpose else ""
            return f"{name}: {_capitalize(_tidy(long_form))}{tail}"
        clause = re.match(r"(?: [a-z][\w-]*){0,2},?\s+(?:which|that)\s+(\w+)\s+(.*)", after) or re.match(
            r",\s+(\w+ing)\s+(.*)", after
        )
        if clause and fallback is None and re.fullmatch(r"[a-z]+", clause.group(1)):
            phrase = verb_phrase(clause.group(1), clause.group(2))
            fallback = None if phrase is None else f"{name}: {phrase}"
    return fallback


_SUBJECT_STARTS = ("we", "this", "our", "and")  # the words a match of the regexes below starts with


@lru_cache(maxsize=512)  # the passes of _sentence_title look at the same sentences
def subject_starts(sentence: str) -> tuple[int, ...] | None:
    """Sorted places in ``sentence`` where one of _SUBJECT_STARTS stands, in any case: a superset of
    where a match of _SUBJECT (or "and") can start. None when lower() could misplace or miss one:
    it lengthens a character, or the sentence holds one IGNORECASE matches to an ASCII letter."""
    lowered = sentence.lower()
    if len(lowered) != len(sentence) or (not sentence.isascii() and any(c in sentence for c in CASE_TWINS)):
        return None
    found: list[int] = []
    for word in _SUBJECT_STARTS:
        i = lowered.find(word)
        while i >= 0:
            found.append(i)
            i = lowered.find(word, i + 1)
    return tuple(sorted(found))


def search_from(regex: re.Pattern[str], sentence: str) -> re.Match[str] | None:
    """``regex.search(sentence)`` for a regex whose matches start with _SUBJECT or "and", tried only
    at subject_starts(sentence), leftmost first: each search of these IGNORECASE patterns
    tried every character: most of _sentence_title's 77 µs an abstract."""
    starts = subject_starts(sentence)
    if starts is None:
        return regex.search(sentence)
    for at in starts:
        m = regex.match(sentence, at)
        if m is not None:
            return m
    return None


def _sentence_title(text: str) -> str:
    """Title from the sentence that says what the paper does, in order of how telling it is."""
    sentences = split_sentences(text)
    if not sentences:
        return ""
    secondary: list[str] = []  # "we then/further propose": usually not the main contribution
    parts: list[str] = []  # "we introduce two routes: …": components, not the paper
    for s in sentences:
        m = search_from(_WE_PROPOSE_RE, s)
        if m and not (m.group(0)[:3].lower() == "and" and not re.search(r"\bwe\b", s[: m.start()], re.I)):
            rest = s[m.end() :]
            if _PARTS_RE.match(rest):
                parts.append(rest)
            elif _SECONDARY_RE.search(s[: m.end()].rstrip()):
                secondary.append(rest)
            else:
                return _object_title(rest)
    for s in sentences:
        m = search_from(_BY_RE, s)
        if m:
            return _capitalize(_tidy(s[m.end() :], article=False))
    if sentences[0].endswith("?") and len(sentences[0]) <= TITLE_MAX:
        return sentences[0]
    for s in sentences:
        m = search_from(_STUDY_RE, s)
        if m:
            return _capitalize(_tidy(s[m.end() :]))
    if secondary:
        return _object_title(secondary[0])
    for s in sentences:
        m = search_from(_GERUND_RE, s)
        if m:
            rest = re.sub(
                rf"^(.*?)\band ({_GERUND_VERBS}|improve)\b",
                lambda g: g.group(1) + "and " + gerund(g.group(2)).lower(),
                m.group("rest"),
                count=1,
            )
            verb = gerund(m.group("verb"))
            if m.group("adverb"):  # "we partially identify" → "Partially identifying"
                verb = f"{m.group('adverb').capitalize()} {verb.lower()}"
            return f"{verb} {_tidy(rest, article=False)}"
    for s in sentences:
        m = search_from(_OFFER_RE, s)
        if m:
            return _capitalize(_tidy(s[m.end() :]))
    if parts:
        return _object_title(parts[0])
    for s in sentences:
        m = search_from(_THAT_RE, s)
        if m and not m.group("how") and re.match(r"(?:it|them|this|these)\s", m.group("rest"), re.I):
            continue  # "we demonstrate it to outperform …" says nothing on its own
        if m:
            if m.group("how"):
                return "How " + _tidy(m.group("rest"), article=False)
            return _capitalize(_tidy(m.group("rest"), article=False))
    return _capitalize(_tidy(sentences[0], article=False))


def derive_title(readable: str, short_name: str | None) -> str:
    """A scannable title (≤ 120 chars, plain text): "NAME: what it is" or the abstract's key sentence."""
    try:
        title = _derive_title(readable, short_name)
    except Exception:  # RecursionError included: a bug here must not stop an import
        log.warning("title derivation failed, the abstract's opening is used: %.80r", readable, exc_info=True)
        title = ""
    title = _plain_title(title) or _plain_title(readable)
    return fit_title(_person_start(title)) or "Untitled"


# Words no title a person writes starts with: a conjunction or a pronoun left from the sentence.
BAD_STARTS = frozenset(("and", "that", "we", "this", "it"))
_PRONOUN_VERB_RE = re.compile(
    r"(?:we|it|this(?: [a-z]+)?)\s+(?:(?:can|could|may|might|will|would|also|then|further|indeed|first|"
    r"thus|therefore|here|now|\w+ly)\s+)*(?P<verb>[a-z]+)\s+(?P<rest>\S.*)",
    re.IGNORECASE,
)


def _person_start(title: str) -> str:
    """``title`` reworded so it starts as a person's title does: "We can solve X" → "Solving X",
    "And X" / "That, X" → "X"; never with one of BAD_STARTS."""
    while (first := _FIRST_WORD_RE.match(title)) and first.group(1).lower() in BAD_STARTS:
        m = _PRONOUN_VERB_RE.match(title, first.start(1))
        phrase = verb_phrase(m.group("verb"), m.group("rest")) if m else None
        first_of_phrase = _FIRST_WORD_RE.match(phrase) if phrase else None
        if phrase and first_of_phrase and first_of_phrase.group(1).lower() not in BAD_STARTS:
            return phrase
        title = _capitalize(title[first.end(1) :].lstrip(" ,;:–—-"))  # one word shorter each time
    return title


_FIRST_WORD_RE = re.compile(r"\W*(\w+)")


def _plain_title(text: str) -> str:
    """No markup debris may reach a title, even from unreadable input."""
    text = re.sub(r"\*{2,}", "", re.sub(r"[$\\]", "", text))
    text = re.sub(r"(?<=\w)~(?!\w)", "", text)  # LaTeX's tie before a dropped citation: "BERT~"
    return one_space(text).strip()


def _derive_title(readable: str, short_name: str | None) -> str:
    text = one_space(strip_urls(readable, "")).strip() or readable.strip()
    if short_name and short_name in text:
        named = _name_title(text, short_name)
        if named:
            return named
        return _named(short_name, _sentence_title(text))
    base = _sentence_title(text)
    if short_name and short_name in readable:  # named by its code's address alone
        return _named(short_name, base)
    return base


def _named(name: str, base: str) -> str:
    """ "NAME: base" (a base that is "Long form: what it does" gives "NAME: Long form")."""
    if name in base or not base.strip():
        return base
    lead = re.match(r"([^:]{12,}?): ", base)
    return f"{name}: {lead.group(1) if lead else base}"
