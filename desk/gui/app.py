"""Start the window: `desk` with no command, or the `desk-gui [FILE...]` launcher."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QUrl
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QApplication

from desk.core.runtime.paths import resolve_library_dir, shipped_dir
from desk.core.runtime.version import VersionAction
from desk.gui import theme
from desk.gui.preflight import window_problem
from desk.gui.settings import APPLICATION, ORGANIZATION


def app_icon() -> QIcon:
    """The desk icon: the installed theme icon, else the one desk ships (its package data)."""
    icon = QIcon.fromTheme("desk")
    shipped = shipped_dir()
    if icon.isNull() and shipped is not None:
        icon = QIcon()
        for png in sorted((shipped / "icons" / "hicolor").glob("*/apps/desk.png")):
            icon.addFile(str(png))
        if icon.isNull() and (shipped / "desk.svg").is_file():
            icon = QIcon(str(shipped / "desk.svg"))
    return icon


def application(argv: list[str] | None = None) -> QApplication:
    """The QApplication, created once, named for QSettings and the desktop entry."""
    QCoreApplication.setOrganizationName(ORGANIZATION)
    QCoreApplication.setApplicationName(APPLICATION)
    existing = QApplication.instance()
    app = existing if isinstance(existing, QApplication) else QApplication(argv or sys.argv[:1])
    app.setApplicationDisplayName("desk")
    app.setDesktopFileName("desk")  # Wayland app id = the installed desk.desktop
    app.setWindowIcon(app_icon())
    theme.follow_system(app)
    return app


def given_files(names: Sequence[str]) -> list[Path]:
    """The files named on the command line as absolute paths (the window already open that may
    get them has another working folder); a ``file://`` URL, which some file managers pass
    although the entry asks for paths (%F), as its local path."""
    files = []
    for name in names:
        if name.startswith("file://"):
            local = QUrl(name).toLocalFile()
            if not local:
                continue
            name = local
        files.append(Path(os.path.abspath(name)))
    return files


def run_app(library_dir: str | None, files: Sequence[Path] = ()) -> int:
    """Open the window on a library folder (None: $DESK_LIBRARY or the user data dir), importing
    and showing ``files`` (absolute paths); with a window already open on that library, hand
    them to it instead."""
    problem = window_problem()
    if problem is not None:
        print(f"desk: {problem}", file=sys.stderr)
        return 1
    app = application()
    from desk.gui.main.opening import FileOpenEvents
    from desk.gui.main.window import MainWindow  # after QApplication: widgets need it
    from desk.gui.shutdown import close_on_signals
    from desk.gui.single_instance import bring_to_front, claim

    library = resolve_library_dir(library_dir)
    instance = claim(library, files)
    if instance is None:
        if sys.stderr is not None:  # None under the windowed launcher on Windows
            what = "the files were handed to that window" if files else "that window was brought to the front"
            print(f"desk is already open on {library}: {what}.", file=sys.stderr)
        return 0
    window = MainWindow(library, files=files)
    instance.openRequested.connect(window.open_files)
    file_events = FileOpenEvents(window)  # macOS: Finder's files come as events, not arguments
    file_events.opened.connect(window.open_files)
    app.installEventFilter(file_events)
    instance.raiseRequested.connect(lambda: bring_to_front(window))
    close_on_signals(window)  # a logout's SIGTERM saves the note and the window's state
    window.show()
    try:
        return app.exec()
    finally:
        instance.close()


def main() -> None:
    """The `desk-gui` launcher: `desk-gui [--library DIR] [FILE...]`."""
    parser = argparse.ArgumentParser(prog="desk-gui", description="Open the desk window.")
    parser.add_argument("--library", metavar="DIR", default=None, help="library folder")
    parser.add_argument("--version", action=VersionAction)
    parser.add_argument("files", metavar="FILE", nargs="*", help="list files to import and show")
    args, _qt_args = parser.parse_known_args()
    sys.exit(run_app(args.library, given_files(args.files)))
