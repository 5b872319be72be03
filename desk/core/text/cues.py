"""The sentences where an abstract names its own method: "we propose X", "we address ... via", "called X".

Each cue is a regex run over every sentence of every abstract, which made it the slowest part
of an import's text analysis. A match can only start where one of the cue's first words
stands, so :class:`CueScan` finds those words once per abstract with plain substring search
and tries the regex only there; the matches are the ones a search of each sentence finds.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from dataclasses import dataclass

from desk.core.text.chars import is_printable

STRONG_VERBS = r"propose|introduce|present|unveil|describe"
_WEAK_VERBS = (
    r"develop|design|derive|establish|instantiate|build|construct|release|devise|create|contribute|"
    r"formulate|offer|put forward|term|call|dub|name|coin"
)
SUBJECT = r"\b(?:we|this (?:paper|work|study|article|note)|our (?:paper|work|study))"
ADVERBS = r"(?:(?:\w+ly|also|further|first|then|next|now|additionally|here|therefore|thus)\s+)*"
_VERB_RE = re.compile(
    rf"(?:{SUBJECT}|\band)\s+" + ADVERBS + rf"(?P<verb>{STRONG_VERBS}|{_WEAK_VERBS})(?:s|es|d|ed)?\b"
    r"(?:\s+(?:this|the|our|these)\s+\w+(?:\s+\w+)?\s+as\b)?",
    re.IGNORECASE,
)
_ADDRESS_RE = re.compile(
    SUBJECT + r"\s+" + ADVERBS + r"address(?:es)?\s+(?:this|these|the|such)(?:\s+[\w-]+){0,2}\s+"
    r"(?:via|with|through|using|by (?:developing|proposing|introducing|designing|presenting))\b",
    re.IGNORECASE,
)
_OWN_NOUNS = (
    r"(?:algorithm|method|framework|approach|model|system|optimizer|architecture|benchmark|tool|network|"
    r"dataset|pipeline|technique|solution)"
)
_NAMED_RE = re.compile(
    r"\b(?:called|dubbed|named|termed|coined|namely|which we (?:call|term|dub|name)|abbreviated"
    # "referred to as ToThePoint", "we refer to the framework … as Re-IQA", "we denote this … as"
    r"|referred to as|refer to(?: [\w-]+){0,8}? as|denote(?: [\w-]+){1,4}? as|denoted as)\s+"
    r"(?:as\s+)?(?:the\s+)?"
    # A name, or a long form in lower case before it: "called masked contrastive learning (MaskCon)"
    r"(?=[“\"‘']?[A-Z0-9]|[a-z][\w-]*(?: [\w-]+){0,6} \([^\s()]+\))"
    # "Our method, ECON, …", "Our conditional diffusion model, InstructPix2Pix, …", "The proposed
    # framework, MetaMix, …"
    rf"|\b(?:[Oo]ur|proposed) (?:[\w-]+ ){{0,3}}?{_OWN_NOUNS},?\s+(?=[A-Z0-9])"
)


@dataclass(frozen=True)
class Cue:
    """A cue regex, the strength of its evidence (0: by its verb) and the words a match starts with."""

    regex: re.Pattern[str]
    strength: float
    starts: tuple[str, ...]  # lowercased, each followed by whitespace in any match


CUES = (
    Cue(_VERB_RE, 0.0, ("we", "this", "our", "and")),
    Cue(_ADDRESS_RE, 4.0, ("we", "this", "our")),
    Cue(
        _NAMED_RE,
        5.0,
        (
            "called",
            "dubbed",
            "named",
            "termed",
            "coined",
            "namely",
            "which",
            "our",
            "proposed",
            "abbreviated",
            "referred",
            "refer",
            "denote",
            "denoted",
        ),
    ),
)
_STARTS = tuple(sorted({word for cue in CUES for word in cue.starts}))
# Characters outside ASCII that IGNORECASE matches to an ASCII letter but lower() does not map to it.
CASE_TWINS = ("\u0130", "\u0131", "\u017f", "\u212a")


class CueScan:
    """Finds the cue matches of the sentences of one text (sentences are cut where
    ``split_sentences`` cuts them: at a stop, which no cue match can hold)."""

    def __init__(self, text: str) -> None:
        self.text = text
        starts = _start_positions(text)
        # Per cue, the sorted positions where a match may start; None: search every position.
        self._at = None
        if starts is not None:
            self._at = [sorted(p for w in cue.starts for p in starts[w]) for cue in CUES]

    def matches(self, start: int, end: int) -> list[tuple[re.Match[str], float]]:
        """(match, cue strength) of each cue in ``text[start:end]``, cue by cue, as
        ``cue.regex.finditer(text[start:end])`` finds them (spans are in the whole text)."""
        out: list[tuple[re.Match[str], float]] = []
        text = self.text
        for k, cue in enumerate(CUES):
            if self._at is None:
                out.extend((m, cue.strength) for m in cue.regex.finditer(text, start, end))
                continue
            at = self._at[k]
            after = start
            for i in range(bisect_left(at, start), bisect_left(at, end)):
                if at[i] >= after:
                    m = cue.regex.match(text, at[i], end)
                    if m is not None:
                        out.append((m, cue.strength))
                        after = m.end()
        return out


def _start_positions(text: str) -> dict[str, list[int]] | None:
    """Where each cue's first word stands in ``text`` followed by a space (a superset of where
    a match can start), or None when positions in ``text.lower()`` would not be positions in
    ``text`` or when whitespace other than " " could follow a word."""
    lowered = text.lower()
    if len(lowered) != len(text) or not is_printable(text):
        return None
    if not text.isascii() and any(c in text for c in CASE_TWINS):
        return None
    found: dict[str, list[int]] = {}
    for word in _STARTS:
        needle = word + " "
        at: list[int] = []
        i = lowered.find(needle)
        while i >= 0:
            at.append(i)
            i = lowered.find(needle, i + 1)
        found[word] = at
    return found
