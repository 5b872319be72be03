"""Opening list files: `desk-gui FILE` imports and shows them, and a second start hands its files
to the window already open on the library (the single-instance channel) instead of a second window."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from gui_helpers import SEEDS
from PySide6.QtNetwork import QLocalSocket
from PySide6.QtWidgets import QLabel

from desk.core.library.facade import Library
from desk.gui.single_instance import MAX_REQUEST, claim, open_request, requested_files

ROOT = Path(__file__).resolve().parents[2]
unix_only = pytest.mark.skipif(sys.platform == "win32", reason="local sockets are files only on Unix")

COLLECTION = "Reading Group Autumn Papers"
ABSTRACTS = [
    "We study how sparse attention patterns emerge in small transformers trained on arithmetic. "
    "Probing shows that heads specialise early. We release the probes and the trained models.",
    "A benchmark of forty tabular datasets reveals that tuned gradient boosting still beats deep "
    "models on most of them. We analyse why, and find that irregular targets explain the gap.",
    "Planning with learned world models fails when the model is wrong far from the data. We add an "
    "uncertainty penalty to the planner and recover the performance of the true simulator.",
]


def reading_list(folder: Path, name: str = "autumn.txt", header: str = COLLECTION) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(header + "\n\n" + "\n\n".join(ABSTRACTS) + "\n", encoding="utf-8")
    return path


def shows_list(window, collection: str, count: int) -> bool:
    return (
        window.controller.filter == f'in:"{collection}"'
        and window.controller.text == ""
        and not window.controller.pending()
        and window.model.total == count
    )


def test_a_window_started_with_a_file_imports_it_instead_of_the_samples_and_shows_it(
    tmp_path: Path, qtbot
) -> None:
    from desk.gui.main.window import MainWindow

    listed = reading_list(tmp_path / "lists")
    window = MainWindow(tmp_path / "new-library", seeds=SEEDS, files=[listed])
    qtbot.addWidget(window)
    window.show()
    qtbot.waitUntil(lambda: shows_list(window, COLLECTION, len(ABSTRACTS)), timeout=30_000)
    assert "Added 3 papers from 1 file" in window.statusBar().currentMessage()
    window.close()
    with Library(tmp_path / "new-library") as lib:
        assert lib.count() == len(ABSTRACTS)  # the user's own list, not the samples besides


def test_a_file_opened_before_the_library_is_ready_waits_and_one_imported_before_is_shown_again(
    open_window, library_dir: Path, tmp_path: Path, qtbot
) -> None:
    listed = reading_list(tmp_path / "lists")
    window = open_window(library_dir, wait=False)
    window.search_box.setText("diffusion")  # what was typed gives way to the list opened
    window.controller.set_text("diffusion")
    window.open_files([listed])
    qtbot.waitUntil(lambda: shows_list(window, COLLECTION, len(ABSTRACTS)), timeout=30_000)
    window.set_filter("all")
    qtbot.waitUntil(lambda: window.model.total > len(ABSTRACTS) and not window.controller.pending())
    window.open_files([listed])  # again: nothing to add, the list is shown all the same
    qtbot.waitUntil(lambda: shows_list(window, COLLECTION, len(ABSTRACTS)), timeout=30_000)
    assert "imported before" in window.statusBar().currentMessage()


def test_a_bad_file_opened_is_said_and_the_list_in_view_stays(
    open_window, library_dir: Path, tmp_path: Path, qtbot
) -> None:
    window = open_window(library_dir)
    before = window.model.total
    bad = tmp_path / "photo.txt"
    bad.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4)
    window.open_files([bad, tmp_path / "missing.txt"])
    label = window.findChild(QLabel, "importLabel")  # the band above the list, not a dialog
    qtbot.waitUntil(lambda: label.isVisible() and "photo.txt" in label.text(), timeout=30_000)
    assert "Traceback" not in label.text()
    assert window.controller.filter == "all" and window.model.total == before


# -- the hand-over ---------------------------------------------------------------------------
@pytest.mark.slow
@unix_only
def test_a_second_start_with_a_file_hands_it_to_the_window_already_open(
    open_window, library_dir: Path, tmp_path: Path, qtbot
) -> None:
    instance = claim(library_dir)  # what run_app does before it opens the window
    assert instance is not None and instance.listening
    try:
        window = open_window(library_dir)
        instance.openRequested.connect(window.open_files)
        lists = tmp_path / "a folder with spaces"
        listed = reading_list(lists)
        env = dict(os.environ, QT_QPA_PLATFORM="offscreen", PYTHONPATH=str(ROOT))
        for var in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME"):
            env[var] = str(tmp_path / "xdg" / var.lower())
        with qtbot.waitSignal(instance.openRequested, timeout=30_000) as handed:
            second = subprocess.Popen(
                [sys.executable, "-m", "desk.gui", "--library", str(library_dir), listed.name],
                cwd=lists, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            )  # fmt: skip
        assert handed.args == [[listed]]  # made absolute by the start that was given it
        qtbot.waitUntil(lambda: second.poll() is not None, timeout=30_000)  # no second window
        _out, err = second.communicate()
        assert second.returncode == 0 and "handed to that window" in err, err
        qtbot.waitUntil(lambda: shows_list(window, COLLECTION, len(ABSTRACTS)), timeout=30_000)
    finally:
        instance.close()


def test_an_open_request_carries_any_path_and_nothing_else(tmp_path: Path) -> None:
    odd = [tmp_path / "a\nb.txt", Path("/tmp/\udcff-not-utf8.txt"), tmp_path / "ü ‮.txt"]
    line = open_request(odd)
    assert line.endswith(b"\n") and line.count(b"\n") == 1  # one line, whatever the names hold
    assert requested_files(line) == odd
    assert requested_files(b"raise\n") is None
    assert requested_files(b"open {not json\n") is None
    assert requested_files(b'open {"a": 1}\n') is None
    assert requested_files(b'open ["relative.txt", 3, null, "", "/a\\u0000b", "/fine.txt"]\n') == [
        Path("/fine.txt")
    ]


@unix_only
def test_a_hostile_or_huge_request_opens_nothing(library_dir: Path, tmp_path: Path, qtbot) -> None:
    instance = claim(tmp_path / "some-library")
    assert instance is not None
    opened: list[object] = []
    instance.openRequested.connect(opened.append)
    try:
        for payload in (b"open [1, 2]\n", b"open " + b"[" * 5000 + b"\n", b"x" * (MAX_REQUEST + 10)):
            sock = QLocalSocket()
            sock.connectToServer(instance.name)
            assert sock.waitForConnected(5000)
            sock.write(payload)
            sock.flush()
            qtbot.waitUntil(lambda s=sock: s.state() == QLocalSocket.LocalSocketState.UnconnectedState)
        assert opened == []
    finally:
        instance.close()


def test_a_file_macos_hands_the_application_is_opened(
    open_window, library_dir: Path, tmp_path: Path, qtbot
) -> None:
    from PySide6.QtCore import QUrl
    from PySide6.QtGui import QFileOpenEvent
    from PySide6.QtWidgets import QApplication

    from desk.gui.main.opening import FileOpenEvents

    window = open_window(library_dir)
    events = FileOpenEvents(window)
    events.opened.connect(window.open_files)
    app = QApplication.instance()
    app.installEventFilter(events)
    try:
        QApplication.sendEvent(app, QFileOpenEvent(QUrl.fromLocalFile(str(reading_list(tmp_path / "lists")))))
        qtbot.waitUntil(lambda: shows_list(window, COLLECTION, len(ABSTRACTS)), timeout=30_000)
    finally:
        app.removeEventFilter(events)
