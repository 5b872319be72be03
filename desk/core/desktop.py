"""Install the freedesktop entry and icon for the current user (the double-click launcher)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

RESOURCES = Path(__file__).resolve().parents[2] / "resources"


def _data_home() -> Path:
    return Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")


def launcher_command() -> str:
    """The command a desktop entry runs to open the window, as an absolute path."""
    script = Path(sys.executable).with_name("desk")
    if script.exists():
        return f'"{script}"'
    return f'"{sys.executable}" -m desk'


def desktop_entry_text(template: str, exec_command: str) -> str:
    """The entry with its Exec line pointing at this installation."""
    lines = []
    for line in template.splitlines():
        if line.startswith("Exec="):
            line = f"Exec={exec_command}"
        elif line.startswith("TryExec="):
            continue  # TryExec cannot carry arguments; Exec already names an absolute path
        lines.append(line)
    return "\n".join(lines) + "\n"


def install_desktop(resources: Path = RESOURCES, data_home: Path | None = None) -> list[Path]:
    """Write the .desktop entry and icons under the user's XDG data dir; returns the files written."""
    data_home = data_home or _data_home()
    template = resources / "desk.desktop"
    if not template.is_file():
        raise FileNotFoundError(f"the desktop entry template is missing: {template}")
    written: list[Path] = []
    apps = data_home / "applications"
    apps.mkdir(parents=True, exist_ok=True)
    entry = apps / "desk.desktop"
    entry.write_text(desktop_entry_text(template.read_text(encoding="utf-8"), launcher_command()), "utf-8")
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
    for tool, arg in (("update-desktop-database", apps), ("gtk-update-icon-cache", icons)):
        if shutil.which(tool):
            subprocess.run(
                [tool, "-q", str(arg)] if tool == "gtk-update-icon-cache" else [tool, str(arg)],
                check=False,
                capture_output=True,
                timeout=30,
            )
    return written
