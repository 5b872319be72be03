"""Sub- and superscripts of inline math: marked before pylatexenc converts the math, then shown.

``$\\mathbb{R}^d$`` is read as the base "ℝ" and the superscript "d". Plain text (titles,
snippets, exports) shows a script in Unicode's sub/superscript letters where every character
has one ("ℝᵈ", "Hᵢ,ₜ", "x²"), else after its mark ("CVaR_α", "e^(−λt)"); the reading pane
shows the real thing (``<sup>d</sup>``).

Unicode has no superscript q and subscripts of only a few letters: the tables hold what exists.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

Script = Literal["sub", "sup"]

SUP_OPEN, SUB_OPEN, CLOSE = "\ue000", "\ue001", "\ue002"  # private-use: never in an abstract
MARKS = SUP_OPEN + SUB_OPEN + CLOSE

SUPERSCRIPT = dict(
    zip(
        "0123456789+-−=()abcdefghijklmnoprstuvwxyzABDEGHIJKLMNOPRTUVWαβγδεθιφχ⊤∘'′†*∗⋆",
        "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁻⁼⁽⁾ᵃᵇᶜᵈᵉᶠᵍʰⁱʲᵏˡᵐⁿᵒᵖʳˢᵗᵘᵛʷˣʸᶻᴬᴮᴰᴱᴳᴴᴵᴶᴷᴸᴹᴺᴼᴾᴿᵀᵁⱽᵂᵅᵝᵞᵟᵋᶿᶥᵠᵡᵀ°′′†***",
        strict=True,
    )
)
SUBSCRIPT = dict(
    zip(
        "0123456789+-−=()aehijklmnoprstuvxβγρφχ",
        "₀₁₂₃₄₅₆₇₈₉₊₋₋₌₍₎ₐₑₕᵢⱼₖₗₘₙₒₚᵣₛₜᵤᵥₓᵦᵧᵨᵩᵪ",
        strict=True,
    )
)
_PASS = ","  # kept as it is between script letters: H_{i,t} is "Hᵢ,ₜ"
_MACRO_RE = re.compile(r"\\(?:[A-Za-z]+\*?|.)", re.DOTALL)
_MAX_NESTING = 8


@dataclass(frozen=True)
class MathPart:
    """A piece of converted math: base text (``script`` None) or one sub/superscript."""

    text: str  # the plain form: base text, or the script as Unicode letters or after its mark
    script: Script | None = None
    raised: str = ""  # a script's own text, for rich rendering ("d" of ℝᵈ)


def _group_end(src: str, start: int) -> int:
    """Index just past the ``}`` closing the ``{`` at ``start`` (len(src) when unbalanced)."""
    depth = 0
    i = start
    while i < len(src):
        c = src[i]
        if c == "\\":
            i += 2
            continue
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return len(src)


def mark_scripts(src: str, nesting: int = 0) -> str:
    """Math source with each ``^x``/``_{x}`` replaced by marks around its braced body."""
    if "^" not in src and "_" not in src:
        return src
    out: list[str] = []
    i, n = 0, len(src)
    while i < n:
        c = src[i]
        if c == "\\":
            m = _MACRO_RE.match(src, i)
            end = m.end() if m else i + 1
            out.append(src[i:end])
            i = end
            continue
        if c not in "^_":
            out.append(c)
            i += 1
            continue
        j = i + 1
        while j < n and src[j].isspace():
            j += 1
        if j >= n or src[j] in "}^_":
            i = j  # a mark with nothing to raise
            continue
        if src[j] == "{":
            end = _group_end(src, j)
            body = src[j + 1 : end - 1 if src[end - 1 : end] == "}" else end]
        elif src[j] == "\\":
            m = _MACRO_RE.match(src, j)
            end = m.end() if m else j + 1
            body = src[j:end]
        else:
            end, body = j + 1, src[j]
        if nesting < _MAX_NESTING:
            body = mark_scripts(body, nesting + 1)
        # "{}" keeps a macro before the mark (\sum) from taking the script as its argument.
        out.append("{}" + (SUP_OPEN if c == "^" else SUB_OPEN) + "{" + body + "}" + CLOSE)
        i = end
    return "".join(out)


def plain_script(body: str, script: Script) -> str:
    """A script as plain text: Unicode letters when each character has one, else after ^ or _."""
    body = "".join(body.split())
    if not body:
        return ""
    table = SUPERSCRIPT if script == "sup" else SUBSCRIPT
    if any(c in table for c in body) and all(c in table or c in _PASS for c in body):
        return "".join(table.get(c, c) for c in body)
    mark = "^" if script == "sup" else "_"
    return f"{mark}{body}" if len(body) == 1 else f"{mark}({body})"


def split_scripts(converted: str) -> list[MathPart]:
    """Converted math holding marks -> base parts and script parts (a nested script is flattened)."""
    if not any(m in converted for m in MARKS):
        return [MathPart(converted)]
    parts: list[MathPart] = []
    base: list[str] = []
    i, n = 0, len(converted)
    while i < n:
        c = converted[i]
        if c == CLOSE:  # unbalanced: dropped
            i += 1
            continue
        if c not in (SUP_OPEN, SUB_OPEN):
            base.append(c)
            i += 1
            continue
        depth, j = 1, i + 1
        while j < n and depth:
            if converted[j] in (SUP_OPEN, SUB_OPEN):
                depth += 1
            elif converted[j] == CLOSE:
                depth -= 1
            j += 1
        body = "".join(ch for ch in converted[i + 1 : j] if ch not in MARKS)
        script: Script = "sup" if c == SUP_OPEN else "sub"
        if base:
            parts.append(MathPart("".join(base)))
            base = []
        raised = "".join(body.split())
        if raised:
            parts.append(MathPart(plain_script(raised, script), script, raised))
        i = j
    if base:
        parts.append(MathPart("".join(base)))
    return parts
