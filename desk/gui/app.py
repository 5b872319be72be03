"""Start the window: `desk` with no command, or the `desk-gui` launcher."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from PySide6.QtCore import QCoreApplication
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QApplication

from desk import __version__
from desk.core.runtime.paths import resolve_library_dir
from desk.gui import theme
from desk.gui.preflight import window_problem
from desk.gui.settings import APPLICATION, ORGANIZATION

RESOURCES = Path(__file__).resolve().parents[2] / "resources"


def app_icon() -> QIcon:
    """The desk icon: the installed theme icon, else the one in the repository's resources/."""
    icon = QIcon.fromTheme("desk")
    if icon.isNull():
        icon = QIcon()
        for png in sorted((RESOURCES / "icons" / "hicolor").glob("*/apps/desk.png")):
            icon.addFile(str(png))
        if icon.isNull() and (RESOURCES / "desk.svg").is_file():
            icon = QIcon(str(RESOURCES / "desk.svg"))
    return icon


def application(argv: list[str] | None = None) -> QApplication:
    """The QApplication, created once, named for QSettings and the desktop entry."""
    QCoreApplication.setOrganizationName(ORGANIZATION)
    QCoreApplication.setApplicationName(APPLICATION)
    QCoreApplication.setApplicationVersion(__version__)
    existing = QApplication.instance()
    app = existing if isinstance(existing, QApplication) else QApplication(argv or sys.argv[:1])
    app.setApplicationDisplayName("desk")
    app.setDesktopFileName("desk")  # Wayland app id = the installed desk.desktop
    app.setWindowIcon(app_icon())
    theme.follow_system(app)
    return app


def run_app(library_dir: str | None) -> int:
    """Open the window on a library folder (None: $DESK_LIBRARY or the user data dir)."""
    problem = window_problem()
    if problem is not None:
        print(f"desk: {problem}", file=sys.stderr)
        return 1
    app = application()
    from desk.gui.main.window import MainWindow  # after QApplication: widgets need it
    from desk.gui.shutdown import close_on_signals
    from desk.gui.single_instance import bring_to_front, claim

    library = resolve_library_dir(library_dir)
    instance = claim(library)
    if instance is None:
        if sys.stderr is not None:  # None under the windowed launcher on Windows
            print(
                f"desk is already open on {library}: that window was brought to the front.", file=sys.stderr
            )
        return 0
    window = MainWindow(library)
    instance.raiseRequested.connect(lambda: bring_to_front(window))
    close_on_signals(window)  # a logout's SIGTERM saves the note and the window's state
    window.show()
    try:
        return app.exec()
    finally:
        instance.close()


def main() -> None:
    """The `desk-gui` launcher."""
    parser = argparse.ArgumentParser(prog="desk-gui", description="Open the desk window.")
    parser.add_argument("--library", metavar="DIR", default=None, help="library folder")
    parser.add_argument("--version", action="version", version=f"desk {__version__}")
    args, _qt_args = parser.parse_known_args()
    sys.exit(run_app(args.library))
