"""Keep PySide6's lost references to None, True and False from crashing the app on Python 3.11.

PySide6 6.12.0 on Python < 3.12 drops one reference to `True` each time a signal
calls a Python slot, and one to `None` each time an empty QVariant crosses into or
out of Python (a model's `data()` returning None, `index.data()` finding nothing).
Where these objects are not immortal (3.12 made them so), their counts run down as
the window is used until CPython aborts with "none_dealloc"/"bool_dealloc", at the
latest when the interpreter exits.

`install()` checks for the leak with a quick probe and, only where it is found, adds
a large cushion of references to the three singletons and tops it up now and then.
Nothing else is touched; on Python 3.12+ or a fixed PySide6 it does nothing.
"""

from __future__ import annotations

import ctypes
import sys

from PySide6.QtCore import QCoreApplication, QObject, Qt, QTimer, Signal
from PySide6.QtGui import QStandardItem, QStandardItemModel

CUSHION = 1 << 28  # references added at once: days of continuous use
CHECK_MS = 60_000
PROBES = 64

_installed = False
_timer: QTimer | None = None


class _Probe(QObject):
    ping = Signal()


def leaks() -> bool:
    """Whether this Python + PySide6 loses references to None or True."""
    if sys.version_info >= (3, 12) or sys.implementation.name != "cpython":
        return False  # immortal singletons: a lost reference cannot free them
    probe = _Probe()
    probe.ping.connect(lambda: None, Qt.ConnectionType.DirectConnection)
    true_before = sys.getrefcount(True)
    for _ in range(PROBES):
        probe.ping.emit()
    true_lost = true_before - sys.getrefcount(True)
    model = QStandardItemModel()
    model.appendRow(QStandardItem("probe"))
    index = model.index(0, 0)
    none_before = sys.getrefcount(None)
    for _ in range(PROBES):
        index.data(Qt.ItemDataRole.UserRole + 99)
    none_lost = none_before - sys.getrefcount(None)
    return true_lost >= PROBES // 2 or none_lost >= PROBES // 2


def _add_references(obj: object, count: int) -> None:
    # CPython < 3.12: ob_refcnt is the object's first field.
    field = ctypes.c_ssize_t.from_address(id(obj))
    field.value += count


def _top_up() -> None:
    for obj in (None, True, False):
        if sys.getrefcount(obj) < CUSHION // 2:
            _add_references(obj, CUSHION)


def install() -> bool:
    """Guard the singletons if this PySide6 needs it; True when the guard is on."""
    global _installed, _timer
    if _installed:
        return True
    if not leaks():
        return False
    _installed = True
    _top_up()
    app = QCoreApplication.instance()
    if app is not None:
        _timer = QTimer(app)
        _timer.setInterval(CHECK_MS)
        _timer.timeout.connect(_top_up)
        _timer.start()
    return True
