"""A window asked to stop by a signal closes as its close button closes it.

SIGTERM (a logout, a system shutdown, ``kill``), SIGINT (Ctrl+C in the terminal that started it)
and SIGHUP (that terminal closed) would otherwise end the process on the spot: the note typed in
the last second (its autosave waits for a pause), the window's size, split and query, and the
near-duplicate cache would be lost. Here each closes the window instead, which saves them all
and closes the library.
"""

from __future__ import annotations

import signal
import sys
from types import FrameType

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QWidget

#: Python runs a signal's handler between two bytecodes of the main thread; while Qt waits for
#: events no bytecode runs, so a timer gives the interpreter a turn this often.
WAKE_MS = 200


def stopping_signals() -> tuple[signal.Signals, ...]:
    """The signals that close the window on this platform."""
    names = ("SIGTERM", "SIGINT", "SIGHUP") if sys.platform != "win32" else ("SIGTERM", "SIGINT")
    return tuple(getattr(signal, name) for name in names)


def close_on_signals(window: QWidget) -> QTimer:
    """Make the stopping signals close ``window`` (from the event loop, never inside the handler);
    returns the timer that lets Python see them, owned by the window."""

    def handler(signum: int, frame: FrameType | None) -> None:
        QTimer.singleShot(0, window.close)

    for sig in stopping_signals():
        signal.signal(sig, handler)
    timer = QTimer(window)
    timer.timeout.connect(lambda: None)
    timer.start(WAKE_MS)
    return timer
