"""`desk install-desktop`: a valid freedesktop entry and the icons, for the current user."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from desk.core.desktop import desktop_entry_text, exec_argument, install_desktop, launcher_command
from desk.core.runtime.errors import DeskError
from desk.core.runtime.paths import shipped_dir

#: The list formats desk reads, as the entry offers them to a file manager.
MIME_TYPES = {
    "text/plain",
    "text/x-bibtex",
    "application/x-research-info-systems",
    "text/csv",
    "application/json",
}


def entry_field(text: str, key: str) -> str:
    return next(line for line in text.splitlines() if line.startswith(f"{key}="))[len(key) + 1 :]


def validate(entry: Path) -> None:
    validator = shutil.which("desktop-file-validate")
    if validator is None:
        pytest.skip("desktop-file-validate is not installed (scripts/install-system-deps.sh installs it)")
    proc = subprocess.run([validator, str(entry)], capture_output=True, text=True)
    assert proc.returncode == 0 and not proc.stdout.strip(), proc.stdout + proc.stderr


def test_install_writes_an_entry_that_opens_list_files_and_the_icons(tmp_path: Path) -> None:
    written = install_desktop(data_home=tmp_path)
    entry = tmp_path / "applications" / "desk.desktop"
    assert entry in written
    text = entry.read_text(encoding="utf-8")
    launcher = Path(sys.executable).with_name("desk-gui")  # the venv's launcher script
    assert launcher.is_file()
    assert entry_field(text, "Exec") == f"{launcher} %F"  # the files a file manager opens with desk
    assert set(filter(None, entry_field(text, "MimeType").split(";"))) == MIME_TYPES
    assert "TryExec=" not in text and "Icon=desk" in text
    assert (tmp_path / "icons" / "hicolor" / "scalable" / "apps" / "desk.svg").is_file()
    assert len(list((tmp_path / "icons" / "hicolor").glob("*x*/apps/desk.png"))) >= 8
    validate(entry)


def test_a_launcher_path_with_spaces_quotes_and_dollars_is_escaped(tmp_path: Path) -> None:
    odd = r'/home/a b/$HOME"x\y%/desk-gui'
    # Quoted (a space), `$` `"` `\` escaped inside the quotes, every backslash doubled again by the
    # string escape of values, and % written as %%.
    assert exec_argument(odd) == r'"/home/a b/\\$HOME\\"x\\\\y%%/desk-gui"'
    assert exec_argument("/usr/bin/desk-gui") == "/usr/bin/desk-gui"
    template = (shipped_dir() / "desk.desktop").read_text(encoding="utf-8")
    entry = tmp_path / "desk.desktop"
    entry.write_text(desktop_entry_text(template, exec_argument(odd)), encoding="utf-8")
    validate(entry)


@pytest.mark.parametrize("name", ["/home/a\nb/desk-gui", "/home/\udcff/desk-gui"])
def test_a_launcher_path_an_entry_cannot_hold_is_refused_in_plain_words(name: str) -> None:
    with pytest.raises(DeskError, match="cannot be put in the menu"):
        exec_argument(name)


def test_without_a_launcher_beside_the_interpreter_the_entry_runs_the_module(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    python = tmp_path / "my python" / "python3"
    monkeypatch.setattr(sys, "executable", str(python))
    assert launcher_command() == f'"{python}" -m desk.gui'


def test_install_desktop_command(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    from desk.cli.main import main

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert main(["--library", str(tmp_path / "L"), "install-desktop"]) == 0
    assert "desk.desktop" in capsys.readouterr().out
    assert (tmp_path / "applications" / "desk.desktop").is_file()
