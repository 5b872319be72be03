"""desk as users get it: a wheel built from this tree and installed (not editable) into a clean
venv carries its samples, its desktop entry and icons, its version, and `desk-gui FILE` opens a list.

Offline, as CI runs it: the wheel is built with this environment's setuptools (no build
isolation, no index), and the venv it goes into sees this environment's dependencies through a
path file instead of downloading them. That file names the folders alone: their own .pth files
(this checkout's editable install among them) are not read, so ``desk`` is the wheel's.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import signal
import subprocess
import sys
import sysconfig
import time
import tomllib
from collections.abc import Callable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
MIME_TYPES = {
    "text/plain",
    "text/x-bibtex",
    "application/x-research-info-systems",
    "text/csv",
    "application/json",
}
BODY = (
    "We study how sparse attention patterns emerge in small transformers trained on arithmetic. "
    "Probing shows that heads specialise early. We release the probes and the trained models.\n\n"
    "A benchmark of forty tabular datasets reveals that tuned gradient boosting still beats deep "
    "models on most of them. We analyse why, and find that irregular targets explain the gap.\n"
)

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(sys.platform == "win32", reason="the venv layout and signals here are POSIX ones"),
]


def build_tools_missing() -> str | None:
    """Why the wheel cannot be built offline here, or None (the test extra brings both)."""
    if importlib.util.find_spec("wheel") is None:
        return "the `wheel` package is missing (pip install -e '.[test]' installs it)"
    from importlib.metadata import version  # not `import setuptools`: it would take over distutils

    if int(version("setuptools").split(".")[0]) < 68:
        return f"setuptools {version('setuptools')} is older than pyproject.toml's build requirement"
    return None


def pip_takes_python() -> bool:
    """Whether this pip has --python (22.3 and later): it can install into another environment."""
    import pip

    major, minor = (int(n) for n in pip.__version__.split(".")[:2])
    return (major, minor) >= (22, 3)


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A venv with desk's wheel installed in it (its bin/ folder)."""
    missing = build_tools_missing()
    if missing:
        pytest.skip(missing)
    where = tmp_path_factory.mktemp("wheel")
    # A copy of what the wheel is made of: building in the tree would leave build/ and egg-info.
    source = where / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, source / name)
    shutil.copytree(ROOT / "desk", source / "desk", ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "--no-input"]
    dist = where / "dist"
    offline = ["--no-deps", "--no-build-isolation", "--no-index"]
    subprocess.run([*pip, "wheel", "-q", *offline, "-w", str(dist), str(source)], check=True, timeout=300)
    (wheel,) = dist.glob("desk-*.whl")
    venv = where / "venv"
    python = venv / "bin" / "python"
    if pip_takes_python():  # this pip installs into the new venv, which then needs none of its own
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
        installer = [*pip, "--python", str(python)]
    else:  # an older pip (Ubuntu 22.04's venvs have 22.0): the venv's own
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
        installer = [str(python), "-m", "pip", "--disable-pip-version-check", "--no-input"]
    subprocess.run([*installer, "install", "-q", *offline, str(wheel)], check=True, timeout=300)
    ours = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True, capture_output=True, text=True,
    ).stdout.strip()  # fmt: skip
    here = dict.fromkeys((sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]))
    (Path(ours) / "test-dependencies.pth").write_text("".join(f"{p}\n" for p in here), encoding="utf-8")
    return venv / "bin"


def clean_env(tmp_path: Path) -> dict[str, str]:
    """No checkout on the path, no sample folder named, the user's folders under tmp_path."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "DESK_", "XDG_"))}
    env.update(HOME=str(tmp_path / "home"), QT_QPA_PLATFORM="offscreen", DESK_SENTENCE_ENCODER="0")
    for var in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_RUNTIME_DIR"):
        env[var] = str(tmp_path / "xdg" / var.lower())
        Path(env[var]).mkdir(parents=True, exist_ok=True, mode=0o700)
    return env


def run(cmd: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True, timeout=120)


def wait_for(condition: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.2)  # a poll of another process's state, not a wait for time to pass


def papers(bin_dir: Path, library: Path, env: dict[str, str], cwd: Path) -> list[dict[str, object]]:
    if not (library / "library.sqlite3").exists():
        return []
    proc = run([str(bin_dir / "desk"), "--library", str(library), "list", "--json"], env, cwd)
    return json.loads(proc.stdout)["papers"] if proc.returncode == 0 else []


def close_window(window: subprocess.Popen[str]) -> str:
    """SIGTERM, which closes the window as its close button does (settings saved); its stderr."""
    window.send_signal(signal.SIGTERM)
    _out, err = window.communicate(timeout=60)
    assert window.returncode == 0, err
    return err


def test_the_installed_wheel_is_desk_not_this_checkout(installed: Path, tmp_path: Path) -> None:
    env = clean_env(tmp_path)
    code = "import desk, desk.core.runtime.paths as p; print(desk.__file__); print(p.bundled_seeds_dir())"
    proc = run([str(installed / "python"), "-c", code], env, tmp_path)
    module, samples = proc.stdout.split("\n")[:2]
    venv = installed.parent
    assert Path(module).is_relative_to(venv) and Path(samples).is_relative_to(venv), proc.stdout + proc.stderr
    assert sorted(p.name for p in Path(samples).glob("*.txt")) == sorted(
        p.name for p in (ROOT / "seeds").glob("*.txt")
    )
    version = run([str(installed / "desk"), "--version"], env, tmp_path)
    assert version.stdout == f"desk {PROJECT['version']}\n", version.stderr  # from the wheel's metadata


def test_the_installed_window_imports_the_samples_on_a_first_run(installed: Path, tmp_path: Path) -> None:
    env = clean_env(tmp_path)
    library = tmp_path / "first-run"
    window = subprocess.Popen(
        [str(installed / "desk-gui"), "--library", str(library)], env=env, cwd=tmp_path,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        wait_for(lambda: len(papers(installed, library, env, tmp_path)) >= 90, 120, "the samples imported")
    finally:
        err = close_window(window)
    assert "Traceback" not in err
    collections = {s["collection"] for p in papers(installed, library, env, tmp_path) for s in p["sources"]}
    assert len(collections) >= 2  # the five sample lists' collections


def test_install_desktop_writes_an_entry_that_opens_list_files(installed: Path, tmp_path: Path) -> None:
    env = clean_env(tmp_path)
    proc = run([str(installed / "desk"), "install-desktop"], env, tmp_path)
    assert proc.returncode == 0, proc.stderr
    data = Path(env["XDG_DATA_HOME"])
    text = (data / "applications" / "desk.desktop").read_text(encoding="utf-8")
    fields = dict(line.split("=", 1) for line in text.splitlines() if "=" in line)
    assert fields["Exec"] == f"{installed / 'desk-gui'} %F"
    assert set(filter(None, fields["MimeType"].split(";"))) == MIME_TYPES
    sizes = {p.parts[-3] for p in (data / "icons" / "hicolor").glob("*/apps/desk.*")}
    assert {"scalable", "16x16", "32x32", "48x48", "128x128", "256x256"} <= sizes


def test_desk_gui_file_imports_the_file_and_shows_it(installed: Path, tmp_path: Path) -> None:
    from PySide6.QtCore import QSettings

    from desk.gui.settings import library_key

    env = clean_env(tmp_path)
    lists = tmp_path / "Downloads"
    lists.mkdir()
    (lists / "autumn.txt").write_text(f"Reading Group Autumn Papers\n\n{BODY}", encoding="utf-8")
    library = tmp_path / "library"
    window = subprocess.Popen(
        [str(installed / "desk-gui"), "--library", str(library), "autumn.txt"], env=env, cwd=lists,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        wait_for(lambda: len(papers(installed, library, env, tmp_path)) == 2, 120, "the file imported")
    finally:
        err = close_window(window)
    assert "Traceback" not in err
    # The file was shown: the window closed on its list (and imported no samples besides it).
    ini = Path(env["XDG_CONFIG_HOME"]) / "desk" / "desk.ini"
    settings = QSettings(str(ini), QSettings.Format.IniFormat)
    assert settings.value(f"{library_key(library)}/filter") == 'in:"Reading Group Autumn Papers"'
    assert len(papers(installed, library, env, tmp_path)) == 2
