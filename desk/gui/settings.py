"""What the window remembers between runs (QSettings, organization "desk", app "desk")."""

from __future__ import annotations

from PySide6.QtCore import QByteArray, QSettings

ORGANIZATION = "desk"
APPLICATION = "desk"


class WindowSettings:
    """Geometry, splitter states, last query and filter.

    Always the INI format, so tests can redirect it with
    `QSettings.setPath(QSettings.IniFormat, QSettings.UserScope, tmp)`.
    """

    def __init__(self) -> None:
        self._s = QSettings(QSettings.Format.IniFormat, QSettings.Scope.UserScope, ORGANIZATION, APPLICATION)

    def _bytes(self, key: str) -> QByteArray | None:
        value = self._s.value(key)
        return value if isinstance(value, QByteArray) and not value.isEmpty() else None

    def _str(self, key: str, default: str = "") -> str:
        value = self._s.value(key, default)
        return value if isinstance(value, str) else default

    @property
    def geometry(self) -> QByteArray | None:
        return self._bytes("window/geometry")

    @geometry.setter
    def geometry(self, value: QByteArray) -> None:
        self._s.setValue("window/geometry", value)

    def splitter(self, name: str) -> QByteArray | None:
        return self._bytes(f"window/splitter_{name}")

    def set_splitter(self, name: str, value: QByteArray) -> None:
        self._s.setValue(f"window/splitter_{name}", value)

    @property
    def last_query(self) -> str:
        return self._str("search/last_query")

    @last_query.setter
    def last_query(self, value: str) -> None:
        self._s.setValue("search/last_query", value)

    @property
    def filter(self) -> str:
        return self._str("search/filter", "all")

    @filter.setter
    def filter(self, value: str) -> None:
        self._s.setValue("search/filter", value)

    @property
    def note_tab(self) -> int:
        value = self._s.value("window/bottom_tab", 0)
        if not isinstance(value, int | float | str):
            return 0
        try:
            return int(value)
        except ValueError:
            return 0

    @note_tab.setter
    def note_tab(self, value: int) -> None:
        self._s.setValue("window/bottom_tab", value)

    def sync(self) -> None:
        self._s.sync()
