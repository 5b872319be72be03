"""Install the freedesktop entry and icons for the current user (the double-click launcher).

The entry opens list files too: its ``Exec`` hands them to ``desk-gui`` (``%F``) and its
``MimeType`` names the formats desk reads, so a file manager offers "Open with desk".
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from desk.core.runtime.errors import DeskError
from desk.core.runtime.paths import shipped_dir

#: Characters that make an Exec argument need quotes (the Desktop Entry Specification's list).
_RESERVED = set(" \t\"'\\><~|&;$*?#()`")
#: Inside quotes, these take a backslash.
_QUOTED_ESCAPES = set('"`$\\')


def _data_home() -> Path:
    return Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")


def exec_argument(arg: str) -> str:
    """One argument of an Exec line, quoted and escaped as the specification says.

    A path holding a line break or a byte that is not UTF-8 cannot be written in an entry
    (DeskError): the entry would run something else or nothing.
    """
    if any(ord(c) < 0x20 or ord(c) == 0x7F for c in arg):
        raise DeskError(
            f"desk cannot be put in the menu from a folder whose name holds a control character: {arg!r}"
        )
    try:
        arg.encode("utf-8")
    except UnicodeEncodeError:
        raise DeskError(
            "desk cannot be put in the menu from a folder whose name is not UTF-8: "
            + arg.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
        ) from None
    if any(c in _RESERVED for c in arg):
        arg = '"' + "".join("\\" + c if c in _QUOTED_ESCAPES else c for c in arg) + '"'
    # The string escape of every value comes on top of the quoting: a backslash is doubled again.
    return arg.replace("\\", "\\\\").replace("%", "%%")


def launcher_command() -> str:
    """The Exec command (without its file codes) that opens the window, by absolute path:
    the ``desk-gui`` launcher beside this interpreter (a venv's, a pipx/uv tool's, or the
    one-folder bundle's), else this interpreter running ``desk.gui``."""
    script = Path(sys.executable).with_name("desk-gui")
    if script.exists():
        return exec_argument(str(script))
    return f"{exec_argument(sys.executable)} -m desk.gui"


def desktop_entry_text(template: str, exec_command: str) -> str:
    """The entry with its Exec line running ``exec_command``, the files opened passed on (%F)."""
    lines = []
    for line in template.splitlines():
        if line.startswith("Exec="):
            line = f"Exec={exec_command} %F"
        elif line.startswith("TryExec="):
            continue  # TryExec cannot carry arguments; Exec already names an absolute path
        lines.append(line)
    return "\n".join(lines) + "\n"


def install_desktop(resources: Path | None = None, data_home: Path | None = None) -> list[Path]:
    """Write the .desktop entry and icons under the user's XDG data dir; returns the files written.

    ``resources``: the folder holding ``desk.desktop``, ``desk.svg`` and ``icons/hicolor/``
    (default: the ones desk ships, ``desk.core.runtime.paths.shipped_dir``).
    """
    resources = resources or shipped_dir()
    if resources is None or not (template := resources / "desk.desktop").is_file():
        raise DeskError("this desk was installed without its desktop entry (its data files are missing)")
    data_home = data_home or _data_home()
    entry_text = desktop_entry_text(template.read_text(encoding="utf-8"), launcher_command())
    written: list[Path] = []
    apps = data_home / "applications"
    apps.mkdir(parents=True, exist_ok=True)
    entry = apps / "desk.desktop"
    entry.write_text(entry_text, "utf-8")
    written.append(entry)
    icons = data_home / "icons" / "hicolor"
    svg = resources / "desk.svg"
    if svg.is_file():
        dest = icons / "scalable" / "apps" / "desk.svg"
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(svg, dest)
        written.append(dest)
    for png in sorted((resources / "icons" / "hicolor").glob("*/apps/desk.png")):
        dest = icons / png.relative_to(resources / "icons" / "hicolor")
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(png, dest)
        written.append(dest)
    # The menu's and the file manager's caches: "Open with desk" is offered for the MimeTypes
    # once update-desktop-database has read the entry.
    for tool, arg in (("update-desktop-database", apps), ("gtk-update-icon-cache", icons)):
        if shutil.which(tool):
            subprocess.run(
                [tool, "-q", str(arg)] if tool == "gtk-update-icon-cache" else [tool, str(arg)],
                check=False,
                capture_output=True,
                timeout=30,
            )
    return written
