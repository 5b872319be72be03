"""A one-shot command's end without the interpreter's teardown (only the standard library, light)."""

from __future__ import annotations

import os
import sys
import threading


def exit_if_idle(code: int) -> None:
    """End a one-shot command's process now with ``code``, skipping the interpreter's teardown,
    when nothing can still be at work: no thread but daemons, no child process of
    multiprocessing's. Else return (the caller exits the usual way).

    A search's process frees its index readers, lexicon and arrays object by object at exit
    (≈ 75 ms of a `desk search` at 14k papers, a quarter of the command: ``bench/cli_start.py``);
    only commands with nothing left to write call this (the read-only ones, and an import once
    its library is closed and its workers stopped: desk.cli.main.ENDS_WITHOUT_TEARDOWN), so no
    file is left half written. Output is flushed and the log's handlers closed first.
    """
    if any(t.is_alive() and not t.daemon for t in threading.enumerate() if t is not threading.main_thread()):
        return
    mp = sys.modules.get("multiprocessing")
    if mp is not None and mp.active_children():
        return
    logging = sys.modules.get("logging")
    if logging is not None:
        logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        if stream is None:
            continue
        try:
            stream.flush()
        except BrokenPipeError:  # desk list | head: the reader has gone, as the usual exit allows
            pass
        except (OSError, ValueError):
            return  # let the usual exit report it
    os._exit(code)
