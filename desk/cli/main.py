"""`desk`: the command line. With no command it opens the window."""

from __future__ import annotations

import argparse
import gc
import os
import re
import sys
import types
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from desk.cli.light_imports import after_import
from desk.core.runtime.errors import DeskError

#: The cycle collector's first threshold while a command runs (CPython's default is 700 new
#: container objects). A command makes its objects (modules, rows, arrays) once and exits: at
#: 700, `desk search` ran ~90 collections over them (~20 ms at 100k papers) and `desk list
#: --json` ~590 (~225 ms, 4 of them over every row); at 100,000 a search runs none, the list 4
#: young ones, and a long import still collects cycles every 100,000 new containers.
GC_THRESHOLD = 100_000


@contextmanager
def fewer_collections() -> Iterator[None]:
    """The cycle collector at GC_THRESHOLD meanwhile (as it was after: main() may run in a test)."""
    before = gc.get_threshold()
    gc.set_threshold(GC_THRESHOLD, *before[1:])
    try:
        yield
    finally:
        # What the command made is handed to the oldest generation unexamined: with the threshold
        # back at 700, the next allocation collected over all of it at once (~9 ms of a `desk
        # note`, ~4 of a `desk star`) as the process was about to exit. A later full collection
        # (in a test's process) still frees its cycles.
        gc.freeze()
        gc.set_threshold(*before)
        gc.unfreeze()


def _library_option(parser: argparse.ArgumentParser, default: object) -> None:
    parser.add_argument(
        "--library",
        metavar="DIR",
        default=default,
        help="library folder (default: $DESK_LIBRARY, else the user data dir)",
    )


def _command_named(argv: Sequence[str]) -> str | None:
    """The command argv runs (its first word that is not an option nor --library's value), or None."""
    from desk.cli.registry import COMMANDS

    names = {spec.name for spec in COMMANDS}
    k = 0
    while k < len(argv):
        token = argv[k]
        if token == "--library":
            k += 2
            continue
        if token.startswith("-"):
            if token in ("-h", "--help", "--version"):
                return None
            k += 1
            continue
        return token if token in names else None
    return None


def _parsers(
    only: str | None = None,
) -> tuple[argparse.ArgumentParser, dict[str, argparse.ArgumentParser]]:
    """The parser, and each command's; ``only``: that command's alone (the process runs just it:
    building the other 35 costs more than some commands take)."""
    from desk.cli.registry import COMMANDS

    parser = argparse.ArgumentParser(
        prog="desk", description="An offline, keyboard-driven reading list for research-paper abstracts."
    )
    from desk.core.runtime.version import VersionAction

    parser.add_argument("--version", action=VersionAction)
    _library_option(parser, None)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    commands: dict[str, argparse.ArgumentParser] = {}
    for spec in COMMANDS:
        if only is not None and spec.name != only:
            continue
        p = sub.add_parser(spec.name, help=spec.help, description=spec.help)
        # SUPPRESS keeps a --library given before the command from being reset here.
        _library_option(p, argparse.SUPPRESS)
        spec.arguments(p)
        p.set_defaults(run=spec.run)
        commands[spec.name] = p
    return parser, commands


def build_parser() -> argparse.ArgumentParser:
    """The argument parser: every command takes --library before or after its name."""
    return _parsers()[0]


def _known(parser: argparse.ArgumentParser, token: str) -> bool:
    """Whether argparse would take token for one of parser's options (abbreviations too)."""
    name = token.split("=", 1)[0]
    options = [o for action in parser._actions for o in action.option_strings]
    return name in options or (name.startswith("--") and any(o.startswith(name) for o in options))


def _words_starting_with_a_dash(argv: list[str], commands: dict[str, argparse.ArgumentParser]) -> list[str]:
    """argv with a value that begins with "-" but names no option (``desk search -policy``,
    ``desk note 3 --set -x``) made unambiguous: joined to its option with "=", or moved behind
    "--" when it is the command's positional argument. "--" itself keeps working."""
    at = next((k for k, a in enumerate(argv) if a in commands), None)
    if at is None or "--" in argv:
        return argv
    parser = commands[argv[at]]
    takes_value = {o for a in parser._actions if a.option_strings and a.nargs != 0 for o in a.option_strings}
    takes_value.add("--library")
    head, rest, loose = argv[: at + 1], argv[at + 1 :], []
    out: list[str] = []
    k = 0
    while k < len(rest):
        token = rest[k]
        value = rest[k + 1] if k + 1 < len(rest) else ""
        if token in takes_value and value.startswith("-") and value != "-" and not _known(parser, value):
            out.append(f"{token}={value}")
            k += 2
            continue
        if token.startswith("-") and len(token) > 1 and not _known(parser, token) and not _number(token):
            loose.append(token)
        else:
            out.append(token)
        k += 1
    return head + out + (["--", *loose] if loose else [])


def _number(token: str) -> bool:
    """Whether argparse itself takes token for a negative number (its own pattern)."""
    return re.fullmatch(r"-\d+|-\d*\.\d+", token) is not None


def _plain_text(args: argparse.Namespace) -> None:
    """Text arguments (a note, a title, a query) with bytes that are not UTF-8 replaced by U+FFFD;
    paths keep them (they name real files)."""
    for name, value in vars(args).items():
        if isinstance(value, str) and name != "library":
            setattr(args, name, value.encode("utf-8", "surrogateescape").decode("utf-8", "replace"))


def _plain_failure(exc: BaseException, args: argparse.Namespace) -> str | None:
    """A failure of the disk or the database file in plain words (None: not one of those)."""
    from desk.core.runtime.failures import message_of, translate
    from desk.core.runtime.paths import DATABASE_NAME, resolve_library_dir, shown_name

    plain = translate(exc, resolve_library_dir(args.library) / DATABASE_NAME)
    if plain is not None:
        return shown_name(str(plain))
    if isinstance(exc, OSError):
        where = f" ({shown_name(str(exc.filename))})" if exc.filename else ""
        return f"{exc.strerror or exc}{where}"
    if type(exc).__module__.split(".")[0] in ("sqlite3", "sqlalchemy"):
        return f"the library database could not be read or written ({message_of(exc)})"
    return None


def _configure_logging(logging: types.ModuleType) -> None:
    """Log records as ``desk: message`` on stderr, warnings and worse, their control characters
    made harmless (a record may quote a file's name or text)."""
    handler = logging.StreamHandler()
    handler.addFilter(_harmless_record)
    logging.basicConfig(format="desk: %(message)s", level=logging.WARNING, handlers=[handler])


def _harmless_record(record: Any) -> bool:
    """A log record's message with its control characters made harmless (a logging filter)."""
    from desk.core.text.control_chars import harmless

    record.msg, record.args = harmless(record.getMessage()), ()
    return True


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; exit status 0 success, 1 failed or partial work, 2 usage error."""
    from desk.core.runtime.privacy import keep_private

    keep_private()  # a library, its backups and its index are the user's alone (desk/core/runtime/privacy.py)
    words = list(sys.argv[1:] if argv is None else argv)
    with fewer_collections():  # from the parser's imports on: the window's loop collects as usual
        parser, commands = _parsers(_command_named(words))
        args = parser.parse_args(_words_starting_with_a_dash(words, commands))
        _plain_text(args)
        after_import(
            "logging", _configure_logging
        )  # imported when something is logged (desk.core.runtime.logs)
        if args.command is not None:
            return _run(args)
    from desk.gui.app import run_app

    return run_app(args.library)


def _tell_exposure(args: argparse.Namespace) -> None:
    """Say once that the library can be read by other users (one it was made before desk made
    libraries private): every command, the light ones that never open the whole Library too."""
    from desk.cli.output import warn
    from desk.core.runtime.paths import resolve_library_dir
    from desk.core.runtime.privacy import exposure

    told = exposure(resolve_library_dir(getattr(args, "library", None)))
    if told:
        warn(f"desk: note: {told}")


def _run(args: argparse.Namespace) -> int:
    """Run the command args name; failures said in plain words on stderr (exit status 1)."""
    from desk.cli.light_imports import install
    from desk.cli.output import tolerate_narrow_encodings, warn
    from desk.core.semantic.blas import pin_to_one_thread

    tolerate_narrow_encodings()
    install()  # a command's Whoosh without urllib.request and asyncio (light_imports.py)
    pin_to_one_thread()  # before numpy loads: OpenBLAS starts no pool of spinning threads (blas.py)
    try:
        _tell_exposure(args)
        return int(args.run(args) or 0)
    except BrokenPipeError:
        # stdout closed early (desk list | head): not an error worth a traceback.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except DeskError as exc:
        warn(f"desk: {exc}")
        return 1
    except KeyboardInterrupt:
        warn("desk: interrupted")
        return 1
    except Exception as exc:
        # A folder that cannot be written, a full disk, a damaged file: say which, no traceback.
        plain = _plain_failure(exc, args)
        if plain is None:
            raise
        warn(f"desk: {plain}")
        return 1


# Commands with nothing left to write when they return (the read-only ones, and import, whose
# library is closed, its worker processes stopped, before it reports): their process ends without
# the interpreter's teardown (desk.core.runtime.exiting.exit_if_idle), which frees every object an
# import of thousands of papers made, one by one, with every core but one idle.
ENDS_WITHOUT_TEARDOWN = frozenset({"search", "list", "show", "stats", "import"})


def entry() -> None:
    """Console-script entry point."""
    code = main()
    if _command_named(sys.argv[1:]) in ENDS_WITHOUT_TEARDOWN:
        from desk.core.runtime.exiting import exit_if_idle

        exit_if_idle(code)
    sys.exit(code)


if __name__ == "__main__":
    entry()
