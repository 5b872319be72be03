"""What a method's short name looks like: a coined token (RACER, STAR-KV, iDisc), not the field's acronym, an
English word, a quantity or a phrase's fragment.

The tests the finder (short_names.py) asks of each token it meets and the chooser
(short_name_choice.py) of each candidate: shapes of a token, and whether the abstract writes it as
an ordinary word.
"""

from __future__ import annotations

import re

from desk.core.text.acronyms import GENERIC

# A capitalised compound of ordinary words ("Reward-Shaping", "Actor-Critic"): a name only if defined as one.
TITLE_COMPOUND_RE = re.compile(r"[A-Z][a-z]+(?:-[A-Za-z][a-z]*)+")


def upper_count(token: str) -> int:
    """How many capitals ``token`` has."""
    return sum(map(str.isupper, token))


_DIMENSION_RE = re.compile(r"\d+D?|[A-Z]")  # "3D", "6", "D" (of RGB-D)


def is_generic(token: str) -> bool:
    """Whether ``token`` is the field's word (GENERIC: "GAN", "LLMs"), or a compound of those and
    dimensions ("3D-GANs", "RGB-D"), rather than a name of its own."""
    t = token.upper()
    if t in GENERIC or (token.endswith("s") and t[:-1] in GENERIC):
        return True
    # "3D-GANs", "6-DoF", "RGB-D": a compound of the field's words and dimensions names nothing new
    parts = re.split(r"[-.]", t)
    return len(parts) > 1 and all(
        p in GENERIC or (p.endswith("S") and p[:-1] in GENERIC) or _DIMENSION_RE.fullmatch(p) for p in parts
    )


# A name that starts in lower case has a capital within its first letters: "iDisc", "vMAP", "expOSE".
LOWER_START_RE = re.compile(r"[a-z]{1,3}[A-Z]")


def qualifies(token: str) -> bool:
    """Looks like a coined method name: RACER, STAR-KV, PoMtVRS, Conf-Gen, D²TR, iDisc."""
    if not token:
        return False
    if not (token[0].isupper() or token[0].isdigit()):
        # "iDisc": one capital is enough where it follows the lower-case start ("mAP" is GENERIC)
        return (
            LOWER_START_RE.match(token) is not None
            and sum(map(str.isalpha, token)) >= 4
            and not is_generic(token)
        )
    caps = upper_count(token)
    if caps == 0 or sum(map(str.isalpha, token)) < (2 if caps >= 2 else 3) or is_generic(token):
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
        if tail and (tail.group(1) in _FRAGMENT_TAILS or as_word(tail.group(1), text)):
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
    if not word.isalpha() or word.isupper() or word[1:].islower() or not as_word(word.lower(), text):
        return False
    if word[:2].isupper():
        return True  # "MAsked", "VIdeo"
    # "IteRative prOposal refiNement (IRON)": a long form, its acronym soon after ("ProPose" is a name)
    at = text.find(word)
    return at >= 0 and re.search(r"\([^\s()]{2,15}\)", text[at : at + 80]) is not None


def _ordinary(word: str, text: str) -> bool:
    """Whether ``word`` is a capitalised English word that ``text`` also writes in lower case."""
    return word.isalpha() and word[1:].islower() and as_word(word.lower(), text)


def as_word(word: str, text: str, joiners: str = "_-") -> bool:
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
