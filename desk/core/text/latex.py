"""Inline LaTeX to Unicode: pylatexenc does the symbol work, small helpers guard its edges."""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Callable
from functools import lru_cache
from typing import Any, Literal

from pylatexenc import latex2text, latexwalker

from desk.core.text.scripts import MARKS, MathPart, mark_scripts, split_scripts

# Macros whose argument is shown as-is; the span parser maps them to bold/italic/code.
STYLE_MACROS: dict[str, tuple[Literal["bold", "italic", "code"] | None, bool | None]] = {
    # name: (span kind or None, argument is math (True) / text (False) / inherits (None))
    "textbf": ("bold", False),
    "mathbf": ("bold", True),
    "boldsymbol": ("bold", True),
    "bm": ("bold", True),
    "textit": ("italic", False),
    "emph": ("italic", False),
    "textsl": ("italic", False),
    "mathit": ("italic", True),
    "texttt": ("code", False),
    "mathtt": ("code", True),
    "textsf": (None, False),
    "textrm": (None, False),
    "textnormal": (None, False),
    "textup": (None, False),
    "textsc": (None, False),
    "textmd": (None, False),
    "text": (None, False),
    "mbox": (None, False),
    "mathrm": (None, True),
    "mathsf": (None, True),
    "operatorname": (None, True),
    "underline": (None, None),
    "uline": (None, None),
}

# pylatexenc gets these wrong or drops them.
_OVERRIDES = {"ne": "≠", "S": "§", "LaTeX": "LaTeX", "TeX": "TeX", "|": "‖", "textbackslash": ""}
# Declarations and layout commands carry no text.
_LAYOUT = (
    "bf it em rm tt sf sc sl up md bfseries itshape ttfamily sffamily scshape rmfamily normalfont "
    "tiny scriptsize footnotesize small normalsize large Large LARGE huge Huge noindent centering "
    "hfill vfill par newline linebreak quad qquad medskip smallskip bigskip maketitle"
)
_OVERRIDES.update(dict.fromkeys(_LAYOUT.split(), " "))
# Backslash + symbol: an escaped character, a space command, or nothing (\- \/ \!).
_SIMPLE_ESCAPES = {c: c for c in "%&$#_{}*[]<>|"}
_SIMPLE_ESCAPES |= dict.fromkeys("\\ ,;:\n\t", " ") | dict.fromkeys("!/-@", "")
_ACCENTS = set("\"'`^~=.")

# Relations TeX sets apart: "α∈ (0,1)" reads "α ∈ (0,1)".
_RELATION_RE = re.compile(r"\s*([=<>≤≥≠≈∈∉∋⊂⊆⊃⊇⊊⊋∼≃≅≡∝≪≫≺≻⪯⪰→←↔⇒⇐⇔↦⟶⟹])\s*")
_MATH_FIX_RE = re.compile(r"\\(ne(?![A-Za-z])|\|)")
_DROP_WITH_ARGS = {"cite", "citep", "citet", "citealp", "ref", "eqref", "label", "vspace", "hspace"}
_MACRO_RE = re.compile(r"\\(?:([A-Za-z]+)\*?|(.))", re.DOTALL)
_TEXT_SPECIALS = ("\\", "{", "}", "~", "`", "--", "''")  # text holding none of these is plain text
_OPEN_QUOTES_RE = re.compile(r"(?<!\S)''(?=\w)")
_UNESCAPED_RE = re.compile(r"(?<!\\)([%&#])")
_WS_RE = re.compile(r"\s+")
_MAX_DEPTH = 40
# What pylatexenc is given at once: an island of text-mode LaTeX, one math's inside, the window
# read for a macro's arguments. Longer or deeper input is converted crudely (crude_strip).
_PARSE_MAX_CHARS = 2_000
_PARSE_MAX_DEPTH = 30
_TOLERANT_MAX_OPENERS = 6
_EXTENT_WINDOW = 400
# \cite{…} and the like with a simple argument, which the crude conversion drops whole.
_DROP_ARGS_RE = re.compile(r"\\(?:" + "|".join(_DROP_WITH_ARGS) + r")\*?(?:\s*\[[^\[\]{}]*\])*\s*\{[^{}]*\}")

# pylatexenc logs a WARNING for malformed input (a macro without its arguments), which
# abstracts hold and which is handled here; the CLI's logging would print it on stderr.
logging.getLogger("pylatexenc").setLevel(logging.ERROR)


def _arguments_or_name(template: str) -> Callable[..., str]:
    """A ``%s``-template replacement that gives the macro's name when an argument is missing.

    pylatexenc formats ``\\frac`` as ``%s/%s``; at the end of a text it has no arguments and
    shows the template itself ("%s/%s") after logging a warning.
    """
    named = sorted({int(k) for k in re.findall(r"%\((\d+)\)s", template)})

    def repl(n: Any, l2tobj: Any, macroname: str) -> str:
        args = list(n.nodeargd.argnlist) if n.nodeargd is not None and n.nodeargd.argnlist else []
        used = [k - 1 for k in named] if named else list(range(len(args)))
        if not used or any(k >= len(args) or args[k] is None for k in used):
            return macroname
        texts = [l2tobj.node_arg_to_text(n, k) if args[k] is not None else "" for k in range(len(args))]
        try:
            if named:
                return template % {str(k + 1): t for k, t in enumerate(texts)}
            return template % tuple(texts)
        except (TypeError, ValueError, KeyError):
            return macroname

    return repl


def _text_db() -> Any:
    """pylatexenc's replacements, with every ``%``-template made safe against missing arguments."""
    db = latex2text.get_default_latex_context_db()
    safe = [
        latex2text.MacroTextSpec(spec.macroname, simplify_repl=_arguments_or_name(spec.simplify_repl))
        for spec in db.iter_macro_specs()
        if isinstance(spec.simplify_repl, str) and "%" in spec.simplify_repl and len(spec.simplify_repl) > 1
    ]
    db.add_context_category("desk-safe-arguments", macros=safe, prepend=True)
    return db


_T2T_DB = _text_db()
_WALK_DB = latexwalker.get_default_latex_context_db()
_local = threading.local()


def _converter() -> latex2text.LatexNodes2Text:
    # One converter per thread: pylatexenc keeps per-call state on the instance.
    conv = getattr(_local, "conv", None)
    if conv is None:
        conv = latex2text.LatexNodes2Text(latex_context=_T2T_DB, math_mode="text", strict_latex_spaces=False)
        _local.conv = conv
    return conv


@lru_cache(maxsize=4096)
def _symbol(name: str) -> str | None:
    """What pylatexenc writes for a macro that takes no argument (\\alpha → α), or None."""
    if name in _OVERRIDES:
        return _OVERRIDES[name]
    walk_spec = _WALK_DB.get_macro_spec(name)
    argspec: str = getattr(walk_spec.args_parser, "argspec", "") if walk_spec is not None else ""
    if argspec:
        return None
    spec = _T2T_DB.get_macro_spec(name)
    repl = getattr(spec, "simplify_repl", None) if spec is not None else None
    if isinstance(repl, str) and "%" not in repl:
        return repl
    return None


def _crude_macro(match: re.Match[str]) -> str:
    name, symbol = match.group(1), match.group(2)
    if name is None:
        return "" if symbol in _ACCENTS else _SIMPLE_ESCAPES.get(symbol, symbol)
    known = _symbol(name)
    if known is not None:
        return known
    if name in STYLE_MACROS or _T2T_DB.get_macro_spec(name) is not None:
        return ""
    # An unknown macro keeps its argument (dropping its name) or, bare, its name.
    return "" if match.string.startswith("{", match.end()) else name


def crude_strip(text: str) -> str:
    """Last-resort readable form, in one linear pass: symbols converted (\\alpha → α), a known
    macro's name dropped and its arguments kept, a bare unknown macro's name kept, the rest of
    the LaTeX syntax (braces, dollars, backslashes) dropped."""
    text = _DROP_ARGS_RE.sub(" ", text)
    text = _MACRO_RE.sub(_crude_macro, text)
    return _WS_RE.sub(" ", _plain(re.sub(r"[\\{}$]", "", text)))


def parse_budget_ok(src: str) -> bool:
    """True when pylatexenc may parse ``src`` in bounded time: short enough and shallow enough.

    Checked before every call to pylatexenc; past it the crude conversion stands in.
    """
    if len(src) > _PARSE_MAX_CHARS:
        return False
    depth = 0
    for c in src:
        if c in "{[":
            depth += 1
            if depth > _PARSE_MAX_DEPTH:
                return False
        elif c in "}]":
            depth = max(depth - 1, 0)
    return True


def _tolerant_ok(src: str) -> bool:
    """True when pylatexenc's tolerant parser is cheap on ``src``: its time doubles with each
    ``{`` or ``[`` it cannot close (420 bytes of "\\frac{" ran for minutes), so only input
    with few openers is given to it after the strict parse failed."""
    return src.count("{") + src.count("[") <= _TOLERANT_MAX_OPENERS


def _pylatexenc(src: str) -> str:
    src = _UNESCAPED_RE.sub(r"\\\1", src)
    if not parse_budget_ok(src):
        return crude_strip(src)
    try:
        # Strict first: it stops at the first error, so its time is linear in the input.
        out = _converter().latex_to_text(src, tolerant_parsing=False)
    except (Exception, RecursionError):
        out = None
    if out is None and _tolerant_ok(src):
        try:  # malformed but small ("\\frac{a}"): the tolerant reading is the better one
            out = _converter().latex_to_text(src)
        except (Exception, RecursionError):
            out = None  # pylatexenc raises on some malformed input (e.g. \href with one argument)
    if out is None:
        out = crude_strip(src)
    return out.replace("\\", "")


@lru_cache(maxsize=8192)
def math_parts(src: str) -> tuple[MathPart, ...]:
    """The inside of one `$...$` as Unicode base text and sub/superscript parts (see scripts.py)."""
    if not src.strip():
        return ()
    if any(c in src for c in MARKS):  # the marks mean scripts: an abstract's own are dropped
        src = "".join(c for c in src if c not in MARKS)
    src = _MATH_FIX_RE.sub(lambda m: _OVERRIDES[m.group(1)], src)
    out = _pylatexenc("$" + mark_scripts(src) + "$")
    # A trailing accent (`$\~$`) takes the closing delimiter as its argument.
    parts = split_scripts(out.replace("$", ""))
    tidy = [
        MathPart(_spaced_relations(p.text)) if p.script is None else p
        for p in parts
        if p.script is not None or p.text
    ]
    if tidy and tidy[0].script is None:
        tidy[0] = MathPart(tidy[0].text.lstrip())
    if tidy and tidy[-1].script is None:
        tidy[-1] = MathPart(tidy[-1].text.rstrip())
    return tuple(p for p in tidy if p.text)


def _spaced_relations(text: str) -> str:
    """One space each side of a relation (α ∈ (0,1), y ≥ 0), as TeX typesets it; spaces collapsed."""
    return _WS_RE.sub(" ", _RELATION_RE.sub(r" \1 ", text))


def convert_math(src: str) -> str:
    """Convert the inside of one `$...$` to Unicode (α, ×, ≥, n², x₁, ℝᵈ)."""
    return "".join(p.text for p in math_parts(src))


@lru_cache(maxsize=8192)
def _convert_island(island: str) -> str:
    return _WS_RE.sub(" ", _pylatexenc(island))


def _group_end(text: str, start: int) -> int:
    """Index just past the `}` closing the `{` at `start` (or len(text) if unbalanced)."""
    depth = 0
    i = start
    n = len(text)
    while i < n:
        c = text[i]
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
    return n


def brace_groups(text: str, start: int, count: int) -> tuple[list[str], int]:
    """Read up to `count` `{...}` groups from `start` (spaces allowed before each)."""
    groups: list[str] = []
    i = start
    while len(groups) < count:
        k = i
        while k < len(text) and text[k] == " ":
            k += 1
        if k >= len(text) or text[k] != "{":
            break
        end = _group_end(text, k)
        inner_end = end - 1 if text[end - 1 : end] == "}" else end
        groups.append(text[k + 1 : inner_end])
        i = end
    return groups, i


def _macro_extent(text: str, start: int) -> int | None:
    """End of the macro invocation at `start`, arguments included, as pylatexenc reads it;
    None when pylatexenc cannot read it within its budget (see ``parse_budget_ok``)."""
    window = text[start : start + _EXTENT_WINDOW]
    if not parse_budget_ok(window):
        return None
    for tolerant in (False, True):
        if tolerant and not _tolerant_ok(window):
            return None
        try:
            walker = latexwalker.LatexWalker(window, tolerant_parsing=tolerant)
            nodes, _pos, _len = walker.get_latex_nodes(pos=0, read_max_nodes=1)
        except (Exception, RecursionError):
            continue
        return start + max(nodes[0].pos + nodes[0].len, 1) if nodes else start + 1
    return None


def _plain(chunk: str) -> str:
    """Dashes, quotes and ties of LaTeX text that holds no macros."""
    chunk = chunk.replace("---", "—").replace("--", "–").replace("``", "“")
    if "''" in chunk:
        chunk = _OPEN_QUOTES_RE.sub("“", chunk).replace("''", "”")
    chunk = chunk.replace("`", "‘")
    if "~" in chunk:
        # A tie between two words is a space; "~10x" means "about".
        chunk = re.sub(r"(?<=[\w.])~(?=\w)", " ", chunk)
    return chunk


def has_text_markup(text: str) -> bool:
    """True when ``text`` holds a backslash, a brace, a tilde, a backtick, "--" or "''": substring
    tests at C speed, where the regex it replaced (two alternatives with no common first
    character) was tried at every position of every abstract."""
    return any(special in text for special in _TEXT_SPECIALS)


def convert_text(text: str, depth: int = 0) -> str:
    """Convert LaTeX text-mode markup (no `$` math) to Unicode."""
    if not has_text_markup(text):
        return text
    if depth > _MAX_DEPTH:
        return crude_strip(text)
    out: list[str] = []
    i = 0
    n = len(text)
    while i < n:
        j = i
        while j < n and text[j] not in "\\{}":
            j += 1
        if j > i:
            out.append(_plain(text[i:j]))
        if j >= n:
            break
        c = text[j]
        if c == "}":
            i = j + 1
            continue
        if c == "{":
            end = _group_end(text, j)
            inner_end = end - 1 if end <= n and text[end - 1 : end] == "}" else end
            out.append(convert_text(text[j + 1 : inner_end], depth + 1))
            i = end
            continue
        text_out, i = convert_macro_at(text, j, depth)
        out.append(text_out)
    return "".join(out)


def convert_macro_at(text: str, start: int, depth: int = 0) -> tuple[str, int]:
    r"""Convert the text-mode macro starting at `text[start] == "\\"`; return (text, next index)."""
    match = _MACRO_RE.match(text, start)
    if match is None:  # a lone trailing backslash
        return "", start + 1
    name, symbol = match.group(1), match.group(2)
    after = match.end()
    if name is None:
        if symbol in _ACCENTS and after < len(text):
            end = _macro_extent(text, start)
            if end is None:  # past the parser's budget: the letter without its accent
                return "", after
            return _convert_island(text[start:end]), end
        return _SIMPLE_ESCAPES.get(symbol, symbol), after
    if name in _OVERRIDES:
        return _OVERRIDES[name], _skip_empty_group(text, after)
    if name in _DROP_WITH_ARGS:
        end = _macro_extent(text, start)
        return "", brace_groups(text, after, 1)[1] if end is None else end
    if name in ("url", "href"):
        # Text only: the link itself is the span parser's business.
        groups, end = brace_groups(text, after, 2 if name == "href" else 1)
        if not groups:
            return "", after
        return convert_text(groups[-1], depth + 1), end
    if name in STYLE_MACROS or _T2T_DB.get_macro_spec(name) is None:
        # Style macros and unknown macros: keep the argument's text, or the name when bare.
        groups, end = brace_groups(text, after, 1)
        if groups:
            return convert_text(groups[0], depth + 1), end
        if name in STYLE_MACROS:
            return "", after
        return name, after
    spec = _WALK_DB.get_macro_spec(name)
    argspec = getattr(spec.args_parser, "argspec", "") if spec is not None else ""
    if not argspec:
        return _convert_island(text[start:after]), _skip_empty_group(text, after)
    if _arguments_missing(text, after, argspec):
        return name, after  # "\frac and": not a/n + "d"; "here \frac" at the end: not "%s/%s"
    end = _macro_extent(text, start)
    if end is None:  # past the parser's budget: the arguments are read as text, the name dropped
        return "", after
    return _convert_island(text[start:end]), end


def _arguments_missing(text: str, after: int, argspec: str) -> bool:
    """True when a text-mode macro taking arguments is followed by none it could mean.

    Nothing after it, or a word where two arguments belong: in an abstract, ``\\frac and``
    is a stray macro before a word, never the fraction a/n.
    """
    k = after
    while k < len(text) and text[k] == " ":
        k += 1
    if k >= len(text) or text[k] == "}":
        return True
    return argspec.count("{") >= 2 and text[k].isalpha() and text[k] != "{"


def _skip_empty_group(text: str, i: int) -> int:
    return i + 2 if text.startswith("{}", i) else i


def latex_to_unicode(text: str) -> str:
    r"""Turn inline LaTeX into readable Unicode: `$\alpha$` → α, `\times` → ×, ``` ``x'' ``` → “x”.

    Math is converted and its `$` removed; style macros keep their argument; unknown
    macros keep their argument (or their name when they have none). Never raises.
    """
    try:
        return _latex_to_unicode(text)
    except (Exception, RecursionError):
        return crude_strip(text)


def _latex_to_unicode(text: str) -> str:
    out: list[str] = []
    for is_math, chunk in split_math(text):
        out.append(convert_math(chunk) if is_math else convert_text(chunk))
    return _WS_RE.sub(" ", "".join(out)).strip()


_MATH_OPEN_RE = re.compile(r"\$\$|\$|\\\(|\\\[|\\.", re.DOTALL)
_MATH_CLOSE = {"$$": "$$", "$": "$", "\\(": "\\)", "\\[": "\\]"}
MAX_MATH = 400


def find_math_close(text: str, start: int, opener: str, end: int) -> int:
    """Index of the delimiter closing math opened just before `start`, or -1."""
    closer = _MATH_CLOSE[opener]
    limit = min(end, start + MAX_MATH)
    # "$5 and $10": a dollar before a digit opens an amount, not math (as pandoc reads it).
    amount = opener == "$" and start < len(text) and text[start].isdigit()
    i = start
    while i < limit:
        c = text[i]
        if c == "\\":
            if text.startswith(closer, i):
                return i
            i += 2
            continue
        if c == "$" and text.startswith(closer, i):
            # After an amount, a dollar that opens something ("$10", " $k") ends the search.
            if amount and ((i + 1 < end and text[i + 1].isdigit()) or text[i - 1].isspace()):
                return -1
            return i
        i += 1
    return -1


def split_math(text: str) -> list[tuple[bool, str]]:
    """Split text into (is_math, chunk) pairs; unmatched `$` are dropped."""
    parts: list[tuple[bool, str]] = []
    i = 0
    buf_start = 0
    n = len(text)
    while i < n:
        m = _MATH_OPEN_RE.search(text, i)
        if m is None:
            break
        opener = m.group(0)
        if opener not in _MATH_CLOSE:  # an escaped character such as \$
            i = m.end()
            continue
        close = find_math_close(text, m.end(), opener, n)
        parts.append((False, text[buf_start : m.start()]))
        if close < 0:
            i = buf_start = m.end()
            continue
        parts.append((True, text[m.end() : close]))
        i = buf_start = close + len(_MATH_CLOSE[opener])
    parts.append((False, text[buf_start:]))
    return [p for p in parts if p[1]]
