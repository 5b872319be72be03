"""Building a library's semantic vectors in a process of its own (the window's way).

The build is mostly Python (tokenising every abstract): on a thread of the window it would share
the interpreter's lock with the UI thread. ``build_in_process`` runs it in a fresh process that
opens only the database and the vector store, and waits for it; the caller then reloads the
store (``SemanticVectors.load``).
"""

from __future__ import annotations

import multiprocessing
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

from sqlalchemy import select

from desk.core.db import Database, Paper
from desk.core.paths import BACKUP_DIR_NAME, DATABASE_NAME
from desk.core.semantic.encoded import DIR_NAME as ENCODED_DIR_NAME
from desk.core.semantic.encoded import EncodedVectors
from desk.core.semantic.minilm import ModelError
from desk.core.semantic.store import DIR_NAME
from desk.core.semantic.vectors import SemanticVectors

READ_CHUNK = 900
Part = Literal["all", "lsa", "encoded"]  # which vectors a build brings up to date


def build_vectors(directory: Path, part: Part = "all") -> str | None:
    """Bring the vectors of the library in ``directory`` up to date (LSA's, then the sentence
    encoder's); what was done, or None."""
    db = Database(directory / DATABASE_NAME, directory / BACKUP_DIR_NAME)
    try:
        with db.reading() as session:
            ids = list(session.scalars(select(Paper.id).order_by(Paper.id)))

        def abstracts(wanted: Sequence[int]) -> dict[int, str]:
            out: dict[int, str] = {}
            with db.reading() as session:
                for start in range(0, len(wanted), READ_CHUNK):
                    chunk = list(wanted[start : start + READ_CHUNK])
                    rows = session.execute(select(Paper.id, Paper.abstract).where(Paper.id.in_(chunk)))
                    out.update((int(i), str(a)) for i, a in rows)
            return out

        done = SemanticVectors(directory / DIR_NAME).ensure(ids, abstracts) if part != "encoded" else None
        if part == "lsa":
            return done
        encoded = EncodedVectors(directory / ENCODED_DIR_NAME)
        try:  # LSA's first: search fuses it alone until the encoder's cover every paper
            return encoded.ensure(ids, abstracts) or done
        except ModelError:
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
