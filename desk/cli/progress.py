"""Progress bars for long commands, on stderr and only when stderr is a terminal.

A bar shows only once the work has run for a second (tqdm's ``delay``), so a quick command
prints nothing; a piped or redirected stderr never sees one, and stdout (``--json``) never
does. tqdm is imported only when a bar may be drawn, so commands start no slower.
"""

from __future__ import annotations

import os
import sys
from typing import Any, TextIO

SHOW_AFTER = 1.0  # seconds: work that ends sooner shows no bar


class Bar:
    """A progress callback ``(done, total)`` or ``(done, total, name)`` drawing one tqdm bar.

    The stream is looked up when the first progress comes (stderr then), not when the bar is
    made; ``close`` takes the bar off the terminal and leaves a one-line summary."""

    def __init__(self, label: str, unit: str, stream: TextIO | None = None) -> None:
        self.label, self.unit = label, unit
        self._stream = stream
        self._bar: Any = None
        self._off: bool | None = None  # decided on the first call

    def __call__(self, done: int, total: int, name: str = "") -> None:
        if self._off is None:
            self._off = not is_terminal(self.stream)
        if self._off or total <= 0:
            return
        if self._bar is None:
            from tqdm import tqdm

            width, height = terminal_size(self.stream)
            self._bar = tqdm(
                total=total,
                desc=self.label,
                unit=self.unit,
                file=self.stream,
                delay=SHOW_AFTER,
                leave=True,
                ncols=width,
                nrows=height,
            )
        if self._bar.total != total:
            self._bar.total = total
        if name:  # a file's name: it may hold control characters
            from desk.core.text.control_chars import harmless

            self._bar.set_postfix_str(harmless(name, lines=False), refresh=False)
        self._bar.update(max(0, done - self._bar.n))
        if done >= total:
            self.close()

    @property
    def stream(self) -> TextIO:
        return self._stream if self._stream is not None else sys.stderr

    def close(self) -> None:
        """End the bar (a later call starts a new one)."""
        if self._bar is not None:
            self._bar.close()
            self._bar = None


def is_terminal(stream: TextIO) -> bool:
    """True when ``stream`` is a terminal a person watches (not a pipe, a file or a closed one)."""
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # closed or not a real file
        return False


def terminal_size(stream: TextIO) -> tuple[int, int]:
    """The terminal's columns and rows; 80×24 for a size it does not say (a pseudo-terminal
    never sized says 0×0, and tqdm would then hide its bar as if scrolled off)."""
    try:
        size = os.get_terminal_size(stream.fileno())
    except (AttributeError, ValueError, OSError):
        return 80, 24
    return size.columns or 80, size.lines or 24
