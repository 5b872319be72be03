"""Screenshots of the window for the README: light and dark, with a search and with a note.

Run from the repository: `python scripts/screenshots.py` (offscreen; writes resources/screenshots/*.png).
The library is built from seeds/ in a temporary folder; the user's library and settings are not touched.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import QApplication

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "resources" / "screenshots"
SIZE = (1280, 800)
QUERY = "offline reinforcement learning"
NOTE = (
    "## Why read it\n\n"
    "- Latent **flow prior** + a *feasibility-weighted* manifold: compare with RACER.\n"
    "- Bring to the reading group on Friday.\n\n"
    "> Check the violation rates in the safety benchmarks."
)


def wait(app: QApplication, condition: Callable[[], bool], timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise SystemExit("timed out waiting for the window")
        app.processEvents()
        time.sleep(0.001)


def settle(app: QApplication, seconds: float = 0.3) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        app.processEvents()
        time.sleep(0.001)


def shoot(app: QApplication, scheme: Qt.ColorScheme, library: Path, name: str) -> list[Path]:
    from desk.gui import theme
    from desk.gui.main.window import MainWindow

    theme.apply_scheme(app, scheme)
    window = MainWindow(library, seeds=None)
    window.resize(*SIZE)
    window.main_splitter.setSizes([470, 810])
    window.right_splitter.setSizes([420, 330])
    window.show()
    wait(app, lambda: window.ready and not window.controller.pending())
    written = []

    window.search_box.setText(QUERY)
    window.controller.set_text(QUERY)
    window.controller.run_now()
    wait(app, lambda: not window.controller.pending() and window.model.rowCount() > 2)
    window.move_selection(1)
    wait(
        app,
        lambda: window.paper_view.paper is not None and window.paper_view.paper.id == window.model.id_at(1),
    )
    pid = window.current_id
    window.reading.toggle("starred")
    wait(app, lambda: window.model.summary(pid) is not None and window.model.summary(pid).starred)
    window.results_view.setFocus()
    settle(app)
    path = OUT / f"{name}-search.png"
    window.grab().save(str(path))
    written.append(path)

    window.reading.edit_note()
    window.note_editor.setPlainText(NOTE)
    window.note.flush()
    wait(app, lambda: window.note.state_text() == "Saved")
    window.reading.toggle_preview()
    wait(app, lambda: window.model.summary(pid) is not None and window.model.summary(pid).has_note)
    settle(app)
    path = OUT / f"{name}-note.png"
    window.grab().save(str(path))
    written.append(path)
    window.close()
    return written


def main() -> int:
    from desk.core.library import Library

    with tempfile.TemporaryDirectory(prefix="desk-shots-") as tmp:
        QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, str(Path(tmp) / "settings"))
        from desk.gui.app import application

        app = application()
        OUT.mkdir(parents=True, exist_ok=True)
        for scheme, name in ((Qt.ColorScheme.Light, "light"), (Qt.ColorScheme.Dark, "dark")):
            library = Path(tmp) / name
            with Library(library) as lib:
                lib.import_paths([ROOT / "seeds"])
            for path in shoot(app, scheme, library, name):
                print(path.relative_to(ROOT))
    return 0


if __name__ == "__main__":
    sys.exit(main())
