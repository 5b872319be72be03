"""Before Qt starts: say in plain words why a window cannot open, instead of Qt's plugin abort."""

from __future__ import annotations

import ctypes.util
import os
import sys

INSTALL_HINT = (
    "install the system libraries Qt needs with `bash scripts/install-system-deps.sh` "
    "(or: sudo apt-get install libxcb-cursor0 libxkbcommon-x11-0 libegl1)"
)
# Libraries Qt's xcb plugin loads that a bare Debian/Ubuntu machine may lack.
XCB_LIBRARIES = {"xcb-cursor": "libxcb-cursor0", "xkbcommon-x11": "libxkbcommon-x11-0", "EGL": "libegl1"}


def missing_libraries() -> list[str]:
    """Debian package names of the X11 libraries that cannot be found."""
    return [pkg for lib, pkg in XCB_LIBRARIES.items() if ctypes.util.find_library(lib) is None]


def window_problem(environ: dict[str, str] | None = None, platform: str = sys.platform) -> str | None:
    """Why no window can open here, in plain words; None when nothing stands in the way we can see."""
    env = os.environ if environ is None else environ
    if not platform.startswith("linux") or env.get("QT_QPA_PLATFORM"):
        return None  # another OS, or the user chose a platform plugin: let Qt decide
    if not env.get("DISPLAY") and not env.get("WAYLAND_DISPLAY"):
        return (
            "no display to open the window on (neither DISPLAY nor WAYLAND_DISPLAY is set); run desk "
            "from a desktop session, or use the command line: desk --help"
        )
    if not env.get("WAYLAND_DISPLAY"):
        missing = missing_libraries()
        if missing:
            return f"the window needs {', '.join(missing)}, which this machine lacks; {INSTALL_HINT}"
    return None
