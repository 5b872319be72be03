"""The keyboard flows on a real X display (Xvfb + openbox + xdotool), not offscreen Qt.

Each script in ``scripts/`` starts its own Xvfb, launches ``desk`` on it, types with xdotool and
reads the database back (``scripts/real_display.py`` is what they share). Skipped where those
programs are missing; ``bash scripts/install-system-deps.sh`` installs them.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FLOWS = {
    # type, ↓ ↓ s, Ctrl+K, Enter, n a note, Esc, ?, typing from the list into the box
    "keyboard": ("real_display_check.py", os.environ.get("DESK_TEST_DISPLAY", ":91")),
    # ↓ Shift+↓×4 s, Ctrl+Z, t NAME Enter
    "select": ("real_display_select.py", os.environ.get("DESK_TEST_SELECT_DISPLAY", ":92")),
    # ↓↓ while the vectors land ↓ s, Esc Ctrl+Z, Enter e s, F6 Home ↓×4, a typed in:
    "second pass": ("real_display_second_pass.py", os.environ.get("DESK_TEST_SECOND_DISPLAY", ":93")),
}


@pytest.mark.slow
@pytest.mark.skipif(
    any(shutil.which(t) is None for t in ("Xvfb", "openbox", "xdotool", "xprop")),
    reason="needs Xvfb, openbox, xdotool and xprop (scripts/install-system-deps.sh)",
)
def test_the_flows_on_a_real_display() -> None:
    """The flows at once, each on its own display: they wait on what the window shows (its
    title, the database), so most of their time is the windows' own, and one test holds a core
    for the time of the longest flow, not of the three in a row."""
    running = {
        flow: subprocess.Popen(
            [sys.executable, str(ROOT / "scripts" / script), "--display", display],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        for flow, (script, display) in sorted(FLOWS.items())
    }
    failed = []
    for flow, proc in running.items():
        try:
            out, _ = proc.communicate(timeout=300)
        except subprocess.TimeoutExpired:
            proc.kill()
            out, _ = proc.communicate()
        if proc.returncode != 0 or "all checks passed" not in out:
            failed.append(f"--- {flow} (exit {proc.returncode}):\n{out[-3000:]}")
    assert not failed, "\n".join(failed)
