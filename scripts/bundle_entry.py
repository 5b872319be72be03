"""The entry point of the one-folder bundle (scripts/bundle.sh): `desk` runs the command line
(with no command, the window), `desk-gui` (a link to the same program) the window.

The bundle's program is also what desk's own processes start as `sys.executable`: the spawned
worker processes (multiprocessing.freeze_support answers those) and the background builder of
the sentence vectors, started as `sys.executable -m desk.core.semantic.builder LIBRARY`.
"""

from __future__ import annotations

import multiprocessing
import os
import runpy
import sys


def main() -> None:
    """Run what the bundle's program was started as."""
    multiprocessing.freeze_support()  # a spawned worker: runs its job, never returns here
    if len(sys.argv) >= 3 and sys.argv[1] == "-m":  # `python -m MODULE ARGS`, as a real Python would
        module = sys.argv[2]
        sys.argv = [sys.argv[0], *sys.argv[3:]]
        runpy.run_module(module, run_name="__main__", alter_sys=True)
        return
    if os.path.basename(sys.argv[0]).lower().startswith("desk-gui"):
        from desk.gui.app import main as window

        window()
    else:
        from desk.cli.main import entry

        entry()


if __name__ == "__main__":
    main()
