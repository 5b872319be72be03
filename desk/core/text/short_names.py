"""The method's short name an abstract introduces (RACER, STAR-KV, OGPO), found from its cues.

Here the finding: each sentence's cues ("we propose", "called", "our"), the windows after them,
the names they bring in as candidates with the cue's strength. What a name looks like is in
name_shape.py; which candidate is the paper's own, in short_name_choice.py.
"""

from __future__ import annotations

import logging
import re

from desk.core.text.cues import STRONG_VERBS as _STRONG_VERBS
from desk.core.text.cues import SUBJECT as _SUBJECT
from desk.core.text.cues import CueScan
from desk.core.text.name_shape import (
    LOWER_START_RE,
    TITLE_COMPOUND_RE,
    as_word,
    is_generic,
    qualifies,
    upper_count,
)
from desk.core.text.sentences import name_spots, split_sentences, strip_urls, url_spans
from desk.core.text.short_name_choice import EXPANSION_RE, NAMING_ASIDE, Candidate, choose, counted

log = logging.getLogger(__name__)

# "(NeRF)", "(PVT-SSD)": a one-token parenthetical, or one that names: "(i.e., MM-Diffusion)"
_DEFINED_RE = re.compile(rf"\((?:{NAMING_ASIDE} )?([^\s()]{{2,15}})\)")
# A sentence that brings in something of the authors' own even without a cue verb
# ("This is enabled by a new framework, Polygon Transformer (PolyFormer)").
# Not "novel" alone: "Novel view synthesis … (NeRF)" is the field.
_OWN_RE = re.compile(r"\b(?:an? (?:novel|new)|the proposed)\b", re.IGNORECASE)
_OWN_WORDS = ("novel", "new", "propo")  # _OWN_RE matches no sentence whose lower() holds none


def _may_bring_own(sentence: str) -> bool:
    """False when _OWN_RE cannot match ``sentence`` (a substring test, 1 µs, before a regex that is
    tried at every character, 3 µs a sentence).

    Under IGNORECASE the letters of "novel" and "new" match only their ASCII cases, which
    lower() maps to them; the "s" of "proposed" also matches "ſ", hence "propo".
    """
    lowered = sentence.lower()
    return any(word in lowered for word in _OWN_WORDS)


def _may_bring_own_at(lowered: str, start: int, end: int) -> bool:
    """``_may_bring_own(text[start:end])`` from ``lowered = text.lower()``, when that is as long as
    ``text`` (each character lowered to one: only the Greek sigma's depends on its neighbours,
    never to an ASCII letter), without lowering each sentence anew."""
    return any(lowered.find(word, start, end) >= 0 for word in _OWN_WORDS)


_LONG_FORM_WORDS = 8  # how far back from "(ACRO)" its spelled-out form may start


def _occurrences(name: str, text: str) -> tuple[int, int]:
    return counted(name_spots(name, text))


_WINDOW_MAX = 180
_WINDOW_STOPS_RE = re.compile(r"[(),;:]")  # what _window() looks at; it steps over the rest at C speed


def _window(sentence: str, start: int) -> str:
    """Text after a cue up to the first clause break outside parentheses."""
    depth = 0
    for m in _WINDOW_STOPS_RE.finditer(sentence, start, start + _WINDOW_MAX):
        c = m.group()
        if c == "(":
            depth += 1
        elif c == ")":
            depth = max(depth - 1, 0)
        elif depth == 0:
            return sentence[start : m.start()]
    return sentence[start : start + _WINDOW_MAX]


def _runs(window: str) -> list[list[str]]:
    """Maximal runs of capitalised words (name-like phrases) in a cue window."""
    runs: list[list[str]] = []
    cur: list[str] = []
    for raw in window.split():
        if raw[0].islower() and not LOWER_START_RE.match(raw):  # most words: only end a run
            if cur:
                runs.append(cur)
                cur = []
            continue
        word = raw.strip(".,;:!?\"“”'’")
        core = word.strip("()")
        capital = bool(core) and (core[0].isupper() or qualifies(core))
        if word.startswith("(") and core:
            # "(ACRO)" alone; "(Neural Optical …)" opens a long form, whose first word is no name
            capital = upper_count(core) >= 1 and word.endswith(")")
        if capital and not word.startswith("(") and word == core:
            cur.append(core)
            continue
        if cur:
            runs.append(cur)
            cur = []
        if capital and word.startswith("(") and core:
            runs.append([word])  # "(ACRO)" stands alone
    if cur:
        runs.append(cur)
    return runs


def _without_long_form(window: str) -> str:
    """The window without the spelled-out form of a name it defines: in "we present Frequency
    regularized NeRF (FreeNeRF)" the name is FreeNeRF, and NeRF is a word of its long form."""
    m = next((m for m in _DEFINED_RE.finditer(window) if qualifies(m.group(1))), None)
    if m is None:
        return window
    initial = next((c for c in m.group(1) if c.isalpha()), "").upper()
    words = list(re.finditer(r"\S+", window[: m.start()]))
    for w in reversed(words[-_LONG_FORM_WORDS:]):
        if w.group(0).lstrip("(\"“'").upper().startswith(initial):
            return window[: w.start()] + window[m.start() :]
    return window


def _coined_word(window: str, text: str, *, named: bool = False) -> str | None:
    """A capitalised ordinary-looking word right after the cue, never written in lower case, used
    again or spelled out after it: "We present Galactic, a large-scale framework … Galactic" and
    "We propose Nougat (Neural Optical Understanding for Academic Documents)" name their word.
    Used once, it is a name where the cue names it (``named``: "a framework named Dionysus", "we
    introduce Neuralizer, a single model") or quotes it ("we propose “Handy”, a model")."""
    # one word: "Krause Attention" is a phrase
    m = re.match(r"\s*([“\"‘]?)([A-Z][a-z]{3,})\b[”\"’]?(?![-\s]+(?:[A-Z]|\d+D\b))", window)
    if m is None:
        return None
    word = m.group(2)
    if as_word(word.lower(), text, joiners="_"):
        return None
    # once named, the word must be all the window holds: not "Fisheye downsampling, a method"
    once = bool(m.group(1)) or (named and not window[m.end() :].strip(" ."))
    if not once and _occurrences(word, text)[0] < 2 and not EXPANSION_RE.match(window, m.end()):
        return None
    return word


def _credit(
    cands: dict[str, Candidate], window: str, text: str, offset: int, cue: float, *, apposed: bool = False
) -> None:
    """Give the cue to the names in a window: "(ACRO)", a repeated phrase, or coined tokens
    (``apposed``: the window is followed by "…, a … method")."""
    coined = _coined_word(window, text, named=cue == NAMING_CUE or apposed)
    if coined is not None:
        _bump(cands, coined, _position(coined, text, offset), cue)
    for run in _runs(_without_long_form(window)):
        if run[0].startswith("("):
            token = run[0].strip("()")
            if qualifies(token) or (upper_count(token) >= 1 and len(token) >= 2 and not is_generic(token)):
                _bump(cands, token, _position(token, text, offset), cue)
            continue
        phrase = " ".join(run)
        tokens = [w for w in run if qualifies(w) and not TITLE_COMPOUND_RE.fullmatch(w)]
        if 2 <= len(run) <= 3 and (tokens or _occurrences(phrase, text)[0] >= 2):
            _bump(cands, phrase, _position(phrase, text, offset), cue, words=len(run))
            continue
        if cue >= 5 and len(run) == 1 and qualifies(run[0]):
            tokens = run  # "called Lite-Mono": a compound alone after a naming word is a name
        for token in tokens:
            _bump(cands, token, _position(token, text, offset), cue)


def _position(name: str, text: str, offset: int) -> int:
    found = text.find(name, offset)
    return found if found >= 0 else offset


def _bump(cands: dict[str, Candidate], name: str, offset: int, cue: float, words: int = 1) -> None:
    cand = cands.setdefault(name, Candidate(name, offset, words=words))
    cand.cue = max(cand.cue, cue)
    cand.first = min(cand.first, offset)


def find_short_name(readable: str) -> str | None:
    """The method/system name the abstract introduces (RACER, STAR-KV, OGPO), or None."""
    try:
        return _find_short_name(readable)
    except Exception:  # RecursionError included: a bug here must not stop an import
        log.warning("no short name: finding one failed on %.80r", readable, exc_info=True)
        return None


# "… method, Dependency Graph (DepGraph), to …": the long form, then the name.
_SPELLED_AFTER_RE = re.compile(r",\s*(?:[A-Z][\w-]*\s+){1,6}\(([^\s(),;:]+)\)")
_NAMED_AFTER_RE = re.compile(
    r"[,:]\s*(?:(?:called|named|dubbed|termed|coined|i\.e\.,?)\s+)?([^\s,;:()]+?)\s*(?:,|\(|\b(?:which|that|to|for|is)\b|\.?$)"
)


def _named_after(sentence: str, window: str, cut: int, text: str) -> str | None:
    """The name right after a cue's descriptive window: "we propose a novel LiDAR localization
    framework, SGLoc, which …" names SGLoc (and LiDAR only describes it); "a novel model,
    Gazeformer, to …" names a coined word the abstract never writes in lower case."""
    if not re.match(r"\s*(?:a|an|the)\s", window):
        return None
    m = _NAMED_AFTER_RE.match(sentence, cut) or _SPELLED_AFTER_RE.match(sentence, cut)
    if m is None:
        return None
    name = m.group(1)
    if qualifies(name):
        return name
    coined = re.fullmatch(r"[A-Z][a-z]{3,}", name) and not as_word(name.lower(), text)
    return name if coined and _occurrences(name, text)[0] >= 2 else None


# The repository of the paper's code: "github.com/Parskatt/DKM" is named after the paper's method.
_REPO_RE = re.compile(r"(?:github|gitlab)\.com/[\w.-]+/([\w.+-]+)|([\w.+-]+)\.github\.io\b")
# "NAME, a … method": what follows the name's comma (matched at each ", " of a sentence).
_APPOSITION_TAIL_RE = re.compile(
    r", (?:an?|the first) (?:[\w-]+ ){0,3}?(?:approach|method|framework|model|"
    r"system|algorithm|pipeline|benchmark|dataset|network|architecture|technique|representation|tool|"
    r"attack|paradigm|scheme|strategy|detector|generator|simulator|toolkit|library|suite|transformer)\b"
)


def _apposed_names(sentence: str) -> list[tuple[int, str]]:
    """(start, token) of each "TOKEN, a … method" in ``sentence``: a plain search for ", " first,
    the regex only there (tried at every character it cost 9 µs an abstract)."""
    out: list[tuple[int, str]] = []
    if ", a" not in sentence and ", the first" not in sentence:
        return out  # no match can start: the common case, one substring test each
    i = sentence.find(", ")
    while i > 0:
        if _APPOSITION_TAIL_RE.match(sentence, i):
            start = max(sentence.rfind(" ", 0, i), sentence.rfind("(", 0, i)) + 1
            token = sentence[start:i]
            if token and not any(c in token for c in ",;:()"):
                out.append((start, token))
        i = sentence.find(", ", i + 2)
    return out


# … unless the sentence works on it: "post-training for PlasmidGPT, a foundation model".
_USED_BEFORE_RE = re.compile(
    r"\b(?:for|on|with|using|from|by|like|over|against|than|in|of|surpass(?:es)?|outperforms?|beats?)\s+$"
)
_FOR_SHORT_RE = re.compile(r"\b([^\s,;:()]+) for short\b")
# "our GamutMLP model", "the proposed K3DN outperforms", "Our proposed DLBD": a name the authors own
# (matched where a plain search finds "our " or "proposed ": a regex tried at every character of the
# abstract cost 30 µs).
_OWNED_RE = re.compile(r"(?:[Oo]ur|proposed)(?: proposed)? ([^\s,;:()]+)")


def _owned(text: str) -> list[tuple[int, str]]:
    """(start, token) of each "our TOKEN", "Our proposed TOKEN", "the proposed TOKEN" in ``text``."""
    out: list[tuple[int, str]] = []
    for needle in ("our ", "Our ", "proposed "):
        i = text.find(needle)
        while i >= 0:
            before = text[i - 1 : i]
            if needle == "proposed ":
                ok = text[max(i - 4, 0) : i] in ("the ", "The ") and not text[i - 5 : i - 4].isalnum()
            else:
                ok = not (before and (before.isalnum() or before in "_-"))  # not "four", "your"
            m = _OWNED_RE.match(text, i) if ok else None
            if m is not None:
                out.append((m.start(1), m.group(1)))
            i = text.find(needle, i + len(needle))
    return out


_SUBJECT_RE = re.compile(_SUBJECT, re.IGNORECASE)
# "… network (CASP-Net) is proposed": the authors' own, said in the passive.
# matched right after the "(ACRO)", a noun or two between ("(KHP) scheme is devised")
_PASSIVE_RE = re.compile(
    r"(?: [\w-]+){0,2} (?:is|are) (?:\w+ly |also |further |then |first |thus |hence )?"
    r"(?:proposed|introduced|presented|developed|designed|devised)\b"
)
_PARTICIPLES = ("posed", "duced", "sented", "veloped", "signed", "vised")  # what _PASSIVE_RE needs
# "our Multiscale Encoder-Decoder Video Transformer (MED-VT)": "our" a few words before the "(",
# the long form between (not "Our scheme consists of an energy-based transport (ET)").
_OUR_LONG_FORM_RE = re.compile(
    r"\b[Oo]ur (?:(?!(?:of|a|an|the|is|are|consists?|uses?|has|have|with|to|by|on|in)\b)[^\s()]+ ){0,6}$"
)


def _may_be_passive(sentence: str) -> bool:
    """False when _PASSIVE_RE cannot match in ``sentence`` (it needs one of its participles)."""
    return any(p in sentence for p in _PARTICIPLES)


def _our_long_form(sentence: str, defined: re.Match[str]) -> bool:
    """Whether the "(ACRO)" ``defined`` in ``sentence`` closes a long form that "our" opens (not
    "our thin plate splines (TPS) based network": a tool the method is built on)."""
    if re.match(r"[\s-]based\b", sentence[defined.end() :]):
        return False
    return _OUR_LONG_FORM_RE.search(sentence, max(defined.start() - 80, 0), defined.start()) is not None


# The last part of a project page's path: "sarafridov.github.io/K-Planes", ".../projects/Crowd3D/".
_PAGE_RE = re.compile(r"\.\w+/(?:[\w.-]+/)*([\w+-]+)/?\.?$")
_VENUE = r"(?:CVPR|ICCV|ECCV|NeurIPS|ICLR|ICML|AAAI|IJCAI|WACV|BMVC|ACCV|SIGGRAPH|MICCAI)[-_]?\d{2,4}"
_VENUE_RE = re.compile(rf"{_VENUE}|[A-Za-z]{{3,7}}[-_]?\d{{2,4}}|v\d+")  # "CVPR2023", "v2": no name
_VENUE_TAIL_RE = re.compile(rf"[-_]{_VENUE}$", re.IGNORECASE)


def repository_names(readable: str) -> set[str]:
    """Names that the addresses of ``readable`` give the code's repository (``…/user/NAME``)."""
    names: set[str] = set()
    for start, end in url_spans(readable):
        for m in _REPO_RE.finditer(readable, start, end):
            name = (m.group(1) or m.group(2) or "").rstrip(".")
            if name.endswith(".git"):
                name = name[:-4]
            name = _VENUE_TAIL_RE.sub("", name)  # "MaskCon_CVPR2023": MaskCon
            if qualifies(name):
                names.add(name)
        page = _PAGE_RE.search(readable, start, end)  # "…github.io/K-Planes", "…/projects/Crowd3D"
        name = _VENUE_TAIL_RE.sub("", page.group(1)) if page else ""
        if qualifies(name) and not _VENUE_RE.fullmatch(name):
            names.add(name)
    return names


def _find_short_name(readable: str) -> str | None:
    text = strip_urls(readable, " ")
    cands: dict[str, Candidate] = {}
    pos = 0
    scan = CueScan(text)
    # Acronyms defined before the authors say what they bring, in sentences that bring nothing
    # ("Neural radiance fields (NeRF) excel at …"): the field's words, not the paper's name.
    background: set[str] = set()
    lead: set[str] = set()  # the names of the first "we propose" sentence: the paper's own
    lowered = text.lower()
    lowered_fits = len(lowered) == len(text)  # else positions in it are not positions in text
    for sentence in split_sentences(text):
        offset = text.find(sentence, pos)
        pos = max(offset, pos)
        cued = False
        before = {name: c.cue for name, c in cands.items()}
        matches = scan.matches(offset, offset + len(sentence))
        for m, strength in matches:
            start, end = m.start() - offset, m.end() - offset  # in the sentence
            if m.group(0)[:3].lower() == "and" and not _SUBJECT_RE.search(sentence, 0, start):
                continue  # "... and propose" counts only when the authors ("we", "this paper") propose
            verb = (m.groupdict().get("verb") or "").lower()
            cue = strength or (6.0 if re.fullmatch(_STRONG_VERBS, verb) else 4.0)
            window = _window(sentence, end)
            cut = end + len(window)
            named = _named_after(sentence, window, cut, text)
            if named is not None:
                _bump(cands, named, _position(named, text, m.start()), cue)
            else:
                apposed = _APPOSITION_TAIL_RE.match(sentence, cut) is not None
                _credit(cands, window, text, m.start(), cue, apposed=apposed)
            cued = cued or cue >= 6.0
        defined = [m for m in _DEFINED_RE.finditer(sentence) if qualifies(m.group(1))]
        if cued:
            # Acronyms defined anywhere in a "we propose" sentence ("two new algorithms: ... (GTPO)").
            for m in defined:
                _bump(cands, m.group(1), offset + m.start() + 1, 3.0)
            if not lead:
                lead = {name for name, c in cands.items() if c.cue >= 4 and c.cue > before.get(name, 0.0)}
        elif (
            _may_bring_own_at(lowered, offset, offset + len(sentence))
            if lowered_fits and offset >= 0
            else _may_bring_own(sentence)
        ) and _OWN_RE.search(sentence):
            for m in defined:
                _bump(cands, m.group(1), offset + m.start() + 1, 4.0)
        elif (
            defined
            and _may_be_passive(sentence)
            and any(_PASSIVE_RE.match(sentence, m.end()) for m in defined)
        ):
            for m in defined:  # "a … network (CASP-Net) is proposed"
                if _PASSIVE_RE.match(sentence, m.end()):
                    _bump(cands, m.group(1), offset + m.start() + 1, 4.0)
        elif defined and "ur " in sentence and any(_our_long_form(sentence, m) for m in defined):
            for m in defined:  # "Our Wavelet Implicit neural REpresentation (WIRE) uses …"
                if _our_long_form(sentence, m):
                    _bump(cands, m.group(1), offset + m.start() + 1, 4.0)
        elif not lead and not matches:
            # not a name a cue already brought in ("we denote this … as Exact-NeRF")
            background.update(
                m.group(1) for m in defined if m.group(1) not in cands or cands[m.group(1)].cue < 4
            )
        if sentence[:1].isupper() or sentence[:1].isdigit():
            # "Prompt-GDRO applies …": a coined name the abstract makes its sentences' subject
            first = sentence[: sentence.find(" ")].rstrip(",;:") if " " in sentence else sentence
            coined = not first[1:].islower() and not first.isupper()  # "Prompt-GDRO", not "The" or "GNN"
            if coined and qualifies(first) and not TITLE_COMPOUND_RE.fullmatch(first):
                cands.setdefault(first, Candidate(first, offset))
        for at, token in _apposed_names(sentence):  # "NAME, a …" defines NAME …
            used = _USED_BEFORE_RE.search(sentence, max(at - 12, 0), at)
            if qualifies(token) and not is_generic(token) and used is None:
                _bump(cands, token, offset + at, 4.0)
    for at, token in _owned(text):
        if qualifies(token):
            _bump(cands, token, at, OWNED_CUE)
    for m in _FOR_SHORT_RE.finditer(text) if " for short" in text else ():  # "… or CiCo for short"
        if qualifies(m.group(1)):
            _bump(cands, m.group(1), m.start(), 5.0)
    repos = repository_names(readable)
    for name in repos:
        _bump(cands, name, _position(name, text, len(text)), 4.0)
    return choose(cands, text, background, lead, repos)


NAMING_CUE = 5.0  # the strength of "called NAME", "dubbed NAME", "referred to as NAME"
OWNED_CUE = 4.0  # "our NAME", "the proposed NAME"


# "RACER: …", "STAR-KV: …", "Level-S²fM: …": one word before the colon that reads as a name.
_NAMED_TITLE = re.compile(r"\s*([A-Z0-9][\w\-+.²³]{1,29})\s*:\s+\S")


def short_name_of_title(title: str | None, abstract: str) -> str | None:
    """The paper's own name when its real title begins with one ("RACER: Rational …"), else None.

    The word before the colon counts when it has a second capital or a digit (NeRF, GPT-4), or
    when the abstract uses it too ("Mamba"): "Revisiting: …" names no paper.
    """
    if not title:
        return None
    found = _NAMED_TITLE.match(title)
    if not found:
        return None
    name = found.group(1)
    if sum(c.isupper() for c in name) >= 2 or any(c.isdigit() for c in name) or name in abstract:
        return name
    return None
