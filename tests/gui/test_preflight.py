"""No display or missing X libraries: a sentence, not Qt's plugin abort."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from desk.gui import preflight


def test_no_display_is_said_plainly() -> None:
    assert "no display" in (preflight.window_problem({}, "linux") or "")
    assert preflight.window_problem({"QT_QPA_PLATFORM": "offscreen"}, "linux") is None
    assert preflight.window_problem({}, "darwin") is None


def test_missing_x_libraries_name_the_packages(monkeypatch: pytest.MonkeyPatch) -> None:
    def find_library(name: str) -> str | None:
        return None if name == "xcb-cursor" else name

    monkeypatch.setattr(preflight.ctypes.util, "find_library", find_library)
    problem = preflight.window_problem({"DISPLAY": ":0"}, "linux") or ""
    assert "libxcb-cursor0" in problem and "install-system-deps.sh" in problem
    assert preflight.window_problem({"WAYLAND_DISPLAY": "wayland-0"}, "linux") is None


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="X11/Wayland check is Linux-only")
def test_desk_without_a_display_exits_with_a_sentence(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    proc = subprocess.run(
        [sys.executable, "-m", "desk", "--library", str(tmp_path / "L")],
        capture_output=True, text=True, env=env, timeout=60,
    )  # fmt: skip
    assert proc.returncode == 1
    assert proc.stderr.startswith("desk: no display") and "qt.qpa" not in proc.stderr
