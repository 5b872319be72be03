"""What the screenshot scripts share: an offscreen application with settings of its own, libraries
built from seeds/ in a temporary folder, a window opened in a colour scheme, waiting for it.

The user's library and settings are never touched.
"""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.pop("DESK_COLOR_SCHEME", None)

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "resources" / "screenshots"
SEEDS = ROOT / "seeds"


def wait(app: QApplication, condition: Callable[[], object], timeout: float = 60.0) -> None:
    """Run the event loop until `condition()` holds."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise SystemExit("timed out waiting for the window")
        app.processEvents()
        time.sleep(0.001)


def settle(app: QApplication, seconds: float = 0.4) -> None:
    """Let painting and the last callbacks happen."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        app.processEvents()
        time.sleep(0.001)


class Session:
    """One temporary folder (libraries, settings) and the application."""

    def __init__(self, folder: Path, app: QApplication) -> None:
        self.folder = folder
        self.app = app

    def library(self, name: str, extra: Sequence[Path] = (), *, seeds: bool = True) -> Path:
        """A library folder holding the seeds (and `extra` lists), or an empty one."""
        from desk.core.library.facade import Library

        directory = self.folder / name
        if seeds or extra:
            with Library(directory) as lib:
                if seeds:
                    lib.import_paths([SEEDS])
                for path in extra:
                    lib.import_paths([path])
        return directory

    def window(self, library: Path, scheme: str, size: tuple[int, int] = (1280, 800), **kw: Any) -> Any:
        """The main window on `library` in "light" or "dark", shown and ready."""
        from desk.gui.main.window import MainWindow

        window = MainWindow(library, seeds=kw.pop("first_run_seeds", None))
        window.set_scheme(scheme)
        window.resize(*size)
        window.show()
        wait(self.app, lambda: window.ready and not window.controller.pending())
        return window

    def save(self, widget: Any, name: str) -> Path:
        settle(self.app)
        OUT.mkdir(parents=True, exist_ok=True)
        path = OUT / f"{name}.png"
        widget.grab().save(str(path))
        print(path.relative_to(ROOT))
        return path


@contextmanager
def session() -> Iterator[Session]:
    """A temporary folder with its own QSettings, and the application."""
    with tempfile.TemporaryDirectory(prefix="desk-shots-") as tmp:
        QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, str(Path(tmp) / "settings"))
        from desk.gui.app import application

        yield Session(Path(tmp), application())
