"""Acting on papers on a real X display (Xvfb + openbox + xdotool): ↓ Shift+↓×4 s, Ctrl+Z, t NAME Enter.

Skipped where those programs are missing; `bash scripts/install-system-deps.sh` installs them.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "real_display_select.py"
DISPLAY = os.environ.get("DESK_TEST_SELECT_DISPLAY", ":92")


@pytest.mark.slow
@pytest.mark.skipif(
    any(shutil.which(t) is None for t in ("Xvfb", "openbox", "xdotool")),
    reason="needs Xvfb, openbox and xdotool (scripts/install-system-deps.sh)",
)
def test_select_five_star_undo_and_tag_on_a_real_display() -> None:
    proc = subprocess.run(
        [sys.executable, str(SCRIPT), "--display", DISPLAY],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "all checks passed" in proc.stdout
