"""Never lose data, window side: one window per library, notes under kill -9, the window and the
command line at once, a busy library, hostile text.  Real processes, real kills, real locks."""

from __future__ import annotations

import logging
import os
import random
import re
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from gui_helpers import type_text, wait_search
from PySide6.QtCore import QDir, QPoint, Qt, QUrl
from PySide6.QtGui import QTextCursor, QTextDocument
from PySide6.QtWidgets import QWidget

from desk.core.library.facade import Library
from desk.core.reader import MAX_ABSTRACT_CHARS
from desk.core.runtime.paths import DATABASE_NAME
from desk.core.store import database
from desk.gui import safe_text
from desk.gui.safe_text import SafeTextBrowser
from desk.gui.single_instance import bring_to_front, claim, server_name

ROOT = Path(__file__).resolve().parents[2]
TYPIST = Path(__file__).with_name("note_typist.py")
unix_only = pytest.mark.skipif(sys.platform == "win32", reason="local sockets are files only on Unix")


def gui_env(tmp_path: Path) -> dict[str, str]:
    """A subprocess window: offscreen, with its settings under tmp_path (never the user's)."""
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    for var in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME"):
        env[var] = str(tmp_path / "xdg" / var.lower())
    env.pop("DESK_LIBRARY", None)
    return env


def desk_cmd(library: Path, *args: str) -> list[str]:
    return [sys.executable, "-m", "desk", "--library", str(library), *args]


@pytest.fixture
def spawn() -> Iterator[Callable[..., subprocess.Popen[str]]]:
    """Start processes that are killed at the end of the test whatever happens."""
    started: list[subprocess.Popen[str]] = []

    def start(cmd: list[str], **kwargs: Any) -> subprocess.Popen[str]:
        proc = subprocess.Popen(cmd, **kwargs)
        started.append(proc)
        return proc

    yield start
    for proc in started:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()


def wait_exit(qtbot, proc: subprocess.Popen[str], timeout_ms: int = 60_000) -> tuple[str, str]:
    """Let the event loop run (the window under test answers) until proc ends."""
    qtbot.waitUntil(lambda: proc.poll() is not None, timeout=timeout_ms)
    return proc.communicate()


def switch_away_and_back(qtbot, window: QWidget) -> None:
    """The user goes to a terminal and comes back: the window loses, then regains, activation."""
    other = QWidget()
    qtbot.addWidget(other)
    other.show()
    other.activateWindow()
    qtbot.waitUntil(lambda: not window.isActiveWindow())
    other.close()
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)


def wait_paper(qtbot, window, pid: int) -> None:
    qtbot.waitUntil(
        lambda: (
            window.paper_view.paper is not None
            and window.paper_view.paper.id == pid
            and window.note.paper_id == pid
        ),
        timeout=10_000,
    )


# -- 1. single instance -----------------------------------------------------------------------
@unix_only
def test_a_second_start_on_the_same_library_brings_the_first_forward(
    open_window, library_dir: Path, tmp_path: Path, qtbot, spawn
) -> None:
    instance = claim(library_dir)  # what run_app does before opening the window
    assert instance is not None and instance.listening
    try:
        window = open_window(library_dir)
        instance.raiseRequested.connect(lambda: bring_to_front(window))
        other = QWidget()
        qtbot.addWidget(other)
        other.show()
        other.activateWindow()
        qtbot.waitUntil(lambda: not window.isActiveWindow())

        # The same library through another spelling of its path (a symlink) is the same library.
        alias = tmp_path / "alias"
        alias.symlink_to(library_dir, target_is_directory=True)
        with qtbot.waitSignal(instance.raiseRequested, timeout=30_000):
            second = spawn(
                desk_cmd(alias), env=gui_env(tmp_path), cwd=ROOT, stdout=subprocess.PIPE,
                stderr=subprocess.PIPE, text=True,
            )  # fmt: skip
        _out, err = wait_exit(qtbot, second, 30_000)  # a second window would never exit by itself
        assert second.returncode == 0, err
        assert "already open" in err and "Traceback" not in err
        qtbot.waitUntil(window.isActiveWindow)  # the first window came to the front

        # Another library is another name: its window opens normally.
        elsewhere = claim(tmp_path / "another-library")
        assert elsewhere is not None and elsewhere.listening and elsewhere.name != instance.name
        elsewhere.close()
    finally:
        instance.close()


@pytest.mark.slow
@unix_only
def test_a_killed_window_leaves_no_lock_on_the_next_start(
    library_dir: Path, tmp_path: Path, qtbot, spawn
) -> None:
    socket_file = Path(QDir.tempPath()) / server_name(library_dir)
    first = spawn(desk_cmd(library_dir), env=gui_env(tmp_path), cwd=ROOT)
    try:
        qtbot.waitUntil(socket_file.exists, timeout=30_000)
    finally:
        first.kill()  # SIGKILL: no clean-up of its socket
        first.wait()
    assert socket_file.exists()  # stale: nobody listens on it any more

    instance = claim(library_dir)
    assert instance is not None and instance.listening  # the new start owns the library
    try:
        with qtbot.waitSignal(instance.raiseRequested, timeout=30_000):
            second = spawn(
                desk_cmd(library_dir), env=gui_env(tmp_path), cwd=ROOT, stderr=subprocess.PIPE, text=True
            )
        _out, err = wait_exit(qtbot, second, 30_000)
        assert second.returncode == 0, err
    finally:
        instance.close()


# -- 2. notes under pressure ------------------------------------------------------------------
NOTE = (
    "Compare with RACER on the long-horizon tasks; the ablation in table 3 ignores the reward model. "
    "Ask the group whether the regret bound is tight, and who reproduces figure 2 before Friday. "
) * 8


def start_typist(library: Path, tmp_path: Path, *options: str) -> tuple[subprocess.Popen[str], list[str]]:
    """The typist on the real window, typing NOTE; and its `ready PAPER_ID` line, split."""
    proc = subprocess.Popen(
        [sys.executable, str(TYPIST), str(library), NOTE, *options], env=gui_env(tmp_path), cwd=ROOT,
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert proc.stdout is not None
    ready = proc.stdout.readline().split()
    if ready[:1] != ["ready"]:
        proc.kill()
        proc.wait()
    assert ready[:1] == ["ready"], f"the typist did not start: {ready}"
    return proc, ready


def type_and_kill(
    library: Path, tmp_path: Path, typing_s: float
) -> tuple[int, float, list[tuple[float, int]]]:
    """Run the typist on the real window; SIGKILL it after `typing_s` seconds of typing."""
    proc, ready = start_typist(library, tmp_path)
    assert proc.stdout is not None
    try:
        typed: list[tuple[float, int]] = []
        while True:
            line = proc.stdout.readline().strip()
            assert line and line != "done", "the typist finished before the kill: make NOTE longer"
            stamp, count = line.split("\t")
            typed.append((float(stamp), int(count)))
            if typed[-1][0] - typed[0][0] >= typing_s:
                break
        killed_at = time.time()
    finally:
        proc.kill()
        proc.wait()
    return int(ready[1]), killed_at, typed


@pytest.mark.slow
@unix_only
def test_sigterm_closes_the_window_as_its_close_button_does_and_keeps_the_whole_note(
    library_dir: Path, tmp_path: Path
) -> None:
    """A logout's SIGTERM while a note is being typed: the window closes as its close button
    closes it, so every character is saved (the autosave's last second too) and so is its state."""
    proc, ready = start_typist(library_dir, tmp_path, "--signals")
    assert proc.stdout is not None
    try:
        first = proc.stdout.readline().strip().split("\t")
        while True:
            stamp, count = proc.stdout.readline().strip().split("\t")
            if float(stamp) - float(first[0]) >= 0.8:
                break
        proc.send_signal(signal.SIGTERM)
        last = int(count)
        for line in proc.stdout:
            if line.strip() == "closed":
                break
            last = int(line.split("\t")[1])
        assert proc.wait(timeout=60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    with Library(library_dir) as lib:
        assert lib.check() == []
        assert lib.paper(int(ready[1])).note == NOTE[:last]  # nothing typed was lost
    saved = [p.read_text(errors="replace") for p in (tmp_path / "xdg").rglob("*.ini")]
    assert any("geometry" in text for text in saved), "the window's state was not saved"


@pytest.mark.slow
def test_killing_the_window_loses_at_most_the_last_second_of_a_note(
    library_dir: Path, tmp_path: Path
) -> None:
    import shutil

    rng = random.Random(20261201)  # seeded: the same kill moments on every run
    for round_ in range(2):
        library = tmp_path / f"library-{round_}"
        shutil.copytree(library_dir, library)
        pid, killed_at, typed = type_and_kill(library, tmp_path, rng.uniform(1.6, 2.6))
        with Library(library) as lib:
            assert lib.check() == []
            note = lib.paper(pid).note
        assert NOTE.startswith(note), "the saved note is not what was typed"
        due = max((count for stamp, count in typed if stamp <= killed_at - 1.0), default=0)
        assert due > 0
        assert len(note) >= due, (
            f"round {round_}: {len(note)} characters saved, but {due} were typed a second before the kill"
        )


def stored_note(library: Path, pid: int) -> str | None:
    """The note as another process reads it from the database."""
    conn = sqlite3.connect(library / DATABASE_NAME)
    try:
        row = conn.execute("SELECT note FROM paper WHERE id = ?", (pid,)).fetchone()
    finally:
        conn.close()
    return row[0] if row else None


@pytest.mark.slow
def test_a_note_is_saved_while_a_long_job_holds_the_worker(open_window, library_dir: Path, qtbot) -> None:
    window = open_window(library_dir)
    pid = window.current_id
    assert pid is not None
    wait_paper(qtbot, window, pid)
    release = threading.Event()
    window.executor.submit(lambda _lib: release.wait(60))  # a big import, a rebuild, a duplicate scan
    after: list[str] = []
    try:
        window.reading.edit_note()
        qtbot.waitUntil(window.note_editor.hasFocus)
        type_text(qtbot, "typed while the library was busy importing")
        qtbot.waitUntil(lambda: stored_note(library_dir, pid) == "typed while the library was busy importing")
        # A job asked for afterwards, on the worker, reads it too.
        window.executor.submit(lambda lib: lib.paper(pid).note, after.append)
    finally:
        release.set()
    qtbot.waitUntil(lambda: after == ["typed while the library was busy importing"])
    qtbot.waitUntil(lambda: window.note.state_text() == "Saved")


# -- 3. the window and the command line at once ------------------------------------------------
WORDS = [
    "gradient",
    "sparse",
    "kernel",
    "causal",
    "bandit",
    "latent",
    "transport",
    "convex",
    "federated",
    "privacy",
    "token",
    "graph",
]


def write_list(path: Path, n: int) -> None:
    rng = random.Random(3)
    paras = [
        f"We study quokka colonies {i} with {' '.join(rng.sample(WORDS, 6))} methods. "
        f"Our results show {' and '.join(rng.sample(WORDS, 3))} help."
        for i in range(n)
    ]
    path.write_text("Quokka Workshop 2026 Papers\n\n" + "\n\n".join(paras) + "\n", encoding="utf-8")


@pytest.mark.slow
def test_the_window_and_the_command_line_at_once(
    open_window, library_dir: Path, tmp_path: Path, qtbot, spawn, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING)
    window = open_window(library_dir)
    said: list[str] = []
    window.statusBar().messageChanged.connect(said.append)
    lists = tmp_path / "quokka.txt"
    write_list(lists, 40)

    importing = spawn(
        desk_cmd(library_dir, "import", str(lists)), cwd=ROOT, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    words = iter(["policy", "diffusion", "graph", "bandit", "kernel"] * 40)
    while importing.poll() is None:  # the window is used while the import writes
        window.focus_search()
        word = next(words)
        type_text(qtbot, word)
        wait_search(qtbot, window, word)
    _out, err = importing.communicate(timeout=120)
    assert importing.returncode == 0, err

    # A new search sees the other process's papers: all 40 first, as the words' matches. (Papers
    # near in meaning may follow them when the encoder has vectors by then: fusion.join_floor.)
    with sqlite3.connect(library_dir / "library.sqlite3") as db:
        quokkas = {i for (i,) in db.execute("SELECT id FROM paper WHERE abstract LIKE '%quokka%'")}
    assert len(quokkas) == 40
    window.focus_search()
    type_text(qtbot, "quokka")
    wait_search(qtbot, window, "quokka")
    qtbot.waitUntil(lambda: len(window.model.ids()) >= 40)
    assert set(window.model.ids()[:40]) == quokkas
    pid = window.current_id
    assert pid is not None
    wait_paper(qtbot, window, pid)
    assert not window.model.summary(pid).starred

    starring = subprocess.run(
        desk_cmd(library_dir, "star", str(pid)), cwd=ROOT, capture_output=True, text=True
    )
    assert starring.returncode == 0, starring.stderr

    # Back in the window, what is on screen shows the star without typing anything.
    switch_away_and_back(qtbot, window)
    qtbot.waitUntil(lambda: window.model.summary(pid).starred, timeout=10_000)
    qtbot.waitUntil(lambda: "★ starred" in window.paper_view.meta.text(), timeout=10_000)

    assert window.open_error is None
    assert not [m for m in said if re.search(r"busy|wrong|could not|failed|error", m, re.I)], said
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
    with Library(library_dir) as lib:
        assert lib.check() == []
        assert lib.count() == 94 + 40


def test_coming_back_to_an_unchanged_library_does_not_search_again(
    open_window, library_dir: Path, qtbot
) -> None:
    window = open_window(library_dir)
    refreshed: list[bool] = []
    window.external.refresh = lambda: refreshed.append(True)
    switch_away_and_back(qtbot, window)
    switch_away_and_back(qtbot, window)
    qtbot.waitUntil(lambda: not window.executor.pending() and not window.external._asking)
    assert refreshed == []


# -- 4. a busy library -------------------------------------------------------------------------
def hold_write_lock(library: Path) -> sqlite3.Connection:
    """Another process's long write: the library's write lock, held until released."""
    conn = sqlite3.connect(library / DATABASE_NAME, isolation_level=None, timeout=0)
    conn.execute("BEGIN IMMEDIATE")
    return conn


@pytest.mark.slow
def test_a_busy_library_is_said_in_plain_words_and_notes_wait_for_it(
    open_window, library_dir: Path, qtbot, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(database, "BUSY_TIMEOUT_MS", 200)  # read when the library's connection opens
    window = open_window(library_dir)
    first, second = window.model.id_at(0), window.model.id_at(1)
    assert first is not None and second is not None
    wait_paper(qtbot, window, first)

    holder = hold_write_lock(library_dir)
    try:
        window.reading.toggle("starred")
        qtbot.waitUntil(lambda: "busy" in window.statusBar().currentMessage(), timeout=10_000)
        said = window.statusBar().currentMessage()
        assert "Traceback" not in said and "went wrong" not in said and "OperationalError" not in said

        # A note typed meanwhile is kept, says it is not saved yet, and is saved once the lock goes,
        # even after moving on to another paper.
        window.reading.edit_note()
        qtbot.waitUntil(window.note_editor.hasFocus)
        type_text(qtbot, "written while another desk held the library")
        qtbot.waitUntil(lambda: window.note.state_text().startswith("Not saved yet"), timeout=10_000)
        assert "busy" in window.note.state_text()
        window.show_paper(second, select=True)
        wait_paper(qtbot, window, second)
        window.reading.edit_note()
        type_text(qtbot, "and this one too")
        qtbot.waitUntil(lambda: window.note.state_text().startswith("Not saved yet"), timeout=10_000)
    finally:
        holder.execute("ROLLBACK")
        holder.close()

    qtbot.waitUntil(lambda: window.note.state_text() == "Saved", timeout=15_000)
    window.reading.toggle("starred")
    qtbot.waitUntil(lambda: window.statusBar().currentMessage() == "Starred", timeout=10_000)

    def saved() -> bool:
        with Library(library_dir) as lib:
            a, b = lib.paper(first), lib.paper(second)
            return a.note == "written while another desk held the library" and b.note == "and this one too"

    qtbot.waitUntil(saved, timeout=15_000)


def test_a_library_opens_and_searches_while_another_desk_writes(
    open_window, library_dir: Path, qtbot, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Opening takes no write lock when the index is up to date: a long import elsewhere never blocks it."""
    monkeypatch.setattr(database, "BUSY_TIMEOUT_MS", 200)
    holder = hold_write_lock(library_dir)
    try:
        window = open_window(library_dir, wait=False)
        qtbot.waitUntil(lambda: window.ready or window.open_error is not None, timeout=15_000)
        assert window.open_error is None
        qtbot.waitUntil(lambda: window.model.total > 0, timeout=15_000)
    finally:
        holder.execute("ROLLBACK")
        holder.close()


# -- 5. hostile text ---------------------------------------------------------------------------
HOSTILE = [
    "We study <script>alert(1)</script> injection in abstracts and show the model is robust.",
    "An image <img src=http://example.com/x.png> sits in this abstract, and we evaluate tracking.",
    "Details are at [click](javascript:alert(1)) and javascript:alert(2) and "
    '<a href="javascript:alert(3)">here</a>; we also link https://example.org/paper and stop.',
    "Hidden \u202eexe.txt\u202c names and zero\u200bwidth\u200c joiners\u200d\ufeff hide in words; "
    "we detect them.",
    '<iframe src="http://example.com/frame"></iframe><link rel=stylesheet href=http://example.com/s.css> '
    "<style>body{background:url(http://example.com/bg.png)}</style> We measure styles.",
]


def hostile_library(tmp_path: Path) -> Path:
    """A library imported from a file of hostile abstracts, plus the largest abstract the reader takes."""
    unit = "Tokens <img src=http://example.com/big.png> and [x](javascript:alert(1)) repeat here. "
    huge = ("We scale bigabstract evaluation. " + unit * (MAX_ABSTRACT_CHARS // len(unit)))[
        :MAX_ABSTRACT_CHARS
    ]
    lists = tmp_path / "hostile.txt"
    lists.write_text("Hostile Papers 2026\n\n" + "\n\n".join([*HOSTILE, huge]) + "\n", encoding="utf-8")
    too_big = tmp_path / "too-big.txt"
    too_big.write_text("We study one abstract of a megabyte. " + "word " * 210_000 + "\n", encoding="utf-8")
    library = tmp_path / "hostile-library"
    with Library(library) as lib:
        report = lib.import_paths([lists, too_big])
    assert report.added == len(HOSTILE) + 1
    assert [e.file for e in report.errors] == ["too-big.txt"]  # 1 MB: refused in plain words
    return library


def anchors(doc: QTextDocument) -> list[tuple[str, int]]:
    """(href, position) of every link in a document."""
    found: list[tuple[str, int]] = []
    block = doc.begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            fragment = it.fragment()
            if fragment.isValid() and fragment.charFormat().isAnchor():
                found.append((fragment.charFormat().anchorHref(), fragment.position()))
            it += 1
        block = block.next()
    return found


@pytest.mark.slow
def test_hostile_text_is_shown_as_text_and_nothing_is_fetched(
    open_window, tmp_path: Path, qtbot, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked: list[str] = []
    control_asked: list[str] = []
    real_load = SafeTextBrowser.loadResource

    def spy(self: SafeTextBrowser, kind: int, name: QUrl) -> object:
        if self.objectName() != "control":
            asked.append(name.toString())
        else:
            control_asked.append(name.toString())
        return real_load(self, kind, name)

    monkeypatch.setattr(SafeTextBrowser, "loadResource", spy)
    opened: list[str] = []
    monkeypatch.setattr(
        safe_text.QDesktopServices, "openUrl", lambda url: opened.append(url.toString()) or True
    )

    # The spy sees what a browser is asked for: raw HTML would ask (the control).
    control = SafeTextBrowser()
    control.setObjectName("control")
    qtbot.addWidget(control)
    control.setHtml('<img src="http://example.com/control.png">')
    control.show()
    qtbot.waitUntil(lambda: "http://example.com/control.png" in control_asked)
    control.close()

    library = hostile_library(tmp_path)
    window = open_window(library)
    with Library(library) as lib:
        ids = {p.id: p.abstract for p in lib.papers(lib.paper_ids())}
    view = window.abstract_view
    hrefs: list[str] = []
    for pid, abstract in ids.items():
        window.show_paper(pid, select=True)
        wait_paper(qtbot, window, pid)
        text = view.toPlainText()
        assert text.strip(), pid
        if "<script>" in abstract:
            assert "<script>alert(1)</script>" in text  # shown, not run, not dropped
        if "<img src=http" in abstract and len(abstract) < 1000:
            assert "<img src=http://example.com/x.png>" in text
        if "\u202e" in abstract:  # no reordering trick, no invisible splits: "exe.txt" reads as such
            assert "Hidden exe.txt names and zerowidth joiners hide" in text
        shown = text + window.paper_view.title.text() + window.paper_view.meta.text()
        assert not set(shown) & set("\u202a\u202b\u202c\u202d\u202e\u200b\u200c\u200d\u2060\ufeff")
        assert window.paper_view.title.textFormat() == Qt.TextFormat.PlainText
        links = anchors(view.document())
        hrefs += [h for h, _ in links]
        # Click every link the document has, as a user would.
        for _href, position in links:
            cursor = QTextCursor(view.document())
            cursor.setPosition(position + 1)
            view.setTextCursor(cursor)
            view.ensureCursorVisible()
            rect = view.cursorRect(cursor)
            qtbot.mouseClick(
                view.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(rect.center().x(), rect.center().y())
            )

    assert hrefs, "the abstracts' http(s) links should be links"
    assert all(h.lower().startswith(("http://", "https://")) for h in hrefs), hrefs
    assert not [h for h in hrefs if "javascript" in h.lower()]
    assert opened and all(u.startswith(("http://", "https://")) for u in opened), opened
    assert not [u for u in asked if u.lower().startswith(("http:", "https:", "file:", "ftp:"))], asked

    # A link that reached the view anyway is still never handed to the system unless it is http(s).
    opened.clear()
    for url in ("javascript:alert(1)", "file:///etc/passwd", "data:text/html,<script>x</script>"):
        view.anchorClicked.emit(QUrl(url))
    assert opened == []

    # The window stays responsive: the biggest abstract is in view and a search still lands.
    window.focus_search()
    type_text(qtbot, "bigabstract")
    wait_search(qtbot, window, "bigabstract")
    qtbot.waitUntil(lambda: window.model.total == 1)
    window.focus_search()
    type_text(qtbot, "script")
    wait_search(qtbot, window, "script")
    qtbot.waitUntil(lambda: window.model.total >= 1)


def test_a_hostile_note_preview_fetches_nothing(open_window, library_dir: Path, qtbot, monkeypatch) -> None:
    asked: list[str] = []
    real_load = SafeTextBrowser.loadResource
    monkeypatch.setattr(
        SafeTextBrowser,
        "loadResource",
        lambda self, kind, name: asked.append(name.toString()) or real_load(self, kind, name),
    )
    window = open_window(library_dir)
    pid = window.current_id
    wait_paper(qtbot, window, pid)
    window.reading.edit_note()
    qtbot.waitUntil(window.note_editor.hasFocus)
    window.note_editor.setPlainText(
        '<img src="http://example.com/n.png"> <script>x()</script> [a](javascript:x())'
    )
    window.reading.toggle_preview()
    preview = window.note.preview
    qtbot.waitUntil(preview.isVisible)
    assert "<script>x()</script>" in preview.toPlainText()  # raw HTML in a note is text
    assert not [h for h, _ in anchors(preview.document()) if not h.startswith(("http://", "https://"))]
    assert not [u for u in asked if u.startswith("http")], asked


@pytest.mark.slow
@pytest.mark.faults
def test_the_window_works_while_command_line_writers_and_a_vector_builder_run(
    open_window, library_dir: Path, tmp_path: Path, qtbot, spawn
) -> None:
    """The window driven by keys while two command-line writers star, tag and note in loops and a
    detached builder encodes the library's vectors: every write of each is kept, nothing says busy."""
    from gui_helpers import press

    from desk.core.semantic import background
    from desk.core.semantic.encoded import DIR_NAME as ENCODED

    window = open_window(library_dir)
    said: list[str] = []
    window.statusBar().messageChanged.connect(said.append)
    env = dict(os.environ, DESK_SENTENCE_ENCODER="1")
    builder = spawn(
        [sys.executable, "-m", "desk.core.semantic.builder", str(library_dir)], env=env,
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    # The writers start once the builder holds its lock (it loads its model first, at nice 19).
    qtbot.waitUntil(
        lambda: background.building(library_dir / ENCODED) or builder.poll() is not None, timeout=120_000
    )
    builder_seen = background.building(library_dir / ENCODED)
    writer = (
        "import sys\n"
        "from desk.cli.main import main\n"
        "lib, first = sys.argv[1], int(sys.argv[2])\n"
        "for k in range(12):\n"
        "    pid = str(first + k)\n"
        "    assert main(['--library', lib, 'star', pid]) == 0\n"
        "    assert main(['--library', lib, 'tag', pid, 'storm']) == 0\n"
        "    assert main(['--library', lib, 'note', pid, '--set', f'cli note {pid}']) == 0\n"
    )
    writers = [
        spawn([sys.executable, "-c", writer, str(library_dir), str(first)], cwd=ROOT, env=env,
              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for first in (1, 40)
    ]  # fmt: skip
    starred_here: set[int] = set()
    words = iter(["policy", "diffusion", "graph", "bandit", "kernel", "learning"] * 20)
    while any(w.poll() is None for w in writers):
        builder_seen = builder_seen or background.building(library_dir / ENCODED)
        window.focus_search()
        word = next(words)
        type_text(qtbot, word)
        wait_search(qtbot, window, word)
        press(qtbot, Qt.Key.Key_Down)
        pid = window.current_id
        if pid is not None and pid not in starred_here and not (1 <= pid < 13 or 40 <= pid < 52):
            press(qtbot, "s")
            qtbot.waitUntil(lambda pid=pid: window.model.summary(pid).starred, timeout=10_000)
            starred_here.add(pid)
    for w in writers:
        _out, err = w.communicate(timeout=120)
        assert w.returncode == 0, err
    qtbot.waitUntil(lambda: not window.executor.pending(), timeout=20_000)
    assert starred_here, "the window starred papers while the writers ran"
    assert builder_seen, "the builder was encoding when the writers started"
    assert window.open_error is None
    assert not [m for m in said if re.search(r"busy|wrong|could not|failed|error", m, re.I)], said
    if builder.poll() is None:  # the builder may still encode: it is never waited on by a writer
        builder.kill()
        builder.communicate()
    with Library(library_dir) as lib:
        for pid in [*range(1, 13), *range(40, 52)]:
            paper = lib.paper(pid)
            assert paper.starred and paper.note == f"cli note {pid}" and "storm" in paper.tags, pid
        for pid in starred_here:
            assert lib.paper(pid).starred, pid
        assert lib.check() == []
    assert not background.building(library_dir / ENCODED)
