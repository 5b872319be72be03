"""`desk install-desktop`: a valid freedesktop entry and the icons, for the current user."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from desk.core.desktop import install_desktop


def test_install_writes_a_valid_entry_and_icons(tmp_path: Path) -> None:
    written = install_desktop(data_home=tmp_path)
    entry = tmp_path / "applications" / "desk.desktop"
    assert entry in written
    text = entry.read_text(encoding="utf-8")
    exec_line = next(line for line in text.splitlines() if line.startswith("Exec="))
    assert exec_line.startswith('Exec="/') and ("desk" in exec_line)
    assert "Icon=desk" in text
    assert (tmp_path / "icons" / "hicolor" / "scalable" / "apps" / "desk.svg").is_file()
    assert list((tmp_path / "icons" / "hicolor").glob("*x*/apps/desk.png"))
    validator = shutil.which("desktop-file-validate")
    if validator is None:
        pytest.skip("desktop-file-validate is not installed (scripts/install-system-deps.sh installs it)")
    proc = subprocess.run([validator, str(entry)], capture_output=True, text=True)
    assert proc.returncode == 0 and not proc.stdout.strip(), proc.stdout + proc.stderr


def test_install_desktop_command(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    from desk.cli.main import main

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert main(["--library", str(tmp_path / "L"), "install-desktop"]) == 0
    assert "desk.desktop" in capsys.readouterr().out
    assert (tmp_path / "applications" / "desk.desktop").is_file()
