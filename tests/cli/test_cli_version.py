"""`desk --version` and `desk-gui --version`: the version pyproject.toml gives (a wheel's
metadata: tests/test_packaging.py), looked up only when asked for."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from desk.cli.main import main

ROOT = Path(__file__).resolve().parents[2]
VERSION = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]


def test_desk_version_is_the_projects(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["--version"])
    assert stop.value.code == 0
    assert capsys.readouterr().out == f"desk {VERSION}\n"


def test_desk_gui_version_answers_without_opening_a_window() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "desk.gui", "--version"], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0 and proc.stdout == f"desk {VERSION}\n", proc.stderr


def test_a_command_does_not_load_the_package_metadata() -> None:
    # importlib.metadata costs a command tens of milliseconds: only --version reads it.
    code = "import sys; from desk.cli.main import main; main(['--help'])"
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert "usage: desk" in proc.stdout
    assert "importlib.metadata" not in proc.stderr
