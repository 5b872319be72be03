"""`--version` for desk's command lines: the version looked up only when it is asked for."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

from desk import version


class VersionAction(argparse.Action):
    """Prints ``desk VERSION`` and exits, like argparse's own "version" action, but finds the
    version only then (desk.version reads the package metadata, which every other command skips)."""

    def __init__(
        self,
        option_strings: Sequence[str],
        dest: str = argparse.SUPPRESS,
        default: Any = argparse.SUPPRESS,
        help: str = "show desk's version and exit",
    ) -> None:
        super().__init__(option_strings=option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: str | Sequence[Any] | None,
        option_string: str | None = None,
    ) -> None:
        sys.stdout.write(f"desk {version()}\n")  # on stdout, as argparse's own version action
        parser.exit()
