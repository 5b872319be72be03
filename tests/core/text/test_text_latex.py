"""LaTeX to Unicode: symbols, math, quotes, dashes, style and unknown macros, malformed input."""

from __future__ import annotations

import logging
import subprocess
import sys
from pathlib import Path

import pytest

from desk.core.text import latex_to_unicode, readable_text


@pytest.mark.parametrize(
    ("src", "expected"),
    [
        (r"$\alpha$-VOR", "α-VOR"),
        (r"$O(n^2)$", "O(n²)"),
        (r"20$\times$ speedup", "20× speedup"),
        (r"$y \geq 0$", "y ≥ 0"),
        (r"$\le$", "≤"),
        (r"``wasted'' evidence", "“wasted” evidence"),
        (r"Hamilton--Jacobi", "Hamilton–Jacobi"),
        (r"more---much more", "more—much more"),
        (r"\textbf{S}equential \textbf{C}ontrol", "Sequential Control"),
        (r"\emph{new} and \textit{old}", "new and old"),
        (r"\textsf{DLPT} wins", "DLPT wins"),
        (r"\texttt{BAR-RAG}", "BAR-RAG"),
        (r"75\% of KV cache", "75% of KV cache"),
        (r"up to 40% faster, and more", "up to 40% faster, and more"),
        (r"Datta \& Ghosh and Qin & Ghosh", "Datta & Ghosh and Qin & Ghosh"),
        (r"Schr\"odinger Bridge", "Schrödinger Bridge"),
        (r"D$^2$TR and GenRe$^2$", "D²TR and GenRe²"),
        (r"$L_2$ loss", "L₂ loss"),
        (r"$x^{-1}$ and $W^\top$", "x⁻¹ and Wᵀ"),
        (r"a $12^\circ$ slope", "a 12° slope"),
        (r"$\sqrt{n}$-regret", "√(n)-regret"),
        (r"$\mathbb{E}[x]$", "𝔼[x]"),
        (r"$a \ne b$", "a ≠ b"),
        (r"$\|x\|$", "‖x‖"),
        (r"$\textbf{Krause Attention}$", "Krause Attention"),
        (r"$\underline{\textbf{S}}$parse", "Sparse"),
        (r"Fig.~3 shows ~10x", "Fig. 3 shows ~10x"),
        (r"see \cite{smith} for", "see for"),
        (r"\url{https://a.b/c}", "https://a.b/c"),
        (r"\href{https://a.b}{the site}", "the site"),
    ],
)
def test_latex_cases(src: str, expected: str) -> None:
    assert latex_to_unicode(src) == expected


@pytest.mark.parametrize(
    "src",
    [r"\ourmethod is fast", r"\methodname{Foo} is fast", r"\LaTeX{} is old", r"\weird\macro\chain"],
)
def test_unknown_macros_stay_readable(src: str) -> None:
    out = latex_to_unicode(src)
    assert "\\" not in out
    assert out.replace(" ", "")


def test_unknown_macro_keeps_name_or_argument() -> None:
    assert latex_to_unicode(r"\ourmethod is fast") == "ourmethod is fast"
    assert latex_to_unicode(r"\methodname{Foo} is fast") == "Foo is fast"


@pytest.mark.parametrize(
    "src",
    [
        "$",
        "$$",
        "\\",
        "{",
        "}",
        "$\\",
        "\\href{x}",
        "{" * 3000,
        "\\textbf{" * 600,
        "$" * 999,
        "\\frac{",
        "%%%",
    ],
)
def test_malformed_never_raises_and_leaves_no_syntax(src: str) -> None:
    out = latex_to_unicode(src)
    assert "\\" not in out
    assert "$" not in out


def test_unmatched_dollar_is_dropped() -> None:
    assert latex_to_unicode("costs $x + y") == "costs x + y"


def test_escaped_dollar_is_a_dollar() -> None:
    assert latex_to_unicode(r"\$5 per run") == "$5 per run"


def test_readable_text_converts_seed_constructs() -> None:
    raw = (
        r"We formulate routing as the $\alpha$-VOR problem and propose a novel method -- RACER. "
        r"It reaches up to 20$\times$ overall reduction and $\mathbb{I}(y \ge 1) \le y$ for ``free''."
    )
    text = readable_text(raw)
    assert "α-VOR" in text and "20×" in text and "≥" in text and "“free”" in text and " – RACER" in text
    assert not any(c in text for c in "$\\")


# ---- a macro without its arguments, and amounts of dollars ----------------


@pytest.mark.parametrize(
    ("src", "out"),
    [
        (r"we prove it here \frac", "we prove it here frac"),
        (r"\frac and more", "frac and more"),
        (r"$x + \frac$", "x + frac"),
        (r"$\frac{1}{2}$ and \frac12 and \frac{a}{b}", "1/2 and 1/2 and a/b"),
        (r"Erd\H{o}s and \v s", "Erdős and š"),  # one-argument accents still take a letter
        ("costs $5 and $10", "costs 5 and 10"),
        ("costs $5 and $10 today, $k$ runs", "costs 5 and 10 today, k runs"),
        ("$5$-fold and $10^3$", "5-fold and 10³"),
    ],
)
def test_missing_arguments_and_amounts_read_as_written(src: str, out: str) -> None:
    assert latex_to_unicode(src) == out
    assert readable_text(src) == out


def test_pylatexenc_warns_about_nothing(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.DEBUG):
        for src in (r"here \frac", r"$\frac$", r"\frac{a}", r"$\nicefrac$", r"\overline", r"\textcolor{red}"):
            latex_to_unicode(src + " unique-" + str(len(caplog.records)))  # past the caches
            readable_text(src + " other-" + str(len(caplog.records)))
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING] == []


@pytest.mark.slow
def test_importing_stray_macros_prints_nothing_on_stderr(tmp_path: Path) -> None:
    lst = tmp_path / "list.txt"
    lst.write_text(
        "Stray Macro Papers\n\n"
        "We bound the error of a fraction of the data here, see \\frac\n\n"
        "A method with $\\frac$ and \\frac and more words, costing $5 and $10 per run, is proposed.\n",
        encoding="utf-8",
    )
    done = subprocess.run(
        [sys.executable, "-m", "desk", "--library", str(tmp_path / "L"), "import", str(lst)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
