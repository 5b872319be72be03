"""One window per library: a second `desk` on the same library brings the first to the front.

The first window listens on a local socket (QLocalServer) named from a hash of the user and the
resolved library path; a second start connects, asks it to come forward and exits.  A window on
another library has another name and opens normally.  A socket file left behind by a killed
window answers no one: the new window takes its place (Qt swaps a user-only socket in over it;
where it cannot, QLocalServer.removeServer removes it first).  Because listening can replace a
live window's socket too, a start always tries to connect before it listens.

A start given files (`desk-gui FILE...`, a file manager's "Open with desk") hands them to the
window already open instead: one line, ``open `` and a JSON list of absolute paths (JSON's
escapes carry bytes that are not UTF-8 as lone surrogates, as Python holds them). The window
imports and shows them, then comes forward.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
from collections.abc import Sequence
from pathlib import Path

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtNetwork import QAbstractSocket, QLocalServer, QLocalSocket
from PySide6.QtWidgets import QApplication, QWidget

log = logging.getLogger(__name__)

REQUEST = b"raise\n"
OPEN = b"open "  # then a JSON list of absolute paths, then a line end
REPLY = b"ok\n"
WAIT_MS = 2000  # how long a second start waits for the first window to answer
MAX_REQUEST = 1 << 20  # bytes: thousands of paths; anything longer is not a desk asking


def open_request(files: Sequence[Path]) -> bytes:
    """The line that hands ``files`` (absolute paths) to the window already open."""
    return OPEN + json.dumps([os.fspath(f) for f in files]).encode("ascii") + b"\n"


def requested_files(line: bytes) -> list[Path] | None:
    """The files an ``open`` line names, or None when it is not one. What cannot be a path a
    desk sent (not a list of strings, a relative path, a NUL byte) is left out."""
    if not line.startswith(OPEN):
        return None
    try:
        names = json.loads(line[len(OPEN) :])
    except (UnicodeDecodeError, ValueError, RecursionError):  # RecursionError: "[[[[…" nested deep
        return None
    if not isinstance(names, list):
        return None
    return [Path(n) for n in names if isinstance(n, str) and n and "\x00" not in n and os.path.isabs(n)]


def server_name(library_dir: Path) -> str:
    """The local socket name for a library: the same for every spelling of its path."""
    user = str(os.getuid()) if hasattr(os, "getuid") else os.environ.get("USERNAME", "")
    resolved = Path(library_dir).expanduser().resolve()
    digest = hashlib.sha256(f"{user}\n{resolved}".encode("utf-8", "surrogateescape")).hexdigest()
    return f"desk-{digest[:24]}"


def bring_to_front(window: QWidget) -> None:
    """Show a window above the others, restored if it was minimised."""
    if window.isMinimized():
        window.setWindowState(window.windowState() & ~Qt.WindowState.WindowMinimized)
    window.show()
    window.raise_()
    window.activateWindow()
    QApplication.alert(window)  # where the window manager refuses to hand over focus, flash instead


class SingleInstance(QObject):
    """The claim of one running window on a library; `raiseRequested` when another start asks."""

    raiseRequested = Signal()
    openRequested = Signal(list)  # list[Path]: files another start hands over (then raiseRequested)

    def __init__(self, library_dir: Path, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.name = server_name(library_dir)
        self._server: QLocalServer | None = None

    @property
    def listening(self) -> bool:
        return self._server is not None and self._server.isListening()

    # -- the second start --------------------------------------------------------------------
    def notify_running(self, timeout_ms: int = WAIT_MS, files: Sequence[Path] = ()) -> bool:
        """Ask a window already open on this library to come forward (and to open ``files``,
        absolute paths); True when one is there."""
        sock = QLocalSocket()
        sock.connectToServer(self.name)
        if not sock.waitForConnected(timeout_ms):
            return False  # no such socket, or a stale one nobody listens on
        # Connected means a live process listens; wait a little for its answer, then leave.
        sock.write(open_request(files) if files else REQUEST)
        while sock.bytesToWrite() and sock.waitForBytesWritten(timeout_ms):
            pass
        if not sock.canReadLine():
            sock.waitForReadyRead(timeout_ms)
        answered = bytes(sock.readLine().data()) == REPLY
        if not answered:
            log.warning("desk: the window already open on this library did not answer in time")
        sock.disconnectFromServer()
        return True

    # -- the first start ---------------------------------------------------------------------
    def listen(self) -> bool:
        """Listen for later starts; False when another live window holds the name."""
        server = QLocalServer(self)
        server.setSocketOptions(QLocalServer.SocketOption.UserAccessOption)
        server.newConnection.connect(self._accept)
        if not server.listen(self.name):
            if server.serverError() != QAbstractSocket.SocketError.AddressInUseError:
                log.warning("desk: cannot listen for other starts: %s", server.errorString())
                server.deleteLater()
                return False
            if self.notify_running():  # someone started listening a moment ago
                server.deleteLater()
                return False
            # A socket file nobody answers on: left behind by a killed window.
            QLocalServer.removeServer(self.name)
            if not server.listen(self.name):
                log.warning("desk: cannot listen for other starts: %s", server.errorString())
                server.deleteLater()
                return False
        self._server = server
        return True

    def close(self) -> None:
        if self._server is not None:
            self._server.close()
            self._server = None

    def _accept(self) -> None:
        assert self._server is not None
        while (sock := self._server.nextPendingConnection()) is not None:
            sock.readyRead.connect(lambda s=sock: self._read(s))
            sock.disconnected.connect(sock.deleteLater)
            if sock.bytesAvailable():
                self._read(sock)

    def _read(self, sock: QLocalSocket) -> None:
        if not sock.canReadLine():
            if sock.bytesAvailable() > MAX_REQUEST:
                sock.abort()
            return
        request = bytes(sock.readLine().data())
        files = requested_files(request)
        if request == REQUEST or files is not None:
            sock.write(REPLY)
            sock.flush()
            if files:
                self.openRequested.emit(files)
            self.raiseRequested.emit()
        sock.disconnectFromServer()


def claim(library_dir: Path, files: Sequence[Path] = ()) -> SingleInstance | None:
    """This process's claim on a library, or None when a window on it was brought forward
    instead (and handed ``files``, absolute paths, to open).

    When the claim cannot be made single (no local sockets), the window still opens.
    """
    instance = SingleInstance(library_dir)
    if instance.notify_running(files=files):
        return None
    if instance.listen():
        return instance
    if instance.notify_running(files=files):  # lost a race with a window starting at the same moment
        return None
    return instance
