"""Which of the names an abstract's cues brought in is the paper's own: each candidate scored by its
cue, its uses, its definition and its place, the field's acronyms and a method's parts set aside,
and the name grown to the compound the abstract builds on it ("ARO-Net" for ARO).

The finder (short_names.py) gathers the candidates; ``choose`` picks one.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from desk.core.text.name_shape import TITLE_COMPOUND_RE, is_generic, name_shaped, qualifies
from desk.core.text.sentences import name_spots

_APPOSITION_RE = re.compile(r"(?: \([^()]*\))?(?: and \S+)?(?: \w+)?, (?:a|an|which)\b")  # "X (…) tool, a"

EXPANSION_RE = re.compile(r" \([A-Z][^()]{6,}\)")  # "PAVE (Policy-Aware Value-field Equalization)"

# The words that open a parenthetical naming what it holds: "(i.e., MM-Diffusion)", "(dubbed as IRON)".
NAMING_ASIDE = r"(?:i\.e\.,?|namely|dubbed(?: as)?|called|termed|abbreviated as)"

_NAMING_ASIDE_RE = re.compile(rf"\({NAMING_ASIDE} $")


@dataclass
class Candidate:
    """A name a cue brought in: where the abstract first has it, the strongest cue that brought it,
    and how many words it has."""

    name: str
    first: int
    cue: float = 0.0
    words: int = 1


def counted(spots: list[tuple[int, bool]]) -> tuple[int, int]:
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
        if EXPANSION_RE.match(text, end):
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


LEAD_BONUS = 2.0

REPO_BONUS = 2.0

# A repository's name the abstract's words never use is the paper's only when it reads as a name:
# "DKM", "FeatureBooster", not a slug like "MS2-MultiSpectralStereoDataset".
REPO_ALONE_MAX = 16


def choose(
    cands: dict[str, Candidate], text: str, background: set[str], lead: set[str], repos: set[str]
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
        whole, prefix = counted(spots)
        if cand.name in repos and (whole or len(cand.name) <= REPO_ALONE_MAX):
            whole += 1  # the address of the paper's code is a use of the name too
        if whole == 0 and prefix == 0:
            continue
        if _component(cand.name, text, spots, lead=cand.name in lead):
            continue
        defined = _parens_defined(cand.name, text, spots)
        if cand.words == 1 and TITLE_COMPOUND_RE.fullmatch(cand.name) and not defined and cand.cue < 5:
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
        if not (qualifies(token.rstrip("+")) and name_shaped(token, text)) or is_generic(token):
            continue
        added = token.replace(name, "", 1)
        if not (added == "++" or any(c.isupper() or c.isdigit() for c in added)):
            continue  # "SCORE-enhanced": a phrase, not a name
        if (token in repos or uses >= 2) and (best is None or uses > best[0]):
            best = (uses, token)
    return best[1] if best else name
