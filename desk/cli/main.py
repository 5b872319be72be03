"""`desk`: the command line. With no command it opens the window."""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Sequence

from desk import __version__
from desk.cli.output import warn
from desk.cli.registry import COMMANDS
from desk.core.errors import DeskError


def _library_option(parser: argparse.ArgumentParser, default: object) -> None:
    parser.add_argument(
        "--library",
        metavar="DIR",
        default=default,
        help="library folder (default: $DESK_LIBRARY, else the user data dir)",
    )


def build_parser() -> argparse.ArgumentParser:
    """The argument parser: every command takes --library before or after its name."""
    parser = argparse.ArgumentParser(
        prog="desk", description="An offline, keyboard-driven reading list for research-paper abstracts."
    )
    parser.add_argument("--version", action="version", version=f"desk {__version__}")
    _library_option(parser, None)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for spec in COMMANDS:
        p = sub.add_parser(spec.name, help=spec.help, description=spec.help)
        # SUPPRESS keeps a --library given before the command from being reset here.
        _library_option(p, argparse.SUPPRESS)
        spec.arguments(p)
        p.set_defaults(run=spec.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; exit status 0 success, 1 failed or partial work, 2 usage error."""
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(format="desk: %(message)s", level=logging.WARNING)
    if args.command is None:
        from desk.gui.app import run_app

        return run_app(args.library)
    try:
        return int(args.run(args) or 0)
    except BrokenPipeError:
        # stdout closed early (desk list | head): not an error worth a traceback.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except DeskError as exc:
        warn(f"desk: {exc}")
        return 1
    except OSError as exc:
        # A folder that cannot be written, a disk that is full: say which and why, no traceback.
        where = f" ({exc.filename})" if exc.filename else ""
        warn(f"desk: {exc.strerror or exc}{where}")
        return 1
    except KeyboardInterrupt:
        warn("desk: interrupted")
        return 1


def entry() -> None:
    """Console-script entry point."""
    sys.exit(main())


if __name__ == "__main__":
    entry()
