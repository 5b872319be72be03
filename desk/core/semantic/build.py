"""Building a library's semantic vectors in a process of its own.

The build is mostly Python (tokenising every abstract): on a thread of the window it would share
the interpreter's lock with the UI thread. ``build_in_process`` runs it in a fresh process that
opens only the database and the vector store, and waits for it; the caller then reloads the
store (``SemanticVectors.load``). ``main`` is the command line's detached builder of the
sentence encoder's vectors (builder.py runs it; background.py starts it).
"""

from __future__ import annotations

import multiprocessing
import sys
import threading
from pathlib import Path
from typing import Literal

from desk.core.runtime.logs import logger
from desk.core.runtime.paths import BACKUP_DIR_NAME, DATABASE_NAME
from desk.core.semantic import background
from desk.core.semantic.encoded import DIR_NAME as ENCODED_DIR_NAME
from desk.core.semantic.encoded import EncodedVectors
from desk.core.semantic.keys import DatabasePapers
from desk.core.semantic.minilm import ModelError
from desk.core.semantic.store import DIR_NAME
from desk.core.semantic.vectors import SemanticVectors
from desk.core.store import Database

log = logger(__name__)
ROUNDS = 3  # encoder builds in a row, while imports keep adding papers
Part = Literal["all", "lsa", "encoded"]  # which vectors a build brings up to date


def build_vectors(directory: Path, part: Part = "all", wait: bool = True) -> str | None:
    """Bring the vectors of the library in ``directory`` up to date (LSA's, then the sentence
    encoder's); what was done, or None.

    The encoder's are built under the store's build lock (background.py): ``wait`` for a builder
    at work there to finish first, or (False) leave them to it."""
    db = Database(directory / DATABASE_NAME, directory / BACKUP_DIR_NAME)
    try:
        papers = DatabasePapers(db)
        done = None
        if part != "encoded":
            done = SemanticVectors(directory / DIR_NAME).ensure(papers)
        if part == "lsa":
            return done
        store = directory / ENCODED_DIR_NAME
        with background.build_lock(store, wait=wait) as held:
            if not held:
                return done
            encoded = EncodedVectors(store)  # read once the lock is held: another may have written it
            try:  # LSA's first: search fuses it alone until the encoder's cover every paper
                # Papers imported meanwhile are encoded too, and papers that were in the trash
                # when their text was to be read, if they are back.
                for _ in range(ROUNDS):
                    known = papers.keys()
                    if not encoded.pending(*known):
                        break
                    done = encoded.ensure(papers, known=known, read=papers.read_ids()) or done
            except ModelError:
                pass
            try:  # a large library's rows: their nearest-neighbour index (neighbours.py), once they are
                if encoded.ids is not None and encoded.ensure_neighbours():
                    done = done or "indexed"
            except OSError as exc:  # derived: the exact products answer meanwhile
                log.info("the nearest-neighbour index could not be written: %s", exc)
            return done
    finally:
        db.close()


def _child(directory: str, part: Part) -> None:
    build_vectors(Path(directory), part)


POLL_S = 0.1  # how often a waiting build looks whether it was cancelled


def build_in_process(
    directory: Path, timeout: float | None = None, cancel: threading.Event | None = None, part: Part = "all"
) -> bool:
    """Run build_vectors in a spawned process and wait; True when it exited cleanly.

    Setting ``cancel`` (the window closing) kills the process at once: the store is derived and
    writes its manifest last, so a build cut short is found out and redone the next time."""
    proc = multiprocessing.get_context("spawn").Process(
        target=_child, args=(str(directory), part), name="desk-vectors", daemon=True
    )
    proc.start()
    waited = 0.0
    while proc.is_alive() and (timeout is None or waited < timeout):
        if cancel is not None and cancel.is_set():
            break
        proc.join(POLL_S)
        waited += POLL_S
    if proc.is_alive():
        proc.kill()
        proc.join()
    return proc.exitcode == 0


def main(argv: list[str]) -> int:
    """The detached builder of the sentence encoder's vectors (``python -m
    desk.core.semantic.builder LIBRARY``, background.py); quits at once when another build holds
    the lock."""
    if len(argv) != 1:
        print("usage: python -m desk.core.semantic.builder LIBRARY", file=sys.stderr)
        return 2
    try:
        build_vectors(Path(argv[0]), part="encoded", wait=False)
    except Exception as exc:  # nobody reads a detached builder's traceback: logged, in plain words
        log.warning("the background build of the sentence-encoder vectors stopped: %s", exc)
        return 1
    return 0
