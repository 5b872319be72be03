"""What the window remembers between runs (QSettings, organization "desk", app "desk").

Each library keeps its own last query, filter, splits and tab (a first run on a new library
never opens on another one's query); the geometry of the last window and the colour scheme
are shared, and a library seen for the first time starts from the last window's layout.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from PySide6.QtCore import QByteArray, QSettings

ORGANIZATION = "desk"
APPLICATION = "desk"
SCHEMES = ("system", "light", "dark")
READ_DELAY_MS = 1500


def library_key(library_dir: Path) -> str:
    """The settings group of a library: the same for every spelling of its path."""
    resolved = str(Path(library_dir).expanduser().resolve())
    return "library-" + hashlib.sha256(resolved.encode("utf-8", "surrogateescape")).hexdigest()[:16]


class WindowSettings:
    """Geometry, splitter states, last query and filter, per library (`library_dir`).

    Always the INI format, so tests can redirect it with
    `QSettings.setPath(QSettings.IniFormat, QSettings.UserScope, tmp)`.
    """

    def __init__(self, library_dir: Path | None = None) -> None:
        self._s = QSettings(QSettings.Format.IniFormat, QSettings.Scope.UserScope, ORGANIZATION, APPLICATION)
        self._group = library_key(library_dir) if library_dir is not None else "window"
        if library_dir is not None:
            self._s.setValue(f"{self._group}/path", str(library_dir))

    def _key(self, name: str) -> str:
        return f"{self._group}/{name}"

    def _bytes(self, key: str, *, shared: bool = False) -> QByteArray | None:
        for k in (self._key(key), f"window/{key}") if shared else (self._key(key),):
            value = self._s.value(k)
            if isinstance(value, QByteArray) and not value.isEmpty():
                return value
        return None

    def _str(self, key: str, default: str = "") -> str:
        value = self._s.value(self._key(key), default)
        return value if isinstance(value, str) else default

    @property
    def geometry(self) -> QByteArray | None:
        """This library's window geometry, else the last window's (where a new library's starts)."""
        return self._bytes("geometry", shared=True)

    @geometry.setter
    def geometry(self, value: QByteArray) -> None:
        self._s.setValue(self._key("geometry"), value)
        self._s.setValue("window/geometry", value)  # where a new library's window starts

    @property
    def own_geometry(self) -> bool:
        """Whether this library's window was ever closed (its geometry is its own, not the last
        window's of another library)."""
        return self._bytes("geometry") is not None

    def splitter(self, name: str) -> QByteArray | None:
        return self._bytes(f"splitter_{name}", shared=True)

    def set_splitter(self, name: str, value: QByteArray) -> None:
        self._s.setValue(self._key(f"splitter_{name}"), value)
        self._s.setValue(f"window/splitter_{name}", value)

    @property
    def last_query(self) -> str:
        return self._str("last_query")

    @last_query.setter
    def last_query(self, value: str) -> None:
        self._s.setValue(self._key("last_query"), value)

    @property
    def last_paper(self) -> int | None:
        """The paper highlighted when the window closed (shown again on the next start)."""
        text = self._str("last_paper")
        return int(text) if text.isdigit() else None

    @last_paper.setter
    def last_paper(self, value: int | None) -> None:
        self._s.setValue(self._key("last_paper"), "" if value is None else str(value))

    @property
    def filter(self) -> str:
        return self._str("filter", "all")

    @filter.setter
    def filter(self, value: str) -> None:
        self._s.setValue(self._key("filter"), value)

    @property
    def note_tab(self) -> int:
        value = self._s.value(self._key("bottom_tab"), 0)
        try:
            return int(str(value))
        except (TypeError, ValueError):
            return 0

    @note_tab.setter
    def note_tab(self, value: int) -> None:
        self._s.setValue(self._key("bottom_tab"), value)

    @property
    def welcome(self) -> bool:
        """The note on the sample lists is due: the window imported them, the user has not yet
        imported a list of their own nor closed the note (this library)."""
        return self._str("welcome") == "yes"

    @welcome.setter
    def welcome(self, value: bool) -> None:
        self._s.setValue(self._key("welcome"), "yes" if value else "no")

    @property
    def sidebar(self) -> bool:
        """The sidebar is shown (this library; shown at first)."""
        return self._str("sidebar", "yes") != "no"

    @sidebar.setter
    def sidebar(self, value: bool) -> None:
        self._s.setValue(self._key("sidebar"), "yes" if value else "no")

    @property
    def sort(self) -> str:
        """The sort order of the result list (this library): a name of the sort menu's."""
        return self._str("sort", "relevance")

    @sort.setter
    def sort(self, value: str) -> None:
        self._s.setValue(self._key("sort"), value)

    @property
    def scheme(self) -> str:
        """The colour scheme chosen in the window: "system", "light" or "dark" (every library)."""
        value = self._s.value("appearance/scheme", "system")
        return value if isinstance(value, str) and value in SCHEMES else "system"

    @scheme.setter
    def scheme(self, value: str) -> None:
        self._s.setValue("appearance/scheme", value if value in SCHEMES else "system")

    @property
    def mark_read(self) -> bool:
        """Opening a paper marks it read after `read_delay_ms` (every library; on at first)."""
        return self._s.value("reading/mark_read", "yes") != "no"

    @mark_read.setter
    def mark_read(self, value: bool) -> None:
        self._s.setValue("reading/mark_read", "yes" if value else "no")

    @property
    def read_delay_ms(self) -> int:
        """How long a paper is open before it counts as read (1.5 s at first, as Zotero and mail clients)."""
        try:
            value = int(str(self._s.value("reading/read_delay_ms", READ_DELAY_MS)))
        except (TypeError, ValueError):
            return READ_DELAY_MS
        return min(max(value, 0), 60_000)

    @read_delay_ms.setter
    def read_delay_ms(self, value: int) -> None:
        self._s.setValue("reading/read_delay_ms", int(value))

    def sync(self) -> None:
        self._s.sync()
