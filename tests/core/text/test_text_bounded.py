"""Any abstract is converted in bounded time: nested, unbalanced and huge LaTeX never hangs.

The bound is a hang check, not a performance target: an alarm fails the example that runs past
it instead of blocking the run (pylatexenc's tolerant parser once took minutes on 420 bytes).
It counts the process's own CPU time (ITIMER_PROF), not the clock's: on a machine busy with
other work an abstract waits for a core without coming nearer the bound.
"""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from desk.core.text import latex_to_unicode, parse_spans, readable_text

SECONDS_PER_ABSTRACT = 5.0  # of CPU: the hang took minutes, an abstract takes milliseconds

pytestmark = pytest.mark.skipif(not hasattr(signal, "setitimer"), reason="needs signal.setitimer")


class _Hang(BaseException):
    """Raised by the alarm: a BaseException, so no ``except Exception`` on the way swallows it."""


@contextmanager
def at_most(seconds: float, what: str) -> Iterator[None]:
    """Fail (an AssertionError, which hypothesis shrinks) when the block runs past ``seconds``."""

    def on_alarm(_signum: int, _frame: object) -> None:
        raise _Hang

    previous = signal.signal(signal.SIGPROF, on_alarm)
    signal.setitimer(signal.ITIMER_PROF, seconds)
    try:
        yield
    except _Hang:
        raise AssertionError(f"converting {what} ran past {seconds} s of CPU") from None
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, previous)


# Openers that pylatexenc reads arguments after, closers, math and Markdown: repeated, they nest
# (\frac{\frac{…), leave groups unclosed, or make one abstract huge.
FRAGMENTS = [
    "\\frac{",
    "\\frac {",
    "\\sqrt[",
    "\\sqrt{",
    "\\frac{\\sqrt[",
    "\\frac{a}{",
    "\\binom{",
    "\\textbf{",
    "\\emph{",
    "\\href{",
    "\\url{",
    "\\cite{",
    "\\'{",
    '\\"',
    "\\begin{x}",
    "\\left(",
    "{",
    "}",
    "[",
    "]",
    "}{",
    "^{",
    "_{",
    "$",
    "$$",
    "\\(",
    "\\)",
    "\\",
    "\\alpha ",
    "\\frac{a}{b}",
    "*",
    "**",
    "_",
    "`",
    "''",
    "--",
    "[t](https://a.b)",
    "<https://a.b>",
    "word ",
    " ",
]
hostile = st.lists(
    st.tuples(st.sampled_from(FRAGMENTS), st.integers(min_value=1, max_value=3000)),
    min_size=1,
    max_size=4,
).map(lambda runs: "".join(fragment * count for fragment, count in runs))
in_math = hostile.map(lambda text: "$" + text + "$")


@pytest.mark.slow
@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)
@given(st.one_of(hostile, in_math))
@example("\\frac{" * 70)  # the 420 bytes that hung an import
@example("$" + "\\frac{" * 70 + "$")
@example("\\frac{\\sqrt[" * 40)
@example("\\frac{a" * 300 + "}{b}" * 300)
@example("\\frac{" * 20_000)
def test_every_abstract_converts_within_the_bound(text: str) -> None:
    with at_most(SECONDS_PER_ABSTRACT, f"{len(text):,} characters of {text[:30]!r}"):
        parse_spans.cache_clear()
        readable = readable_text(text)
        latex_to_unicode(text)
    assert "\\" not in readable


def test_nested_fractions_read_as_text_not_macro_soup() -> None:
    # Past the parser's budget the conversion is crude but readable: words and symbols stay,
    # the names of macros that take arguments go.
    text = "We study \\frac{" * 70 + "$\\alpha$ in \\emph{robust} control"
    with at_most(SECONDS_PER_ABSTRACT, "nested fractions"):
        readable = readable_text(text)
    assert "frac" not in readable
    assert readable.startswith("We study We study")
    assert readable.endswith("α in robust control")


def test_small_malformed_latex_keeps_its_tolerant_reading() -> None:
    # A strict parse fails on these; few openers, so pylatexenc's tolerant reading still runs.
    assert latex_to_unicode(r"$\frac{a}$ and \'{e}t\'e") == "a/ and été"
    assert latex_to_unicode(r"\frac12 and \sqrt[3]{x} and \'e") == "1/2 and √(x) and é"
