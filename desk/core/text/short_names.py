"""The method's short name an abstract introduces (RACER, STAR-KV, OGPO), found from its cues."""

from __future__ import annotations

import logging
import re
from collections import Counter
from dataclasses import dataclass

from desk.core.text.acronyms import GENERIC
from desk.core.text.cues import STRONG_VERBS as _STRONG_VERBS
from desk.core.text.cues import SUBJECT as _SUBJECT
from desk.core.text.cues import CueScan
from desk.core.text.sentences import name_spots, split_sentences, strip_urls, url_spans

log = logging.getLogger(__name__)

_APPOSITION_RE = re.compile(r"(?: \([^()]*\))?(?: and \S+)?(?: \w+)?, (?:a|an|which)\b")  # "X (…) tool, a"
_EXPANSION_RE = re.compile(r" \([A-Z][^()]{6,}\)")  # "PAVE (Policy-Aware Value-field Equalization)"
_TITLE_COMPOUND_RE = re.compile(r"[A-Z][a-z]+(?:-[A-Za-z][a-z]*)+")
# "(NeRF)", "(PVT-SSD)": a one-token parenthetical, or one that names: "(i.e., MM-Diffusion)"
_NAMING_ASIDE = r"(?:i\.e\.,?|namely|dubbed(?: as)?|called|termed|abbreviated as)"
_DEFINED_RE = re.compile(rf"\((?:{_NAMING_ASIDE} )?([^\s()]{{2,15}})\)")
_NAMING_ASIDE_RE = re.compile(rf"\({_NAMING_ASIDE} $")
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


def _upper_count(token: str) -> int:
    return sum(map(str.isupper, token))


_DIMENSION_RE = re.compile(r"\d+D?|[A-Z]")  # "3D", "6", "D" (of RGB-D)


def _is_generic(token: str) -> bool:
    t = token.upper()
    if t in GENERIC or (token.endswith("s") and t[:-1] in GENERIC):
        return True
    # "3D-GANs", "6-DoF", "RGB-D": a compound of the field's words and dimensions names nothing new
    parts = re.split(r"[-.]", t)
    return len(parts) > 1 and all(
        p in GENERIC or (p.endswith("S") and p[:-1] in GENERIC) or _DIMENSION_RE.fullmatch(p) for p in parts
    )


# A name that starts in lower case has a capital within its first letters: "iDisc", "vMAP", "expOSE".
_LOWER_START_RE = re.compile(r"[a-z]{1,3}[A-Z]")


def _qualifies(token: str) -> bool:
    """Looks like a coined method name: RACER, STAR-KV, PoMtVRS, Conf-Gen, D²TR, iDisc."""
    if not token:
        return False
    if not (token[0].isupper() or token[0].isdigit()):
        # "iDisc": one capital is enough where it follows the lower-case start ("mAP" is GENERIC)
        return (
            _LOWER_START_RE.match(token) is not None
            and sum(map(str.isalpha, token)) >= 4
            and not _is_generic(token)
        )
    caps = _upper_count(token)
    if caps == 0 or sum(map(str.isalpha, token)) < (2 if caps >= 2 else 3) or _is_generic(token):
        return False
    return caps >= 2 or any(map(str.isdigit, token))


# What a name may hold besides letters and digits: hyphens and dots inside it, "+" ("FlowFormer++"),
# an apostrophe, a plain superscript ("CLIP^2"). Anything else is punctuation or math ("BERT~",
# "O((Md+dloglog", "KID)—a").
_NAME_WORD_RE = re.compile(r"[^\W_](?:[^\W_]|[-.'’](?=[^\W_])|\^(?=\d))*\+*")
# A last part that makes a name a phrase's fragment: "CLIP-based", "3D-aware", "MetaShift-a".
_FRAGMENT_RE = re.compile(r"[-.]([a-z]+)$")
_FRAGMENT_TEXT = """a an the is are and or of to in on for with based like style driven guided free level wise
    specific agnostic only aware"""
_FRAGMENT_TAILS = frozenset(_FRAGMENT_TEXT.split())
# English words a sentence may start with in capitals that no paper is named ("AND", "AT").
_FUNCTION_WORDS_TEXT = """A AN AND ARE AS AT BE BUT BY FOR FROM HOW IN INTO IS IT ITS OF ON OR OUR THAT THE
    THEIR THESE THIS THOSE TO WE WHICH WITH"""
_FUNCTION_WORDS = frozenset(_FUNCTION_WORDS_TEXT.split())


NAME_MAX = 40  # the longest real names are about 25 characters ("InstructPix2Pix", "DeepVecFont-v2")


def name_shaped(name: str, text: str) -> bool:
    """Whether ``name`` can be shown as a paper's name: words of letters and digits (no punctuation,
    math or dash-joined fragment), no English word of ``text`` ("Neural" where the abstract writes
    "neural", "That", "AND")."""
    if len(name) > NAME_MAX:
        return False
    words = name.split(" ")
    for word in words:
        if not _NAME_WORD_RE.fullmatch(word):
            return False
        tail = _FRAGMENT_RE.search(word) if "-" in word else None
        if tail and (tail.group(1) in _FRAGMENT_TAILS or _as_word(tail.group(1), text)):
            return False
        if _UNIT_RE.fullmatch(word) or _highlighted(word, text):
            return False
    if len(words) == 1 and name.upper() in _FUNCTION_WORDS:
        return False
    # Capitalised ordinary words ("Neural", "Semantic Sorting"): a name only where the abstract does
    # not write each of them in lower case.
    return not all(_ordinary(word, text) for word in words)


# A quantity, not a name: "10Hz", "4K", "30fps", "2x".
_UNIT_RE = re.compile(r"\d+(?:\.\d+)?(?:[kMG]?Hz|fps|FPS|ms|[KMGT]B|mm|cm|km|px|[KMBxX])")


def _highlighted(word: str, text: str) -> bool:
    """Whether ``word`` is an English word of ``text`` with the letters of an acronym in capitals:
    "MOtion" of "MOtion, Scene and Object (MOSO)", where the abstract also writes "motion"."""
    if not word.isalpha() or word.isupper() or word[1:].islower() or not _as_word(word.lower(), text):
        return False
    if word[:2].isupper():
        return True  # "MAsked", "VIdeo"
    # "IteRative prOposal refiNement (IRON)": a long form, its acronym soon after ("ProPose" is a name)
    at = text.find(word)
    return at >= 0 and re.search(r"\([^\s()]{2,15}\)", text[at : at + 80]) is not None


def _ordinary(word: str, text: str) -> bool:
    """Whether ``word`` is a capitalised English word that ``text`` also writes in lower case."""
    return word.isalpha() and word[1:].islower() and _as_word(word.lower(), text)


def _as_word(word: str, text: str, joiners: str = "_-") -> bool:
    """Whether ``text`` holds ``word`` as a word of its own (not inside a compound: no letter, digit
    or one of ``joiners`` either side). A plain search: a regex per word was compiled anew for most
    abstracts (the cache holds 512), which cost more than the rest of finding the name."""
    if not word:
        return False
    n = len(word)
    i = text.find(word)
    while i >= 0:
        before, after = text[i - 1 : i], text[i + n : i + n + 1]
        if not (before and (before.isalnum() or before in joiners)) and not (
            after and (after.isalnum() or after in joiners)
        ):
            return True
        i = text.find(word, i + 1)
    return False


@dataclass
class _Candidate:
    name: str
    first: int
    cue: float = 0.0
    words: int = 1


def _occurrences(name: str, text: str) -> tuple[int, int]:
    return _counted(name_spots(name, text))


def _counted(spots: list[tuple[int, bool]]) -> tuple[int, int]:
    """(whole-token uses, uses as a prefix) of a name from its name_spots()."""
    prefix = sum(1 for _, p in spots if p)
    return len(spots) - prefix, prefix


def _parens_defined(name: str, text: str, spots: list[tuple[int, bool]]) -> bool:
    """``spots``: name_spots(name, text)."""
    if f"({name})" in text or f"({name}s)" in text:
        return True
    for end, prefix in spots:
        if prefix:
            continue
        if _EXPANSION_RE.match(text, end):
            return True
        start = end - len(name)
        if text[end : end + 1] == ")" and _NAMING_ASIDE_RE.search(text, max(start - 20, 0), start):
            return True  # "(dubbed as IRON)"
    return False


# A part of a method, not the paper's: "… matching module (CFGM)", "a Semantic Sorting and NMS module".
_COMPONENT = r"(?:module|branch|mechanism|component|operator)s?"
_COMPONENT_AFTER_RE = re.compile(rf"(?:\s+and\s+\S+)?\s+{_COMPONENT}\b")
_COMPONENT_BEFORE_RE = re.compile(r"\bmodules?\s*$")  # not "… mechanism (CrOC)": often the method


def _component(name: str, text: str, spots: list[tuple[int, bool]], *, lead: bool = False) -> bool:
    """Whether the abstract calls ``name`` a part of its method (``spots``: its name_spots()); a
    name of the first "we propose" sentence (``lead``) is one only as "NAME module", not as
    "a Masked Image Consistency (MIC) module", which is often the paper's whole method."""
    for end, prefix in spots:
        if prefix:
            continue
        start = end - len(name)
        closed = not lead and text[end : end + 1] == ")"  # "a … generator (DDG) module is proposed"
        if _COMPONENT_AFTER_RE.match(text, end + closed):
            return True
        opened = text[start - 1 : start] == "("
        if opened and _COMPONENT_BEFORE_RE.search(text, max(start - 30, 0), start - 1):
            return True
    return False


def _apposed(text: str, spots: list[tuple[int, bool]]) -> bool:
    """Whether an apposition follows a whole-token use of a name (``spots``: its name_spots())."""
    return any(_APPOSITION_RE.match(text, end) for end, prefix in spots if not prefix)


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
        if raw[0].islower() and not _LOWER_START_RE.match(raw):  # most words: only end a run
            if cur:
                runs.append(cur)
                cur = []
            continue
        word = raw.strip(".,;:!?\"“”'’")
        core = word.strip("()")
        capital = bool(core) and (core[0].isupper() or _qualifies(core))
        if word.startswith("(") and core:
            # "(ACRO)" alone; "(Neural Optical …)" opens a long form, whose first word is no name
            capital = _upper_count(core) >= 1 and word.endswith(")")
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
    m = next((m for m in _DEFINED_RE.finditer(window) if _qualifies(m.group(1))), None)
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
    if _as_word(word.lower(), text, joiners="_"):
        return None
    # once named, the word must be all the window holds: not "Fisheye downsampling, a method"
    once = bool(m.group(1)) or (named and not window[m.end() :].strip(" ."))
    if not once and _occurrences(word, text)[0] < 2 and not _EXPANSION_RE.match(window, m.end()):
        return None
    return word


def _credit(
    cands: dict[str, _Candidate], window: str, text: str, offset: int, cue: float, *, apposed: bool = False
) -> None:
    """Give the cue to the names in a window: "(ACRO)", a repeated phrase, or coined tokens
    (``apposed``: the window is followed by "…, a … method")."""
    coined = _coined_word(window, text, named=cue == NAMING_CUE or apposed)
    if coined is not None:
        _bump(cands, coined, _position(coined, text, offset), cue)
    for run in _runs(_without_long_form(window)):
        if run[0].startswith("("):
            token = run[0].strip("()")
            if _qualifies(token) or (_upper_count(token) >= 1 and len(token) >= 2 and not _is_generic(token)):
                _bump(cands, token, _position(token, text, offset), cue)
            continue
        phrase = " ".join(run)
        tokens = [w for w in run if _qualifies(w) and not _TITLE_COMPOUND_RE.fullmatch(w)]
        if 2 <= len(run) <= 3 and (tokens or _occurrences(phrase, text)[0] >= 2):
            _bump(cands, phrase, _position(phrase, text, offset), cue, words=len(run))
            continue
        if cue >= 5 and len(run) == 1 and _qualifies(run[0]):
            tokens = run  # "called Lite-Mono": a compound alone after a naming word is a name
        for token in tokens:
            _bump(cands, token, _position(token, text, offset), cue)


def _position(name: str, text: str, offset: int) -> int:
    found = text.find(name, offset)
    return found if found >= 0 else offset


def _bump(cands: dict[str, _Candidate], name: str, offset: int, cue: float, words: int = 1) -> None:
    cand = cands.setdefault(name, _Candidate(name, offset, words=words))
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
    if _qualifies(name):
        return name
    coined = re.fullmatch(r"[A-Z][a-z]{3,}", name) and not _as_word(name.lower(), text)
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
            if _qualifies(name):
                names.add(name)
        page = _PAGE_RE.search(readable, start, end)  # "…github.io/K-Planes", "…/projects/Crowd3D"
        name = _VENUE_TAIL_RE.sub("", page.group(1)) if page else ""
        if _qualifies(name) and not _VENUE_RE.fullmatch(name):
            names.add(name)
    return names


def _find_short_name(readable: str) -> str | None:
    text = strip_urls(readable, " ")
    cands: dict[str, _Candidate] = {}
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
        defined = [m for m in _DEFINED_RE.finditer(sentence) if _qualifies(m.group(1))]
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
            if coined and _qualifies(first) and not _TITLE_COMPOUND_RE.fullmatch(first):
                cands.setdefault(first, _Candidate(first, offset))
        for at, token in _apposed_names(sentence):  # "NAME, a …" defines NAME …
            used = _USED_BEFORE_RE.search(sentence, max(at - 12, 0), at)
            if _qualifies(token) and not _is_generic(token) and used is None:
                _bump(cands, token, offset + at, 4.0)
    for at, token in _owned(text):
        if _qualifies(token):
            _bump(cands, token, at, OWNED_CUE)
    for m in _FOR_SHORT_RE.finditer(text) if " for short" in text else ():  # "… or CiCo for short"
        if _qualifies(m.group(1)):
            _bump(cands, m.group(1), m.start(), 5.0)
    repos = repository_names(readable)
    for name in repos:
        _bump(cands, name, _position(name, text, len(text)), 4.0)
    return _choose(cands, text, background, lead, repos)


NAMING_CUE = 5.0  # the strength of "called NAME", "dubbed NAME", "referred to as NAME"
OWNED_CUE = 4.0  # "our NAME", "the proposed NAME"
LEAD_BONUS = 2.0
REPO_BONUS = 2.0
# A repository's name the abstract's words never use is the paper's only when it reads as a name:
# "DKM", "FeatureBooster", not a slug like "MS2-MultiSpectralStereoDataset".
REPO_ALONE_MAX = 16


def _choose(
    cands: dict[str, _Candidate], text: str, background: set[str], lead: set[str], repos: set[str]
) -> str | None:
    """The best name the abstract defines (a cue brought it in), or None: a name it only uses, or
    the field's acronym ("… fields (NeRF) excel at"), is no name of the paper's own."""
    best: tuple[int, float, int, str] | None = None
    for cand in cands.values():
        if cand.name in background or f"{cand.name}s" in background:
            continue
        if not name_shaped(cand.name, text):
            continue
        spots = name_spots(cand.name, text)  # one search for the three questions below
        whole, prefix = _counted(spots)
        if cand.name in repos and (whole or len(cand.name) <= REPO_ALONE_MAX):
            whole += 1  # the address of the paper's code is a use of the name too
        if whole == 0 and prefix == 0:
            continue
        if _component(cand.name, text, spots, lead=cand.name in lead):
            continue
        defined = _parens_defined(cand.name, text, spots)
        if cand.words == 1 and _TITLE_COMPOUND_RE.fullmatch(cand.name) and not defined and cand.cue < 5:
            continue  # "Reward-Shaping", "Actor-Critic": ordinary compounds unless defined as a name
        score = cand.cue + min(whole - 1, 4) + 0.5 * min(prefix, 4)
        if defined:
            score += 2
        if _apposed(text, spots):
            score += 2
        if cand.name in lead:
            score += LEAD_BONUS
        if cand.name in repos:
            score += REPO_BONUS
        if cand.cue >= 3:
            tier, ok = 2, score >= 5 and (whole >= 2 or cand.cue >= 4)
        else:  # no cue: a coined mixed-case name that starts a sentence and is used throughout
            tier, ok, score = 1, whole >= 3, whole
        key = (tier, score, -cand.first, cand.name)
        if ok and (best is None or key[:3] > best[:3]):
            best = key
    if best is None:
        return None
    name = best[3]
    if _PLURAL_RE.fullmatch(name):
        name = name[:-1]  # "dense prediction fields (DPFs)": the method is DPF
    return _compound(name, text, repos)


_PLURAL_RE = re.compile(r"[A-Z][A-Z0-9]*[A-Z]s")  # an acronym in the plural: "DPFs", "GANs"
_COMPOUND_REACH = 40


def _compound(name: str, text: str, repos: set[str]) -> str:
    """The paper's name built on ``name`` where the abstract has one: "ARO-Net" for ARO, "GradICON"
    for ICON, "FlowFormer++" for FlowFormer (the part is a component or the method built on)."""
    if " " in name:
        return name
    found: Counter[str] = Counter()
    i = text.find(name)
    while i >= 0:
        start, end = i, i + len(name)
        # A name is short: a token grown past _COMPOUND_REACH characters is no name, and the bound
        # keeps "A-A-A-…" from costing the square of its length.
        floor, ceiling = max(i - _COMPOUND_REACH, 0), min(end + _COMPOUND_REACH, len(text))
        while start > floor and (text[start - 1].isalnum() or text[start - 1] == "-"):
            start -= 1
        while end < ceiling and (text[end].isalnum() or text[end] in "-+"):
            end += 1
        token = text[start:end].rstrip("-")
        if (start == floor > 0 and text[start - 1].isalnum()) or (end == ceiling < len(text)):
            token = name  # cut at the reach: a run of words, not a name
        if token != name and token.endswith("+") and not token.endswith(name + "++"):
            token = token.rstrip("+")
        if token != name and (token[:1].isupper() or token[:1].isdigit()) and not token.startswith("-"):
            found[token] += 1
        i = text.find(name, i + 1)
    best: tuple[int, str] | None = None
    for token, uses in found.items():
        if not (_qualifies(token.rstrip("+")) and name_shaped(token, text)) or _is_generic(token):
            continue
        added = token.replace(name, "", 1)
        if not (added == "++" or any(c.isupper() or c.isdigit() for c in added)):
            continue  # "SCORE-enhanced": a phrase, not a name
        if (token in repos or uses >= 2) and (best is None or uses > best[0]):
            best = (uses, token)
    return best[1] if best else name


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
