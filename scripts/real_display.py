"""What the real-display checks share: Xvfb with openbox on one display, xdotool keys, the window.

Offscreen Qt hides focus bugs (a window that is not active gets no shortcuts), so the checks in
``real_display_check.py`` and ``real_display_select.py`` start a real X server with a window
manager, launch ``desk`` on it as a user would, type with xdotool, and read the database back.
Needs Xvfb, openbox and xdotool (``scripts/install-system-deps.sh`` installs them).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TOOLS = ("Xvfb", "openbox", "xdotool", "xprop")


def missing_tools() -> list[str]:
    """The programs the checks need that are not on PATH."""
    return [t for t in TOOLS if shutil.which(t) is None]


def wait_for(check: Callable[[], object], timeout: float, what: str) -> object:
    """The first true value of ``check()`` within ``timeout`` seconds; AssertionError after."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}")


def eventually(check: Callable[[], object], timeout: float) -> bool:
    """Whether ``check`` comes true within ``timeout`` seconds (the caller says what failed)."""
    try:
        wait_for(check, timeout, "")
    except AssertionError:
        return False
    return True


class Expectations:
    """What a check expected, printed as it goes; ``failures`` lists what did not hold."""

    def __init__(self) -> None:
        self.failures: list[str] = []

    def __call__(self, ok: bool, what: str) -> None:
        if not ok:
            self.failures.append(what)
        print(("ok: " if ok else "FAIL: ") + what, flush=True)


class Display:
    """Xvfb with openbox on one display number; xdotool against it."""

    def __init__(self, display: str) -> None:
        self.display = display
        self.env = {**os.environ, "DISPLAY": display}
        self.procs: list[subprocess.Popen[bytes]] = []

    def __enter__(self) -> Display:
        xvfb = subprocess.Popen(
            ["Xvfb", self.display, "-screen", "0", "1400x900x24", "-nolisten", "tcp"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        self.procs.append(xvfb)
        wait_for(lambda: self.run("xdotool", "getdisplaygeometry", check=False).returncode == 0, 20, "Xvfb")
        wm = subprocess.Popen(
            ["openbox", "--sm-disable"], env=self.env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        self.procs.append(wm)
        # openbox has taken the screen once it names itself on the root window (EWMH).
        wait_for(
            lambda: "window id" in self.run("xprop", "-root", "_NET_SUPPORTING_WM_CHECK", check=False).stdout,
            20,
            "openbox",
        )
        return self

    def __exit__(self, *exc: object) -> None:
        for proc in reversed(self.procs):
            proc.terminate()
            try:
                proc.wait(5)
            except subprocess.TimeoutExpired:
                proc.kill()

    def run(self, *argv: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        """A command against this display."""
        return subprocess.run(argv, env=self.env, capture_output=True, text=True, check=check, timeout=30)

    def key(self, *keys: str) -> None:
        """Press each key (xdotool names: "Down", "ctrl+k", "shift+Down") with a pause after it."""
        for k in keys:
            self.run("xdotool", "key", "--clearmodifiers", k)
            time.sleep(0.25)

    def type(self, text: str) -> None:
        """Type ``text`` as a user would, a character every 60 ms."""
        self.run("xdotool", "type", "--delay", "60", text)
        time.sleep(0.3)

    def visible(self, name: str) -> str:
        """The id of a visible window whose title holds ``name`` ("" for none)."""
        out = self.run("xdotool", "search", "--onlyvisible", "--name", name, check=False).stdout.split()
        return out[0] if out else ""

    def window(self, name: str, timeout: float = 60) -> str:
        """The id of the visible window named ``name``, once it shows."""
        return str(wait_for(lambda: self.visible(name), timeout, f"a window named {name!r}"))

    def title(self, wid: str) -> str:
        """The window's title as the window manager shows it."""
        return self.run("xdotool", "getwindowname", wid, check=False).stdout.strip()

    def listed(self, wid: str, query: str, timeout: float = 30) -> str:
        """The title once the window lists the hits of ``query`` (a landed search titles it
        "QUERY · N papers — …"; ``query`` "": any search landed): waits for that, not a time."""
        head = f"{query} · " if query else ""

        def landed() -> str:
            title = self.title(wid)
            counted = " papers — " in title or " paper — " in title
            return title if counted and title.startswith(head) else ""

        return str(wait_for(landed, timeout, f"the hits of {query!r} in the title"))

    def activate(self, wid: str) -> None:
        """Give the window the keyboard, as a click on it would."""
        self.run("xdotool", "windowactivate", "--sync", wid, check=False)


def app_env(display: str, home: Path) -> dict[str, str]:
    """The environment of a desk started on ``display`` with its settings and data under ``home``."""
    (home / "runtime").mkdir(mode=0o700, parents=True, exist_ok=True)
    env = {
        **os.environ,
        "DISPLAY": display,
        "QT_QPA_PLATFORM": "xcb",
        "XDG_CONFIG_HOME": str(home / "config"),
        "XDG_DATA_HOME": str(home / "data"),
        "XDG_RUNTIME_DIR": str(home / "runtime"),
    }
    env.pop("DESK_COLOR_SCHEME", None)
    return env


@contextmanager
def desk_window(library: Path, env: dict[str, str], failures: list[str]) -> Iterator[subprocess.Popen[bytes]]:
    """``desk --library LIBRARY`` running in ``env``; killed if still running at the end, and a
    non-zero exit or a traceback in its output is added to ``failures``."""
    app = subprocess.Popen(
        [sys.executable, "-m", "desk", "--library", str(library)],
        env=env,
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    try:
        yield app
    finally:
        if app.poll() is None:
            app.kill()
            app.wait()
        out = app.stdout.read().decode("utf-8", "replace") if app.stdout else ""
        if app.returncode not in (0, None) or "Traceback" in out:
            failures.append(f"the window exited with {app.returncode}: {out[-2000:]}")


def main_for(check: Callable[[argparse.Namespace], list[str]], parser: argparse.ArgumentParser) -> int:
    """Parse the arguments, refuse without the tools, run ``check``; exit 0 when nothing failed."""
    args = parser.parse_args()
    missing = missing_tools()
    if missing:
        print(f"needs {', '.join(missing)}: bash scripts/install-system-deps.sh", file=sys.stderr)
        return 2
    failures = check(args)
    print("all checks passed" if not failures else f"{len(failures)} check(s) failed")
    return 1 if failures else 0
