"""Types a note into the real window, offscreen, for test_resilience (which kills it with SIGKILL).

    python note_typist.py LIBRARY TEXT [--signals]

Opens MainWindow on LIBRARY, selects the first paper, presses N and types TEXT into the note
editor a few characters at a time, as a person would.  Prints `ready PAPER_ID`, then after each
step `TIME<TAB>COUNT`: the wall-clock time at which the first COUNT characters of TEXT were in
the editor.  Then it waits to be killed.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

STEP = 3  # characters per burst
PAUSE_MS = 25  # between bursts: about 100 characters a second, a fast typist


def pause(ms: int) -> None:
    """Run the event loop for a while, as app.exec() would (QTest.qWait keeps the GIL: the
    library's worker thread would starve)."""
    from PySide6.QtCore import QEventLoop, QTimer

    loop = QEventLoop()
    QTimer.singleShot(ms, loop.quit)
    loop.exec()


def wait_for(condition, timeout_ms: int) -> bool:
    deadline = time.monotonic() + timeout_ms / 1000
    while not condition():
        if time.monotonic() > deadline:
            return False
        pause(10)
    return True


def main() -> None:
    from PySide6.QtTest import QTest

    from desk.gui.app import application
    from desk.gui.main.window import MainWindow

    library, text = Path(sys.argv[1]), sys.argv[2]
    application()
    window = MainWindow(library, seeds=None)
    if "--signals" in sys.argv[3:]:
        from desk.gui.shutdown import close_on_signals

        close_on_signals(window)
    window.show()
    window.activateWindow()
    if not wait_for(lambda: window.ready and not window.controller.pending(), 30_000):
        sys.exit(f"the window did not open: {window.open_error}")
    window.reading.edit_note()
    if not wait_for(lambda: window.note.paper_id is not None and window.note_editor.hasFocus(), 10_000):
        sys.exit("the note editor did not take the focus")
    print("ready", window.note.paper_id, flush=True)
    typed = 0
    while typed < len(text):
        chunk = text[typed : typed + STEP]
        QTest.keyClicks(window.note_editor, chunk)
        typed += len(chunk)
        if window.note_editor.toPlainText() != text[:typed]:
            sys.exit(f"the editor does not hold what was typed: {window.note_editor.toPlainText()!r}")
        print(f"{time.time():.3f}\t{typed}", flush=True)
        pause(PAUSE_MS)
        if window.isHidden():
            break
    if window.isHidden():  # closed by a signal
        print("closed", flush=True)
        sys.exit(0)
    print("done", flush=True)
    wait_for(window.isHidden, 120_000)
    print("closed", flush=True)


if __name__ == "__main__":
    main()
